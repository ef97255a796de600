"""Context chips in a real `jupyter lab`: Bob attaches the selected cells of the notebook he has
open ("Attach…"), Alice sees the chips on his prompt, and the model's request holds the cells;
then "Send to the Copilot Room" on a plot output attaches the image, which reaches the model as an
image; in a text file, the selected line is attached (a chip taken off again is not sent). One lab
for the whole story (CI time); screenshots at 250 and 500 px, light and dark."""

import base64
import struct
import zlib

import nbformat
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply

from .panel import (
    PROMPT,
    attach,
    axe_violations,
    fits_at_every_look,
    layout_problems,
    problems_at_every_look,
    prompt_box_problems,
    send,
    show_room,
)

NOTEBOOK = "plot.ipynb"
TRAY = '[aria-label="Context attached to your next prompt"]'


def tiny_png() -> str:
    """A 16x16 blue PNG, base64, built without any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x20\x40\xc0" * 16 for _ in range(16))
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def write_notebook(path, png: str) -> list[str]:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    plot = nbformat.v4.new_code_cell("show_plot()")
    plot.outputs = [
        nbformat.v4.new_output(
            "display_data", data={"image/png": png, "text/plain": "<Figure 16x16>"}
        )
    ]
    notebook.cells = [
        nbformat.v4.new_code_cell("values = [3, 1, 2]"),
        nbformat.v4.new_code_cell("ranked = sorted(values)"),
        plot,
    ]
    nbformat.write(notebook, path)
    return [cell.id for cell in notebook.cells]


def open_notebook(page):
    page.evaluate(
        "async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        NOTEBOOK,
    )
    expect(page.locator(".jp-Notebook .jp-Cell").nth(2)).to_be_visible(timeout=30_000)


def test_attached_cells_and_a_sent_plot_reach_the_model_and_everyone_sees_the_chips(
    lab, model, open_lab, screenshot
):
    png = tiny_png()
    ids = write_notebook(lab.root / NOTEBOOK, png)
    model.script = lambda request: Reply("Seen.")
    bob = open_lab("bob")
    open_notebook(bob)
    show_room(bob)
    alice = show_room(open_lab("alice"))

    # Bob selects the first two cells, then attaches them from the prompt box.
    bob.evaluate(
        """() => {
            const notebook = window.jupyterapp.shell.currentWidget.content;
            notebook.activeCellIndex = 0;
            notebook.extendContiguousSelectionTo(1);
        }"""
    )
    menu = attach(bob)
    expect(menu.get_by_role("menuitem")).to_have_text(
        [
            "The 2 selected cells of plot.ipynb",
            "The notebook plot.ipynb",
            "Image…",
            "Repository file…",
        ]
    )
    button = bob.get_by_role("button", name="Attach…").bounding_box()
    shown = menu.bounding_box()
    assert button and shown and shown["y"] + shown["height"] <= button["y"] + 0.5, (
        "the menu opens above the button, not over it"
    )
    screenshot(bob, "attach-menu")
    problems = axe_violations(bob)
    bob.get_by_role("menuitem", name="The 2 selected cells of plot.ipynb").click()
    expect(bob.locator(TRAY)).to_contain_text("2 cells of plot.ipynb")
    bob.locator(PROMPT).fill("Why is the list sorted in the second cell?")
    problems += problems_at_every_look(
        bob, screenshot, "tray-", lambda p: prompt_box_problems(p) + layout_problems(p, TRAY)
    )
    send(bob, "Why is the list sorted in the second cell?")
    expect(bob.locator(TRAY)).to_have_count(0)  # sent: the tray empties

    chips = alice.locator(".jp-CopilotRoom-prompt .jp-CopilotRoom-chip")
    expect(chips.first).to_have_text("2 cells of plot.ipynb", timeout=30_000)
    assert ids[0] in (chips.first.get_attribute("title") or "")
    expect(alice.locator(".jp-CopilotRoom-reply").first).to_contain_text("Seen.", timeout=30_000)
    sent = str(model.requests[-1].messages)
    assert "values = [3, 1, 2]" in sent and "ranked = sorted(values)" in sent
    assert "show_plot()" not in sent, "only the attached cells"

    # "Send to the Copilot Room" on the plot: the image is attached to Bob's next prompt.
    bob.locator(".jp-Cell").nth(2).locator(".jp-OutputArea-output").click(button="right")
    bob.locator(".lm-Menu-item", has_text="Send to the Copilot Room").click()
    expect(bob.locator(TRAY)).to_contain_text("Output (image) of plot.ipynb")
    problems += fits_at_every_look(bob, screenshot, "output-", TRAY, widths=(250,))
    problems += axe_violations(bob)
    problems += fits_at_every_look(alice, screenshot, "transcript-", ".jp-CopilotRoom-chips")
    send(bob, "What does this plot show?")
    expect(alice.locator(".jp-CopilotRoom-prompt .jp-CopilotRoom-chip").nth(1)).to_have_text(
        "Output (image) of plot.ipynb", timeout=30_000
    )
    expect(alice.locator(".jp-CopilotRoom-reply").nth(1)).to_contain_text("Seen.", timeout=30_000)
    assert f"data:image/png;base64,{png}" in str(model.requests[-1].messages)

    # In a text file, the selected lines; a chip can be taken off again.
    (lab.root / "notes.txt").write_text("first line\nsecond line\nthird line\n")
    bob.evaluate(
        "async () => { await window.jupyterapp.commands.execute('docmanager:open', "
        "{path: 'notes.txt'}); }"
    )
    expect(bob.locator(".jp-FileEditor")).to_contain_text("third line", timeout=30_000)
    bob.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.editor.setSelection(
            {start: {line: 1, column: 0}, end: {line: 1, column: 6}})"""
    )
    attach(bob, "The file notes.txt")
    # From the keyboard: Enter opens the menu on its first item (the selection), Enter takes it.
    bob.get_by_role("button", name="Attach…").press("Enter")
    expect(menu.get_by_role("menuitem").first).to_have_text("Line 2 of notes.txt")
    bob.keyboard.press("Enter")
    bob.get_by_role("button", name="Remove File notes.txt").click()
    expect(bob.locator(f"{TRAY} .jp-CopilotRoom-chipLabel")).to_have_text(["Line 2 of notes.txt"])
    send(bob, "What does this line say?")
    expect(alice.locator(".jp-CopilotRoom-reply").nth(2)).to_contain_text("Seen.", timeout=30_000)
    sent = str(model.requests[-1].messages)
    assert "second line" in sent and "third line" not in sent
    assert not problems, problems
