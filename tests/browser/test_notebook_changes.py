"""A notebook change in the panel (issue 28): its card and its checkpoint show cells, not the
`.ipynb` file's JSON; an older turn is reverted cell by cell while a later turn's cell and a
person's run stay; a turn whose only edit was rejected offers nothing to revert. Three people's
worth of roles (a host with the notebook open, a member), the real runtime, a real kernel."""

import json
import re

import nbformat
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .panel import fits_at_every_look, send, set_sidebar_width, show_room
from .test_rooms_panel import switch_to

JSON_KEYS = re.compile(r'"(cell_type|source|outputs|metadata|execution_count)"')


def write_notebook(path, *sources: str) -> list[str]:
    """A notebook of code cells that opens without a "Select Kernel" dialog; its cell ids."""
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(notebook, path)
    return [cell.id for cell in notebook.cells]


def open_notebook(page, path: str):
    page.evaluate(
        "async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        path,
    )
    return page.locator(".jp-Notebook .jp-Cell")


def run_cell(page, cells, index: int) -> None:
    """Run a cell as a person does, once its kernel is idle: asked before the notebook's
    kernel is there, JupyterLab moves the cursor on and runs nothing (seen in a full run)."""
    idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
    expect(idle).to_have_count(1, timeout=60_000)
    cells.nth(index).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")


def by_prompt(calls: dict[str, ToolCall]):
    """Each prompt's first words name the tool call the agent makes; "Done." after it."""

    def script(request):
        if request.tool_results:
            return Reply("Done.")
        asked = request.prompt.split("]: ", 1)[1]
        return Reply(tool_calls=(calls[asked.split()[0]],))

    return script


def replace_cell(cell_id: str, source: str) -> ToolCall:
    return ToolCall(
        "notebook_replace_cell", {"path": "plan.ipynb", "cell_id": cell_id, "source": source}
    )


def insert_cell(index: int, source: str, path: str = "plan.ipynb") -> ToolCall:
    arguments = {"path": path, "index": index, "cell_type": "code", "source": source}
    return ToolCall("notebook_insert_cell", arguments)


def alice_in(open_lab, path: str, count: int):
    """Alice with the room and `path` open, its `count` cells shown; her page and its cells."""
    alice = show_room(open_lab("alice"))
    cells = open_notebook(alice, path)
    expect(cells).to_have_count(count, timeout=30_000)
    return alice, cells


def approve(page) -> None:
    card = page.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=30_000)
    card.get_by_role("button", name="Approve").click()
    expect(card).to_have_count(0, timeout=30_000)


def changes_out_of_sight(diff) -> list[str]:
    """The diff's added and removed lines that are not in sight (under the card's buttons, or
    scrolled away in its box)."""
    return [
        line.inner_text()
        for line in diff.locator("[data-kind=removed], [data-kind=added]").all()
        if not line.evaluate(
            """line => {
                const box = line.getBoundingClientRect();
                const at = document.elementFromPoint(box.x + 20, box.y + box.height / 2);
                return line.contains(at);
            }"""
        )
    ]


def test_a_notebook_change_reads_as_cells_in_its_card_and_its_checkpoint(
    open_lab, lab, model, screenshot
):
    # Comments above the change, each a few lines high in a 250 px panel.
    notes = "".join(f"# note {n}: {'why the total is what it is, ' * 2}\n" for n in range(4))
    write_notebook(lab.root / "sales.ipynb", "import math", notes + "total = 1\nprint(total)")
    old = json.dumps("total = 1\n")
    assert old in (lab.root / "sales.ipynb").read_text()
    edit = {
        "path": str(lab.root / "sales.ipynb"),
        "old_str": old,
        "new_str": json.dumps("total = 2\n"),
    }
    model.script = by_prompt({"fix": ToolCall("edit", edit)})
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))
    set_sidebar_width(alice, 250)

    send(bob, "fix the total in the notebook")
    card = alice.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=30_000)
    expect(card.locator(".jp-CopilotRoom-cardSummary")).to_have_text("sales.ipynb")
    diff = card.locator(".jp-CopilotRoom-diffView")
    expect(diff).to_be_visible()  # a notebook's cells show without opening "Diff"
    expect(diff.locator("[data-kind=cell]")).to_have_text(["cell 2 (code): changed"])
    expect(diff.locator("[data-kind=removed]")).to_have_text(["-total = 1"])
    expect(diff.locator("[data-kind=added]")).to_have_text(["+total = 2"])
    expect(diff.locator("[data-kind=context]")).to_have_text(
        [re.compile(rf"^ # note {n}: why") for n in (1, 2, 3)] + [" print(total)"]
    )
    assert not JSON_KEYS.search(diff.inner_text())
    # At 250 px the card's short diff box opens at the change, not at the lines above it, and
    # the change is in sight above the card's buttons, after the panel was resized too.
    assert diff.evaluate("box => box.scrollHeight > box.clientHeight + 20")
    assert changes_out_of_sight(diff) == []
    assert fits_at_every_look(alice, screenshot, "notebook-card-", ".jp-CopilotRoom-approval") == []
    set_sidebar_width(alice, 250)
    assert changes_out_of_sight(diff) == []

    approve(bob)
    line = bob.locator(".jp-CopilotRoom-checkpoint")
    expect(line).to_contain_text("Changed 1 file: sales.ipynb", timeout=30_000)
    line.get_by_role("button", name="Diff").click()
    shown = bob.locator(".jp-CopilotRoom-checkpointDiff")
    expect(shown.locator("[data-kind=file]")).to_have_text(["sales.ipynb"])
    expect(shown.locator("[data-kind=cell]")).to_have_text(["cell 2 (code): changed"])
    expect(shown.locator("[data-kind=added]")).to_have_text(["+total = 2"])
    assert not JSON_KEYS.search(shown.inner_text())
    screenshot(bob.locator(".jp-Dialog-content"), "notebook-checkpoint-diff")


