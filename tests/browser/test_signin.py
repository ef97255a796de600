"""Copilot sign-in from the panel (issue 16): in demo mode the host's panel offers "Sign in to
GitHub Copilot"; the card (GitHub's address, where to paste the address the browser lands on,
Cancel) is the host's alone; a member's panel shows none of it. Against an enterprise host (a
fake GitHub, tests/harness/github.py) the flow runs to its end: the plain-text consent, then the
seat and what it has left in the header."""

import contextlib
import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.copilot import CopilotAgent

from ..harness import github
from ..harness.browser_fixtures import serving
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, show_room


@pytest.fixture
def lab(tmp_path, request):
    """`jupyter lab` in demo mode (no login, no provider); for an enterprise test, its sign-in goes
    to a fake GitHub whose certificate the runtime trusts."""
    room = {"agent_class": CopilotAgent}
    with contextlib.ExitStack() as stack:
        if "enterprise" in request.node.name:
            room["github_host"], certificate = stack.enter_context(github.fake_github(tmp_path))
        server = JupyterServer(tmp_path, app="lab", room=room)
        server.env.update({v: "" for v in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")})
        if "enterprise" in request.node.name:
            server.env["SSL_CERT_FILE"] = str(certificate)
        yield stack.enter_context(serving(server, request, server.start))


def test_only_the_host_sees_the_sign_in_card(lab, open_lab, screenshot):
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))
    for page in (alice, bob):
        expect(page.locator(".jp-CopilotRoom-agent")).to_have_text("demo model", timeout=60_000)
    alice.get_by_role("button", name="Sign in to GitHub Copilot").click()
    card = alice.locator(".jp-CopilotRoom-signin[data-state=waiting]")
    link = card.get_by_role("link", name="Open GitHub and sign in")
    expect(link).to_have_attribute("href", re.compile(r"^https://github\.com/login/oauth/"))
    expect(card.locator(".jp-CopilotRoom-signinCallback")).to_contain_text("http://127.0.0.1:")

    problems = fits_at_every_look(alice, screenshot, "card-", ".jp-CopilotRoom-signin")
    assert not problems, problems

    card.get_by_label("The address your browser landed on after GitHub").fill(
        "http://example.com/callback?code=x"
    )
    card.get_by_role("button", name="Continue").click()
    expect(card.get_by_role("alert")).to_contain_text("not the address this sign-in returns to")
    expect(bob.locator(".jp-CopilotRoom-signin")).to_have_count(0)
    expect(bob.get_by_role("button", name="Sign in to GitHub Copilot")).to_have_count(0)

    card.get_by_role("button", name="Cancel").click()
    expect(alice.get_by_role("button", name="Sign in to GitHub Copilot")).to_be_visible()

    # "Not now" folds the card to its one button, for this host, across a reload.
    note = alice.locator(".jp-CopilotRoom-signinNote")
    expect(note).to_be_visible()
    alice.get_by_role("button", name="Not now").click()
    expect(note).to_have_count(0)
    expect(alice.get_by_role("button", name="Sign in to GitHub Copilot")).to_be_visible()
    alice.reload()
    alice.wait_for_function("() => window.jupyterapp?.commands.hasCommand('copilot-room:open')")
    show_room(alice)
    expect(alice.locator(".jp-CopilotRoom-agent")).to_have_text("demo model", timeout=60_000)
    expect(alice.get_by_role("button", name="Sign in to GitHub Copilot")).to_be_visible()
    expect(note).to_have_count(0)


def test_an_enterprise_sign_in_asks_the_host_then_the_header_shows_the_seat_and_its_quota(
    lab, open_lab, screenshot
):
    alice = show_room(open_lab("alice"))
    expect(alice.locator(".jp-CopilotRoom-agent")).to_have_text("demo model", timeout=60_000)
    alice.get_by_role("button", name="Sign in to GitHub Copilot").click()
    card = alice.locator(".jp-CopilotRoom-signin[data-state=waiting]")
    address = card.get_by_role("link", name="Open GitHub and sign in").get_attribute("href")
    state = parse_qs(urlparse(address).query)["state"][0]
    callback = card.locator(".jp-CopilotRoom-signinCallback").inner_text()
    card.get_by_label("The address your browser landed on after GitHub").fill(
        f"{callback}?code=c0de5ecret&state={state}"
    )
    card.get_by_role("button", name="Continue").click()

    consent = alice.locator(".jp-CopilotRoom-signin[data-state=consent]")
    expect(consent.get_by_role("alert")).to_contain_text("in plain text", timeout=30_000)
    problems = fits_at_every_look(alice, screenshot, "consent-", ".jp-CopilotRoom-signin")
    consent.get_by_role("button", name="Allow").click()

    header = alice.locator(".jp-CopilotRoom-header")
    expect(header.locator(".jp-CopilotRoom-seat")).to_contain_text(
        "Copilot seat: octo-host", timeout=60_000
    )
    expect(header.locator(".jp-CopilotRoom-quota")).to_contain_text(
        "120 of 300 premium requests left (40%), resets", timeout=30_000
    )
    expect(alice.locator(".jp-CopilotRoom-signin")).to_have_count(0)
    problems += fits_at_every_look(alice, screenshot, "seat-quota-", ".jp-CopilotRoom-header")
    assert not problems, problems
