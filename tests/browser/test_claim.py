"""Claiming a room that has no host, in the browser tab already open (issue 11).

A plain `jupyter lab` with nobody configured as host: its log prints the claim link after its
own URLs, the secret's middle hidden, and names a page (readable only by the server's user) that
holds the secret. The person who started the server pastes it at the door of the tab they have
open and is the host there; the door never says "a host has been asked" while there is none, and
stops offering the claim once there is a host.
"""

import html
import re
import urllib.parse
from pathlib import Path

import pytest
from jupyter_server.auth.identity import IdentityProvider
from playwright.sync_api import expect

from ..harness.pages import DARK, LIGHT, new_page, page_api, set_theme, wait_for_lab
from ..harness.people import DISPLAY_NAMES, GUEST, token
from ..harness.server import JupyterServer
from .panel import axe_violations, layout_problems, set_sidebar_width, show_room

PANEL = "#jp-copilot-room"


@pytest.fixture
def unclaimed_lab(tmp_path):
    """`jupyter lab` with the room and nobody configured as its host."""
    server = JupyterServer(tmp_path, app="lab", room={"hosts": []})
    server.launch()
    try:
        server.wait_until(lambda: "claim.html" in server.log.read_text(), 90, "claim notice")
        yield server
    finally:
        server.stop(grace=15)


@pytest.fixture
def visit(browser, unclaimed_lab):
    pages = []

    def open_as(user: str, viewport=(1280, 900)):
        page = new_page(browser, user, viewport)
        pages.append(page)
        page.goto(f"{unclaimed_lab.url}/lab?token={token(user)}")
        wait_for_lab(page)
        return show_room(page)

    yield open_as
    for page in pages:
        page.context.close()


def the_secret(lab) -> str:
    """The whole secret, from the page the log names (only the server's user can read it)."""
    log = lab.log.read_text()
    page_path = Path(urllib.parse.urlparse(re.search(r"file://\S+claim\.html", log)[0]).path)
    return re.search(r"user-select:all'>([^<]+)<", page_path.read_text())[1]


def test_the_claim_link_says_you_are_the_host_and_works_once(unclaimed_lab, visit, screenshot):
    starter = visit(GUEST)
    link = f"{unclaimed_lab.url}/copilot-room/claim?secret={the_secret(unclaimed_lab)}"
    starter.goto(link)
    wait_for_lab(starter)
    show_room(starter)
    expect(starter.locator(".jp-CopilotRoom-claimed")).to_contain_text(
        "You are the host of this room."
    )
    starter.reload()  # said once
    wait_for_lab(starter)
    show_room(starter)
    expect(starter.locator(".jp-CopilotRoom-room")).to_be_visible()
    expect(starter.locator(".jp-CopilotRoom-claimed")).to_have_count(0)

    dave = visit("dave")
    dave.goto(link)
    expect(dave.locator("h1")).to_have_text("You did not become the room's host")
    expect(dave.locator("body")).to_contain_text("This room already has a host")
    screenshot(dave, "used-link")


