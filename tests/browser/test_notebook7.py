"""The room in Notebook 7 (issue 30): its panel in the notebook page's right sidebar, where a
person asks and the agent's reply streams in, as in JupyterLab."""

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.pages import DARK, LIGHT, new_page, set_theme
from ..harness.people import token
from ..harness.server import JupyterServer
from .panel import layout_problems, replies, send, show_room
from .test_notebook_changes import write_notebook


@pytest.fixture
def notebook_app(tmp_path, model, request):
    """`jupyter notebook` (Notebook 7) with the room, its agent idle."""
    model.script = lambda request: Reply("Hello from **Notebook 7**.")
    server = JupyterServer(
        tmp_path,
        app="notebook",
        room=config.copilot_agent(model.base_url),
        extra=({"JupyterNotebookApp": {"expose_app_in_browser": True}},),
    )
    with serving(server, request, server.start):
        yield server


def shown_for_good(page) -> dict:
    """Open the room and return its box once it stays shown. Notebook 7 may fold its right
    sidebar while the page finishes restoring its layout; a person would open it again."""
    panel, last = page.locator("#jp-copilot-room"), None
    for _ in range(20):
        show_room(page)
        page.wait_for_timeout(500)
        box = panel.bounding_box()
        if box is not None and box == last:
            return box
        last = box
    raise AssertionError(f"the room never stayed shown: {last}")


def test_the_room_is_in_notebook_7s_right_sidebar_and_answers_there(
    notebook_app, browser, screenshot
):
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": kernel})  # no "Select Kernel"
    nbformat.write(notebook, notebook_app.root / "plain.ipynb")
    page = new_page(browser, "alice")
    try:
        page.goto(f"{notebook_app.url}/notebooks/plain.ipynb?token={token('alice')}")
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
        page.evaluate("() => window.jupyterapp.restored")
        box, width = shown_for_good(page), page.viewport_size["width"]
        assert box["x"] > width / 2, f"the panel is not on the right: {box}"
        send(page, "hello from the notebook page")
        expect(replies(page)).to_have_count(1, timeout=30_000)
        expect(replies(page).first).to_contain_text("Hello from Notebook 7.")
        screenshot(page, "notebook7")
        assert not layout_problems(page, ".jp-CopilotRoom-entry, .jp-CopilotRoom-promptBox")
    finally:
        page.context.close()


def test_notebook_7s_toolbar_opens_the_room_and_its_badges_are_styled(
    notebook_app, model, browser, screenshot
):
    """Issue 42: on Notebook 7's notebook page the room was reachable only through View, Right
    Sidebar, and the agent's cell badges showed as large unstyled buttons. Each notebook's toolbar
    has "Copilot room"; a badge looks as in JupyterLab, in the light and the dark theme."""
    write_notebook(notebook_app.root / "plan.ipynb", "values = [1, 2]")
    insert = {"path": "plan.ipynb", "index": 1, "cell_type": "code", "source": "sum(values)"}
    model.script = lambda request: (
        Reply("Done.")
        if request.tool_results
        else Reply(tool_calls=(ToolCall("notebook_insert_cell", insert),))
    )
    page = new_page(browser, "alice")
    try:
        page.goto(f"{notebook_app.url}/notebooks/plan.ipynb?token={token('alice')}")
        page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
        page.evaluate("() => window.jupyterapp.restored")
        cells = page.locator(".jp-Notebook .jp-Cell")
        expect(cells).to_have_count(1, timeout=30_000)
        room = page.locator("#jp-copilot-room")
        expect(room).to_be_hidden()
        button = page.locator(".jp-NotebookPanel-toolbar .jp-CopilotRoom-toolbarButton")
        expect(button).to_contain_text("Copilot room")
        button.click()
        expect(room).to_be_visible()
        send(page, "add the total")
        card = page.locator(".jp-CopilotRoom-approval")
        expect(card).to_have_count(1, timeout=30_000)
        card.get_by_role("button", name="Approve").click()
        badge = cells.nth(1).locator(".jp-CopilotRoom-provenance")
        expect(badge).to_have_text("Copilot · Alice", timeout=30_000)
        for theme, name in ((LIGHT, "light"), (DARK, "dark")):
            set_theme(page, theme)
            style = badge.evaluate(
                "b => { const s = getComputedStyle(b); return [s.borderRadius, s.cursor]; }"
            )
            assert style == ["8px", "pointer"], style
            box = badge.bounding_box()
            assert box and box["height"] < 30, f"a badge, not a large button: {box}"
            screenshot(page, f"notebook7-badge-{name}")
    finally:
        page.context.close()
