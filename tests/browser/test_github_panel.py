"""The room on a pull request, as people in the panel see it (issue 44): a prompt asked in a
comment links to it, someone without a Copilot seat waits at the door with the reason on the
host's card, and the header says "GitHub: waiting" while GitHub rate-limits the room. Against the
tests' fake GitHub, served from a thread (the browser tests run no event loop)."""

import time

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.fronts.github.markers import marker_of

from ..harness import config
from ..harness.browser_fixtures import served_in_thread, serving
from ..harness.fake_github_rest import FakeGitHub
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, replies, show_room

TOKEN = "gh-test-token"


@pytest.fixture
def github():
    fake = FakeGitHub(repository="acme/lab", token=TOKEN)
    fake.permissions["bob"] = "write"
    fake.seats["acme"] = {"bob"}
    fake.add_pull(7)
    with served_in_thread(fake, "fake-github") as served:
        yield served.service


@pytest.fixture
def lab(tmp_path, model, github, request):
    model.script = no_script
    model.requests.clear()
    settings = {
        "repository": "acme/lab",
        "api_url": github.base_url,
        "poll_interval": 0.5,
        "match_logins": True,  # the test server's usernames are the fake's logins
        "seat_check": {"org": "acme", "token_env": "COPILOT_ROOM_GITHUB_TOKEN"},
    }
    room = {**config.copilot_agent(model.base_url), "members": ["bob", "erin"], "github": settings}
    server = JupyterServer(tmp_path, app="lab", room=room, env={"COPILOT_ROOM_GITHUB_TOKEN": TOKEN})
    with serving(server, request, server.start):
        yield server


def card_name(github, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for _, body in list(github.written):
            if "card" in (marker := marker_of(body) or {}):
                return marker["card"]["name"]
        time.sleep(0.1)
    raise AssertionError("the room posted no card")


def test_the_panel_shows_the_pull_request_the_seat_check_and_githubs_state(
    open_lab, lab, github, model, screenshot
):
    model.script = lambda request: Reply("Hello from the pull request.")
    assert lab.api("alice", "POST", "github/pull", {"number": 7})[0] == 200
    alice = show_room(open_lab("alice"))
    comment = github.comment("bob", f"@{card_name(github)} say hello")

    link = alice.locator(".jp-CopilotRoom-prompt .jp-CopilotRoom-promptLink")
    expect(link).to_have_text("on GitHub", timeout=60_000)
    expect(link).to_have_attribute("href", comment["html_url"])
    expect(replies(alice).last).to_contain_text("Hello from the pull request.", timeout=60_000)

    show_room(open_lab("erin"))  # a member by configuration, with no seat
    note = alice.locator(".jp-CopilotRoom-admission .jp-CopilotRoom-doorNote")
    expect(note).to_have_text("no Copilot seat in acme", timeout=30_000)

    github.rate_limit(120)
    front = alice.locator("[data-front=github]")
    expect(front).to_have_text("GitHub: waiting", timeout=30_000)
    assert fits_at_every_look(alice, screenshot, "github-header-", ".jp-CopilotRoom-header") == []
    assert fits_at_every_look(alice, screenshot, "github-door-", ".jp-CopilotRoom-admission") == []
    screenshot(alice, "github-prompt-link")