def test_an_older_notebook_turn_is_reverted_keeping_a_later_cell_and_a_persons_run(
    open_lab, lab, model, screenshot
):
    first, _ = write_notebook(lab.root / "plan.ipynb", "x = 1", "print('people')")
    model.script = by_prompt(
        {
            "set": replace_cell(first, "x = 2"),
            "add": insert_cell(2, "y = x + 1"),
        }
    )
    alice, cells = alice_in(open_lab, "plan.ipynb", 2)

    send(alice, "set x to 2")
    approve(alice)
    expect(cells.nth(0)).to_contain_text("x = 2", timeout=30_000)
    lines = alice.locator(".jp-CopilotRoom-checkpoint")
    expect(lines).to_have_count(1, timeout=30_000)
    send(alice, "add a cell for y")
    approve(alice)
    expect(cells).to_have_count(3, timeout=30_000)
    expect(lines).to_have_count(2, timeout=30_000)
    run_cell(alice, cells, 1)  # the person's own run, after both turns
    expect(cells.nth(1).locator(".jp-OutputArea-output")).to_have_text("people", timeout=60_000)

    lines.nth(0).get_by_role("button", name="Revert this turn").click()
    alice.locator(".jp-Dialog").get_by_role("button", name="Revert").click()
    expect(lines.nth(0)).to_contain_text("(reverted)", timeout=30_000)
    expect(cells.nth(0)).to_contain_text("x = 1")
    expect(cells.nth(0)).not_to_contain_text("x = 2")
    expect(cells.nth(2)).to_contain_text("y = x + 1")  # the later turn's cell stays
    expect(cells.nth(1).locator(".jp-OutputArea-output")).to_have_text("people")  # and the run
    screenshot(alice, "older-notebook-turn-reverted")
    looks = fits_at_every_look(alice, screenshot, "reverted-", ".jp-CopilotRoom-checkpoint")
    assert looks == []


def test_a_turn_whose_only_edit_was_rejected_offers_no_revert(open_lab, lab, model, screenshot):
    _, second = write_notebook(lab.root / "plan.ipynb", "x = 1", "print('people')")
    model.script = by_prompt(
        {
            "add": insert_cell(2, "y = 3"),
            "set": replace_cell(second, "x"),
        }
    )
    alice, cells = alice_in(open_lab, "plan.ipynb", 2)

    send(alice, "add a cell")
    card = alice.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=30_000)
    run_cell(alice, cells, 1)  # the person's run while the card waits: the file changes
    expect(cells.nth(1).locator(".jp-OutputArea-output")).to_have_text("people", timeout=60_000)
    card.get_by_role("button", name="Reject").click()
    expect(card).to_have_count(0, timeout=30_000)

    # A later turn that does change the notebook: checkpoints are recorded in turn order, so
    # once its line shows, the rejected turn's would have too.
    send(alice, "set the second cell")
    approve(alice)
    lines = alice.locator(".jp-CopilotRoom-checkpoint")
    expect(lines).to_have_count(1, timeout=30_000)
    checkpointed = alice.locator(".jp-CopilotRoom-entry.jp-CopilotRoom-prompt", has=lines)
    expect(checkpointed).to_have_count(1)
    expect(checkpointed).to_contain_text("set the second cell")
    expect(alice.get_by_role("button", name="Revert this turn")).to_have_count(1)
    screenshot(alice, "rejected-turn-no-revert")
    assert fits_at_every_look(alice, screenshot, "no-revert-", "#jp-copilot-room") == []


