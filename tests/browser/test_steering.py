"""Steering a running turn and the host's model switch, in the panel (issue 15): the running
prompt's author sees "Steer" (another member does not) and the steering shows in the transcript;
a host switches the model from the header and everyone's header names it."""

import re

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, send, show_room

STEER = "Use python instead, please"


@pytest.fixture
def lab(tmp_path, model, request):
    """The browser tests' lab, with a second model to switch to and dave a member too."""
    model.script = no_script
    model.requests.clear()
    room = {**config.copilot_agent(model.base_url), "models": ["other-model"]}
    room["members"] = ["bob", "dave"]
    server = JupyterServer(tmp_path, app="lab", room=room)
    with serving(server, request, server.start):
        yield server


def runs_a_command(request):
    if request.tool_results:
        return Reply("Done.")
    return Reply(
        "Running it.",
        tool_calls=(ToolCall("bash", {"command": "echo hi", "description": "say hi"}),),
    )


def test_the_author_steers_and_a_host_switches_the_model(open_lab, model, screenshot):
    model.script = runs_a_command
    alice, bob, dave = (show_room(open_lab(user)) for user in ("alice", "bob", "dave"))

    switch = alice.get_by_label("Model for the next turns")
    expect(switch).to_have_value("scripted-model")
    expect(bob.get_by_label("Model for the next turns")).to_have_count(0)
    switch.select_option("other-model")
    for page in (alice, bob):
        expect(page.locator(".jp-CopilotRoom-agent")).to_have_text(re.compile("^other-model via"))
        expect(
            page.locator(".jp-CopilotRoom-system").filter(
                has_text="switched the model to other-model"
            )
        ).to_contain_text("Alice")

    send(bob, "fix the bug")
    expect(bob.locator(".jp-CopilotRoom-approval")).to_have_count(1, timeout=30_000)
    steer = bob.get_by_role("button", name="Steer the running turn")
    expect(steer).to_be_visible()
    expect(dave.locator(".jp-CopilotRoom-queueItem[data-state='input-required']")).to_be_visible()
    expect(dave.get_by_role("button", name="Steer the running turn")).to_have_count(0)
    expect(alice.get_by_role("button", name="Steer the running turn")).to_be_visible()

    steer.click()
    bob.get_by_label("Steering message").fill(STEER)
    problems = fits_at_every_look(bob, screenshot, "steer-box-", ".jp-CopilotRoom-queue")
    problems += fits_at_every_look(alice, screenshot, "model-switch-", ".jp-CopilotRoom-header")
    bob.get_by_label("Steering message").press("Enter")
    for page in (alice, dave):
        shown = page.locator(".jp-CopilotRoom-steering")
        expect(shown).to_contain_text("Bob")
        expect(shown).to_contain_text("(steering)")
        expect(shown).to_contain_text(STEER)
    expect(bob.locator(".jp-CopilotRoom-approval")).to_have_count(1)  # the card stays
    problems += fits_at_every_look(dave, screenshot, "steered-", ".jp-CopilotRoom-steering")
    assert not problems, problems
    assert model.requests[-1].body["model"] == "other-model"
