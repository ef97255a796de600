"""A file request's card as people read it: the path relative to the repository, a notebook's
change cell by cell. The real Copilot runtime's own `edit` and `create` tools ask (the scripted
model calls them), so the card shows what the runtime's permission request holds."""

import json

import nbformat
import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness.helpers import entries, eventually, ready


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


async def card_for(api, room, model, call: ToolCall) -> dict:
    model.script = lambda request: (
        Reply("Done.") if request.tool_results else Reply(tool_calls=(call,))
    )
    await ready(api, room)
    await api("alice", "POST", "prompts", body={"text": "change the file"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [card] = room.document.approvals.to_py().values()
    return card


async def test_an_edit_of_a_notebooks_json_is_shown_cell_by_cell(api, room, model, jp_root_dir):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Sales", id="t"),
        nbformat.v4.new_code_cell("total = 1\nprint(total)", id="a"),
    ]
    path = jp_root_dir / "sales.ipynb"
    nbformat.write(nb, path)
    old = json.dumps("total = 1\n")
    edit = {"path": str(path), "old_str": old, "new_str": json.dumps("total = 2\n")}
    assert old in path.read_text()

    card = await card_for(api, room, model, ToolCall("edit", edit))
    assert (card["kind"], card["summary"]) == ("write", "sales.ipynb")
    assert card["details"]["diff"] == (
        "diff --git a/sales.ipynb b/sales.ipynb\n--- a/sales.ipynb\n+++ b/sales.ipynb\n"
        "@@ cell 2 (code): changed @@\n-total = 1\n+total = 2\n print(total)\n"
    )


async def test_a_new_file_is_named_from_the_repository_and_shown_whole(
    api, room, model, jp_root_dir
):
    (jp_root_dir / "notes").mkdir()
    create = {"path": str(jp_root_dir / "notes" / "plan.md"), "file_text": "# Plan\n\n- ship\n"}
    card = await card_for(api, room, model, ToolCall("create", create))
    assert (card["kind"], card["summary"]) == ("write", "notes/plan.md")
    diff = card["details"]["diff"]
    assert diff.startswith(
        "diff --git a/notes/plan.md b/notes/plan.md\n--- /dev/null\n+++ b/notes/plan.md\n"
    )
    assert diff.endswith("+# Plan\n+\n+- ship\n")
    assert str(jp_root_dir) not in json.dumps(card)
    [tool] = entries(room, "tool")
    assert tool["summary"] == "notes/plan.md"  # the tool's line names it alike