def apart(a: dict, b: dict, slack: float = 2) -> bool:
    """Whether two bounding boxes overlap by no more than `slack` px (a toolbar's box takes in
    its padding)."""
    return (
        a["x"] + a["width"] - slack <= b["x"]
        or b["x"] + b["width"] - slack <= a["x"]
        or a["y"] + a["height"] - slack <= b["y"]
        or b["y"] + b["height"] - slack <= a["y"]
    )


def test_a_badge_sits_clear_of_the_cell_toolbar_and_stays_after_switching_rooms(
    open_lab, lab, model, screenshot
):
    [first] = write_notebook(lab.root / "pair.ipynb", "values = [1, 2]")
    model.script = by_prompt(
        {
            "add": insert_cell(1, "sum(values)", "pair.ipynb"),
            "run": ToolCall("notebook_run_cells", {"path": "pair.ipynb", "cell_ids": [first]}),
        }
    )
    (lab.root / "other").mkdir()
    assert lab.api("alice", "POST", "rooms", {"name": "other", "repository": "other"})[0] == 201
    alice, cells = alice_in(open_lab, "pair.ipynb", 1)
    send(alice, "add the total")
    approve(alice)
    badge = cells.nth(1).locator(".jp-CopilotRoom-provenance")
    expect(badge).to_have_text("Copilot · Alice", timeout=30_000)
    title = badge.get_attribute("title") or ""
    assert title.startswith("Changed by Copilot for Alice's prompt in the room main (turn 1, ")
    assert "alice" not in title  # named as people know them, not by username

    cells.nth(1).locator(".jp-InputArea-editor").click()  # selected: its toolbar shows
    toolbar = cells.nth(1).locator(".jp-cell-toolbar")
    expect(toolbar).to_be_visible()
    expect(toolbar.get_by_role("button").first).to_be_visible()
    box = badge.bounding_box()
    assert box and apart(box, toolbar.bounding_box() or {})
    assert apart(box, cells.nth(1).locator(".jp-InputArea").bounding_box() or {})
    screenshot(alice, "badge-clear-of-the-toolbar")

    switch_to(alice, "other")
    expect(badge).to_have_text("Copilot · Alice")  # the badge follows the notebook
    badge.click()  # back to the room that made it, at the prompt
    expect(alice.locator(".jp-CopilotRoom-switcherName")).to_have_text("main")
    expect(alice.locator(".jp-CopilotRoom-prompt.jp-mod-flash")).to_contain_text("add the total")

    # A cell the agent ran, not changed, is marked too: that its outputs are the agent's run.
    expect(cells.nth(0).locator(".jp-CopilotRoom-provenance")).to_have_count(0)
    send(alice, "run the first cell")
    approve(alice)
    ran = cells.nth(0).locator(".jp-CopilotRoom-provenance")
    expect(ran).to_have_text("Copilot ran · Alice", timeout=60_000)
    assert (ran.get_attribute("title") or "").startswith(
        "Run by Copilot for Alice's prompt in the room main (turn 2, "
    )
    expect(badge).to_have_text("Copilot · Alice")
    screenshot(alice, "ran-badge")


def test_a_host_reverts_anyway_over_a_cell_someone_edited_since(open_lab, lab, model, screenshot):
    first, _ = write_notebook(lab.root / "plan.ipynb", "x = 1", "print('people')")
    model.script = by_prompt(
        {
            "set": replace_cell(first, "x = 2"),
        }
    )
    alice, cells = alice_in(open_lab, "plan.ipynb", 2)
    send(alice, "set x to 2")
    approve(alice)
    expect(cells.nth(0)).to_contain_text("x = 2", timeout=30_000)
    line = alice.locator(".jp-CopilotRoom-checkpoint")
    expect(line).to_have_count(1, timeout=30_000)
    cells.nth(0).locator(".jp-InputArea-editor").click()
    alice.keyboard.press("End")
    alice.keyboard.type("  # mine")

    line.get_by_role("button", name="Revert this turn").click()
    alice.locator(".jp-Dialog").get_by_role("button", name="Revert").click()
    dialog = alice.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Revert anyway?", timeout=30_000)
    expect(dialog).to_contain_text("someone changed these cells since")
    expect(dialog).to_contain_text("cell 1 (x = 2  # mine)")
    screenshot(alice.locator(".jp-Dialog-content"), "revert-anyway")
    dialog.get_by_role("button", name="Revert anyway").click()
    expect(line).to_contain_text("(reverted)", timeout=30_000)
    expect(cells.nth(0).locator(".jp-InputArea-editor")).to_have_text("x = 1")
    expect(cells.nth(1)).to_contain_text("print('people')")