def test_the_server_starter_claims_the_room_in_the_tab_already_open(
    unclaimed_lab, visit, screenshot
):
    log = unclaimed_lab.log.read_text()
    # Printed after the server's own URLs, for its address, with the secret's middle hidden.
    running = log.index("is running at")
    notice = log.index("The Copilot room has no host yet")
    assert running < notice
    secret = the_secret(unclaimed_lab)
    assert secret not in log
    shown = f"{unclaimed_lab.url}/copilot-room/claim?secret={secret[:4]}…{secret[-4:]}"
    assert shown in log[notice:]

    starter = visit(GUEST)
    door = starter.locator(".jp-CopilotRoom-door")
    expect(door).to_contain_text("This room has no host yet")
    expect(door).not_to_contain_text("A host has been asked")
    form = starter.get_by_role("form", name="Claim the room as its host")
    expect(form).to_contain_text("I started this server")
    problems: list[str] = []
    for theme, name in ((LIGHT, "light"), (DARK, "dark")):
        set_theme(starter, theme)
        show_room(starter)
        for width in (250, 500):
            set_sidebar_width(starter, width)
            screenshot(starter.locator(PANEL), f"door-{width}px-{name}")
            problems += [
                f"{width} px, {name}: {p}"
                for p in layout_problems(starter, PANEL) + axe_violations(starter, PANEL)
            ]
    assert not problems, "\n".join(problems)
    set_theme(starter, LIGHT)
    show_room(starter)

    field = form.get_by_label("Host secret from the server's start")
    field.fill("not-the-secret")
    form.get_by_role("button", name="Become the host").click()
    expect(form.get_by_role("alert")).to_contain_text("not this server's host secret")

    # The whole link works as well as the secret: the panel takes the secret out of it.
    field.fill(f"{unclaimed_lab.url}/copilot-room/claim?secret={secret}&token=x")
    form.get_by_role("button", name="Become the host").click()
    expect(starter.locator(".jp-CopilotRoom-claimed")).to_contain_text(
        "You are the host of this room.", timeout=15_000
    )
    expect(starter.locator(".jp-CopilotRoom-room")).to_be_visible()
    expect(starter.locator(".jp-CopilotRoom-system").last).to_contain_text(
        f"{DISPLAY_NAMES[GUEST]} claimed the room as its host."
    )
    screenshot(starter.locator(PANEL), "claimed")

    # Someone else now waits for that host; the claim is not offered any more.
    dave = visit("dave")
    dave_door = dave.locator(".jp-CopilotRoom-door")
    expect(dave_door).to_contain_text("A host has been asked to let you in")
    expect(dave.get_by_role("form", name="Claim the room as its host")).to_have_count(0)
    expect(starter.locator(".jp-CopilotRoom-admission")).to_contain_text("Dave asks to join")
    screenshot(dave.locator(PANEL), "door-with-a-host")


@pytest.fixture
def token_lab(tmp_path):
    """A plain token-protected `jupyter lab` as README starts it: jupyter_server's own identity
    provider (each browser one of its anonymous users), nobody configured as host."""
    server = JupyterServer(
        tmp_path,
        app="lab",
        room={"hosts": [], "members": [], "viewers": []},
        extra=({"ServerApp": {"identity_provider_class": IdentityProvider}},),
    )
    server.launch()
    try:
        server.wait_until(lambda: "claim.html" in server.log.read_text(), 90, "claim notice")
        yield server
    finally:
        server.stop(grace=15)


def printed_links(lab) -> tuple[str, str]:
    """The lab link jupyter_server printed and the claim link the claim page holds, both with
    the server's token, as a newcomer copies them."""
    log = lab.log.read_text()
    lab_url = re.search(r"(http://127\.0\.0\.1:\d+/lab\?token=\w+)", log)[1]
    page_path = Path(urllib.parse.urlparse(re.search(r"file://\S+claim\.html", log)[0]).path)
    claim = re.search(r'href="(http://127\.0\.0\.1[^"]+)"', page_path.read_text())[1]
    return lab_url, html.unescape(claim)


@pytest.mark.parametrize("first", ["the claim link", "JupyterLab"])
def test_whoever_opens_the_claim_link_becomes_host_in_a_fresh_browser_too(
    token_lab, browser, first, screenshot
):
    """The link carries `?token=`: a fresh browser's first request is the server's token, with
    no login cookie yet. The claim waits for the request with the browser's own cookie, so the
    person becomes host, never "Server owner" (issue 27)."""
    lab_url, claim = printed_links(token_lab)
    assert "token=" in claim
    starter = new_page(browser, "starter")
    try:
        if first == "JupyterLab":
            starter.goto(lab_url)
            wait_for_lab(starter)
        starter.goto(claim)
        wait_for_lab(starter)
        show_room(starter)
        expect(starter.locator(".jp-CopilotRoom-claimed")).to_contain_text(
            "You are the host of this room.", timeout=15_000
        )
        line = starter.locator(".jp-CopilotRoom-system").filter(has_text="claimed the room")
        expect(line).to_contain_text("claimed the room as its host.")
        expect(line).not_to_contain_text("Server owner")
        me = page_api(starter, "GET", "room")["json"]["me"]
        assert (me["role"], me["username"] != "server-owner") == ("host", True), me
        screenshot(starter.locator(PANEL), "claimed-in-a-fresh-browser")
    finally:
        starter.context.close()
