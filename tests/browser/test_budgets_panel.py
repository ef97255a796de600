"""Usage and budgets in the panel (issue 16): People shows what each person and the room used
today; once bob reached his daily cap, a host sees "Lift cap" beside him (a member does not),
and after the lift bob's row says so."""

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, send, show_room


@pytest.fixture
def lab(tmp_path, model, request):
    """The browser tests' lab, with a per-person cap of one token: one turn reaches it."""
    model.script = no_script
    model.requests.clear()
    room = {**config.copilot_agent(model.base_url), "budgets": {"per_person": {"tokens": 1}}}
    server = JupyterServer(tmp_path, app="lab", room=room)
    with serving(server, request, server.start):
        yield server


def test_people_show_usage_and_a_host_lifts_a_reached_cap(open_lab, model, screenshot):
    model.script = lambda request: Reply("Done.")
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))
    for page in (alice, bob):
        page.locator("summary").filter(has_text="People").click()
    send(bob, "count the files")

    lift = alice.get_by_role("button", name="Lift the daily cap of Bob for today")
    expect(lift).to_be_visible(timeout=30_000)
    bobs_row = alice.locator(".jp-CopilotRoom-personRow").filter(has_text="Bob")
    expect(bobs_row.locator(".jp-CopilotRoom-personUsage")).to_contain_text("of 1 tokens")
    expect(alice.locator(".jp-CopilotRoom-roomUsage")).to_contain_text("1 turn")
    expect(bob.locator(".jp-CopilotRoom-personUsage")).to_contain_text("cap reached")
    expect(bob.get_by_role("button", name="Lift the daily cap of Bob for today")).to_have_count(0)
    problems = fits_at_every_look(alice, screenshot, "usage-", ".jp-CopilotRoom-people")

    lift.click()
    for page in (alice, bob):
        expect(page.locator(".jp-CopilotRoom-personUsage")).to_contain_text("cap lifted")
        expect(
            page.locator(".jp-CopilotRoom-system").filter(has_text="lifted the daily cap")
        ).to_contain_text("Alice")
    expect(lift).to_have_count(0)
    assert not problems, problems
