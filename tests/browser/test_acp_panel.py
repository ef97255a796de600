"""Choosing the room's agent (issue 45): where the server offers ACP agents beside the room's
own, a host picks one in Room settings; the header then names it, and the next prompt is its."""

import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, replies, send, show_room

SCRIPTED = Path(__file__).parents[1] / "agents" / "scripted_acp_agent.py"


@pytest.fixture
def lab(tmp_path, model, request):
    """The browser tests' lab, with the tests' scripted ACP agent offered beside Copilot."""
    model.script = no_script
    model.requests.clear()
    scripted = {
        "acp": [sys.executable, str(SCRIPTED)],
        "title": "Scripted ACP agent",
        "asks": "own",
    }
    room = {**config.copilot_agent(model.base_url), "agents": {"scripted": scripted}}
    server = JupyterServer(tmp_path, app="lab", room=room)
    with serving(server, request, server.start):
        yield server


def test_a_host_chooses_the_agent_in_settings_and_the_header_names_it(open_lab, screenshot):
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))
    alice.get_by_role("button", name="Room settings…").click()
    form = alice.locator(".jp-Dialog .jp-CopilotRoom-settings")
    expect(form.locator(".jp-CopilotRoom-settingsGroup > h3").first).to_have_text("The agent")
    choice = form.locator('[data-setting="agent"]')
    # An agent the room has no profile for says so wherever a host chooses or watches it.
    shown = "Scripted ACP agent (decides some commands itself)"
    expect(choice.locator("option")).to_have_text(["GitHub Copilot", shown])
    expect(choice).to_have_value("copilot")
    choice.select_option(label=shown)
    expect(form.locator(".jp-CopilotRoom-settingSaved")).to_have_text("Saved")
    screenshot(alice.locator(".jp-Dialog-content"), "agent-setting")
    alice.get_by_role("button", name="Close").click()

    for page in (alice, bob):  # everyone's header names the agent that answers now
        expect(page.locator(".jp-CopilotRoom-agent")).to_have_text(shown, timeout=30_000)
        expect(page.locator(".jp-CopilotRoom-state")).to_have_text("idle")
    send(bob, "which agent is this?")
    reply = replies(alice).last
    expect(reply).to_contain_text("Echo: [bob]: which agent is this?", timeout=30_000)
    expect(reply.locator(".jp-CopilotRoom-agentName")).to_have_text("Scripted ACP agent")
    assert fits_at_every_look(alice, screenshot, "chosen-agent-", ".jp-CopilotRoom-header") == []

    # Its plan is one entry that follows the agent's updates to their end.
    send(bob, "make a plan")
    expect(replies(alice).last).to_contain_text("Planned.", timeout=30_000)
    plan = alice.locator(".jp-CopilotRoom-plan")
    expect(plan).to_have_count(1)
    expect(plan.locator(".jp-CopilotRoom-status")).to_have_text("2 of 2 done")
    expect(plan.locator("li")).to_have_text(["✓ Read the data", "✓ Chart the totals"])
    assert fits_at_every_look(alice, screenshot, "acp-plan-", ".jp-CopilotRoom-plan") == []
