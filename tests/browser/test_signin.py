"""Copilot sign-in from the panel (issue 16): in demo mode the host's panel offers "Sign in to
GitHub Copilot"; the card (GitHub's address, where to paste the address the browser lands on,
Cancel) is the host's alone; a member's panel shows none of it."""

import re

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.copilot import CopilotAgent

from ..harness.browser_fixtures import serving
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, show_room


@pytest.fixture
def lab(tmp_path, request):
    """`jupyter lab` in demo mode (no login, no provider)."""
    server = JupyterServer(tmp_path, app="lab", room={"agent_class": CopilotAgent})
    server.env.update({v: "" for v in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")})
    with serving(server, request, server.start):
        yield server


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
