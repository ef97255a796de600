"""A newcomer's whole path, as README tells it: a plain token-protected `jupyter lab` in a copy of
`examples/pairing-repo`, no Copilot login (demo mode), nobody configured as host. The person who
started it claims the room in the tab already open, prompts, approves a command, answers a
question, admits a colleague, and watches the agent edit the open notebook.

Nothing here signs people in the tests' way: both browsers open the link with the server's own
token, exactly as printed, so each is one of jupyter_server's anonymous users (a random hex
username, a display name like "Anonymous Io").
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from jupyter_server.auth.identity import IdentityProvider
from playwright.sync_api import expect

from jupyter_copilot_room.agent.copilot import CopilotAgent

from ..harness.browser_fixtures import printed_lab_url, serving
from ..harness.pages import DARK, LIGHT, set_theme
from ..harness.server import REPO, JupyterServer
from .panel import axe_violations, layout_problems, send, set_sidebar_width, show_room

EXAMPLE = REPO / "examples" / "pairing-repo"
HEX_NAME = re.compile(r"\b[0-9a-f]{32}\b")


@pytest.fixture
def lab(tmp_path, request):
    """`jupyter lab` as a newcomer starts it: its own token, anonymous users, demo mode."""
    server = JupyterServer(
        tmp_path,
        app="lab",
        room={"agent_class": CopilotAgent, "hosts": [], "members": [], "viewers": []},
        extra=({"ServerApp": {"identity_provider_class": IdentityProvider}},),
        env={v: "" for v in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")},
    )
    shutil.copytree(EXAMPLE, server.root, dirs_exist_ok=True)

    def start():
        server.launch()
        server.wait_until(lambda: "claim.html" in server.log.read_text(), 90, "claim notice")

    with serving(server, request, start):
        yield server


def claim_secret(lab) -> str:
    """The secret from the page the log names (only the server's user can read it)."""
    page = re.search(r"file://(\S+claim\.html)", lab.log.read_text()).group(1)
    text = Path(page).read_text(encoding="utf-8")
    return html.unescape(re.search(r"<code[^>]*>([^<]+)</code>", text).group(1))


def panel_problems(page) -> list[str]:
    room = "#jp-copilot-room"
    return layout_problems(page, room) + [str(v) for v in axe_violations(page, room)]


def test_a_newcomer_claims_prompts_approves_answers_admits_and_watches_a_notebook_edit(
    lab, pages, screenshot
):
    log = lab.log.read_text()
    url = printed_lab_url(log)
    secret = claim_secret(lab)
    assert secret not in log, "the log shows the secret's ends only"

    # The person who started the server opens the printed link and meets the door.
    host = show_room(pages("host", url))
    door = host.locator(".jp-CopilotRoom-door")
    expect(door).to_contain_text("This room has no host yet")
    expect(door).not_to_contain_text("A host has been asked")
    screenshot(host, "door")

    # ...and claims the room in that same tab with the secret from the log's page.
    host.get_by_label("Host secret from the server's start").fill(secret)
    host.get_by_role("button", name="Become the host").click()
    expect(host.locator(".jp-CopilotRoom-room")).to_be_visible(timeout=30_000)
    expect(host.locator(".jp-CopilotRoom-agent")).to_have_text("demo model", timeout=90_000)
    expect(host.locator('[role="log"]')).to_contain_text("claimed the room")

    host.evaluate(
        "async () => { await window.jupyterapp.commands.execute('docmanager:open',"
        " {path: 'analysis.ipynb'}); }"
    )
    cells = host.locator(".jp-Notebook .jp-Cell")
    expect(cells).to_have_count(2, timeout=30_000)
    show_room(host)
    set_sidebar_width(host, 420)

    # A prompt, a command to approve.
    send(host, "run a command")
    card = host.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("ls -la", timeout=60_000)
    card.get_by_role("button", name="Approve").click()
    expect(host.locator(".jp-CopilotRoom-reply").last).to_contain_text("stats.py", timeout=60_000)

    # A question to answer.
    send(host, "ask me a question")
    question = host.locator(".jp-CopilotRoom-question")
    expect(question).to_contain_text("Which part of the room", timeout=60_000)
    question.get_by_role("button", name="Nothing, thanks").click()
    expect(question).to_have_count(0, timeout=30_000)

    # A colleague opens the same link: they wait at the door and the host is told.
    guest = show_room(pages("guest", url))
    expect(guest.locator(".jp-CopilotRoom-door")).to_contain_text("A host has been asked")
    arrival = host.locator(".jp-CopilotRoom-admission")
    expect(arrival).to_be_visible(timeout=30_000)
    expect(arrival).to_contain_text("Anonymous")
    assert not HEX_NAME.search(arrival.inner_text()), "the host sees a name, not a hex id"
    arrival.get_by_role("button", name="Admit as member").click()
    expect(guest.locator(".jp-CopilotRoom-room")).to_be_visible(timeout=30_000)

    # The colleague asks for the headline feature: the agent edits the notebook the host has open.
    send(guest, "edit the notebook")
    card = guest.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("analysis.ipynb", timeout=60_000)
    card.get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(3, timeout=60_000)
    expect(cells.nth(2)).to_contain_text("median([1, 2, 3, 4])")
    expect(cells.nth(2).locator(".jp-CopilotRoom-provenance")).to_have_text(
        re.compile(r"^Copilot · Anonymous \w+$")
    )
    expect(card).to_contain_text("An even number of values", timeout=60_000)
    # The agent's cursor waits in the notebook, named for the colleague who asked.
    expect(host.locator(".jp-Notebook .jp-remote-cursor")).to_have_count(1, timeout=15_000)

    for person in (host, guest):
        shown = person.locator("#jp-copilot-room").inner_text()
        assert not HEX_NAME.search(shown), f"a raw username is shown to {person.user}: {shown}"
    for theme in (LIGHT, DARK):
        set_theme(host, theme)
        show_room(host)
        for width in (250, 500):
            set_sidebar_width(host, width)
            screenshot(host, f"{width}px-{theme.split()[-1]}")
            problems = panel_problems(host)
            assert not problems, f"at {width} px in {theme}:\n" + "\n".join(problems)
    set_theme(host, LIGHT)
    card.get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(4, timeout=60_000)
    expect(host.locator(".jp-CopilotRoom-reply").last).to_contain_text("Done", timeout=60_000)
