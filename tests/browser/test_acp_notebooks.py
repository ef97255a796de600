"""An ACP agent edits a notebook people have open (issue 45): `copilot --acp`, the room's agent,
calls the room's notebook tools over MCP; the edit is the room's notebook card, shown as cells,
and once the prompt's author approves it, it appears in the open notebook of another person,
live, without a reload."""

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, replies, send, set_sidebar_width, show_room
from .test_notebook_changes import open_notebook, write_notebook


@pytest.fixture
def lab(tmp_path, model, request):
    """The browser tests' lab with Copilot over ACP as every room's agent."""
    model.script = no_script
    model.requests.clear()
    server = JupyterServer(
        tmp_path,
        app="lab",
        room=config.copilot_over_acp(model.base_url),
        env={config.ACP_KEY_ENV: config.MODEL_KEY},
    )
    with serving(server, request, server.start):
        yield server


def test_an_acp_agents_notebook_edit_is_approved_then_lands_in_the_open_notebook(
    open_lab, lab, model, screenshot
):
    first, _ = write_notebook(lab.root / "plan.ipynb", "rate = 0.1", "print(rate)")

    def script(request):
        if request.tool_results:
            return Reply("Changed the rate.")
        [tool] = [name for name in request.tool_names if name.endswith("notebook_replace_cell")]
        arguments = {"path": "plan.ipynb", "cell_id": first, "source": "rate = 0.2"}
        return Reply(tool_calls=(ToolCall(tool, arguments),))

    model.script = script
    alice = show_room(open_lab("alice"))
    cells = open_notebook(alice, "plan.ipynb")
    expect(cells).to_have_count(2, timeout=30_000)
    bob = show_room(open_lab("bob"))
    expect(bob.locator(".jp-CopilotRoom-agent")).to_have_text("Copilot over ACP", timeout=60_000)
    set_sidebar_width(bob, 250)

    send(bob, "raise the rate")
    card = bob.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=60_000)
    expect(card.locator(".jp-CopilotRoom-cardSummary")).to_contain_text("plan.ipynb")
    diff = card.locator(".jp-CopilotRoom-diffView")
    expect(diff.locator("[data-kind=removed]")).to_have_text(["-rate = 0.1"])
    expect(diff.locator("[data-kind=added]")).to_have_text(["+rate = 0.2"])
    assert (
        fits_at_every_look(bob, screenshot, "acp-notebook-card-", ".jp-CopilotRoom-approval") == []
    )
    expect(cells.nth(0)).to_contain_text("rate = 0.1")  # nothing lands before the answer

    card.get_by_role("button", name="Approve").click()
    expect(cells.nth(0)).to_contain_text("rate = 0.2", timeout=30_000)  # live in alice's tab
    expect(cells.nth(1)).to_contain_text("print(rate)")
    expect(replies(bob).last).to_contain_text("Changed the rate.", timeout=30_000)
    # The transcript and the prompt box name the agent in Copilot's place.
    asked = bob.locator(".jp-CopilotRoom-request")
    expect(asked).to_contain_text("Copilot over ACP asked to edit a notebook")
    expect(asked).to_contain_text("approved by")
    expect(bob.get_by_role("button", name="Ask Copilot over ACP")).to_be_visible()
    screenshot(alice, "acp-notebook-edit-live")
