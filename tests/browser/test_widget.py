"""`RoomWidget`: the live room in a notebook output, in a real `jupyter lab` (and Notebook 7).

One lab for the whole story (CI time): the host runs the cell; a viewer, a member and someone at
the door open the same notebook and each see the room with their own role; a member's prompt
from the widget queues behind the host's from the panel; an approval card in the widget works; the
kernel's widget model drives the view's options; a reload, and a reopen after the kernel is gone,
still show the room live; the .ipynb holds only the view options; Notebook 7 shows it too.

With `UPDATE_DOCS_SCREENSHOT=1` the light-theme picture is copied to `docs/images/widget.png`
(README's "From a notebook").
"""

import json
import os
import shutil
import time

from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness import people
from ..harness.pages import DARK, LIGHT, new_page, set_theme, wait_for_lab
from ..harness.server import REPO
from ..harness.server import request as http
from .panel import layout_problems

DOCS_PICTURE = REPO / "docs" / "images" / "widget.png"
NOTEBOOK = "room.ipynb"
WIDGET = ".jp-OutputArea-output .jp-CopilotRoom-widget"
PANEL = "#jp-copilot-room"
WIDGET_PROMPT = f'{WIDGET} textarea[aria-label="Prompt for the agent"]'
SAVED_HEIGHT, LIVE_HEIGHT = 300, 420


def code_cell(source: str) -> dict:
    return {
        "cell_type": "code",
        "metadata": {},
        "source": source,
        "outputs": [],
        "execution_count": None,
    }


def write_notebook(path) -> None:
    cells = [
        code_cell(
            "from jupyter_copilot_room import RoomWidget\n\n"
            f'room = RoomWidget(parts=("transcript", "cards", "prompt"), height={SAVED_HEIGHT})\n'
            "room"
        ),
        code_cell(f"room.height = {LIVE_HEIGHT}  # the widget model syncs its view options"),
    ]
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))


def open_notebook(page):
    page.evaluate(
        "async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        NOTEBOOK,
    )
    expect(page.locator(".jp-Notebook .jp-Cell").nth(1)).to_be_visible(timeout=30_000)
    return page


def expect_height(page, height: int) -> None:
    """The widget is `height` px tall (its options reached the view)."""
    page.wait_for_function(
        """([selector, height]) => {
            const box = document.querySelector(selector);
            return box && Math.abs(box.getBoundingClientRect().height - height) < 2;
        }""",
        arg=[WIDGET, height],
        timeout=15_000,
    )


def send(page, box: str, text: str) -> None:
    """Send `text` from the prompt box `box` (the panel's or the widget's)."""
    prompt = page.locator(f'{box} textarea[aria-label="Prompt for the agent"]')
    expect(prompt).to_be_enabled(timeout=30_000)
    prompt.fill(text)
    prompt.press("Enter")
    expect(prompt).to_have_value("", timeout=15_000)


def script(request):
    """The host's prompt asks to run a command (a card waits); any other prompt is echoed."""
    if request.tool_results:
        return Reply("Done: " + request.tool_results[-1])
    if "write the file" in request.prompt:
        command = "echo from-the-widget > widget.txt"
        return Reply(
            "I need to run a command.",
            tool_calls=(ToolCall("bash", {"command": command, "description": "w"}),),
        )
    return Reply(f"echo: {request.prompt.rsplit(': ', 1)[-1].strip()}")  # after "[bob]: "


def test_the_room_lives_in_a_notebook_output(lab, model, open_lab, browser, screenshot):
    model.script = script
    write_notebook(lab.root / NOTEBOOK)
    alice = open_notebook(open_lab("alice"))
    expect(alice.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=60_000
    )
    # The collaborative document settles after the kernel starts: a cell run sooner may not show.
    alice.wait_for_timeout(2000)
    alice.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
    alice.keyboard.press("Shift+Enter")  # both cells, as a person would
    alice.keyboard.press("Shift+Enter")
    widget = alice.locator(WIDGET)
    expect(widget).to_be_visible(timeout=30_000)
    expect(alice.locator(WIDGET_PROMPT)).to_be_enabled()
    # The kernel's `room.height = ...` reached the view: a real widget model, synced.
    expect_height(alice, LIVE_HEIGHT)
    assert "Error displaying widget" not in alice.locator(".jp-Notebook").inner_text()

    # The host asks from the panel; a card waits. The card shows in the widget too.
    alice.evaluate("() => window.jupyterapp.commands.execute('copilot-room:open')")
    send(alice, PANEL, "please write the file")
    card = alice.locator(f"{WIDGET} .jp-CopilotRoom-approval")
    expect(card).to_contain_text("echo from-the-widget", timeout=30_000)

    # A member prompts from the widget: queued behind the host's running prompt.
    bob = open_notebook(open_lab("bob"))
    expect(bob.locator(WIDGET)).to_be_visible(timeout=30_000)
    send(bob, WIDGET, "then bob")
    expect(bob.locator(f"{WIDGET} .jp-CopilotRoom-notice")).to_contain_text(
        "Your prompt is queued: 1 ahead of it."
    )
    queue = alice.locator(f"{PANEL} .jp-CopilotRoom-queueItem")
    expect(queue).to_have_count(2)
    expect(queue.nth(1)).to_contain_text("Bob")

    # A viewer sees the same live room, with no prompt box; someone at the door sees the door.
    carol = open_notebook(open_lab("carol"))
    expect(carol.locator(f"{WIDGET} .jp-CopilotRoom-approval")).to_contain_text(
        "echo from-the-widget"
    )
    expect(carol.locator(f"{WIDGET} textarea")).to_have_count(0)
    expect(carol.locator(WIDGET)).to_contain_text("Viewers watch the room")
    dave = open_notebook(open_lab("dave"))
    expect(dave.locator(f"{WIDGET} .jp-CopilotRoom-door")).to_contain_text(
        "Waiting to join the room", timeout=30_000
    )

    for theme, name in ((LIGHT, "light"), (DARK, "dark")):
        set_theme(alice, theme)
        alice.mouse.move(0, 0)
        screenshot(alice.locator(".jp-NotebookPanel"), f"cards-{name}")
        assert layout_problems(alice, WIDGET) == [], name
    set_theme(alice, LIGHT)

    # The host approves in the widget; the turn ends, then Bob's prompt runs.
    card.get_by_role("button", name="Approve").click()
    for page in (alice, bob, carol):
        transcript = page.locator(f"{WIDGET} .jp-CopilotRoom-transcript")
        expect(transcript).to_contain_text("Done: ", timeout=30_000)
        expect(transcript).to_contain_text("echo: then bob", timeout=30_000)
    assert (lab.root / "widget.txt").read_text() == "from-the-widget\n"
    for theme, name in ((DARK, "dark"), (LIGHT, "light")):
        set_theme(alice, theme)
        alice.mouse.move(0, 0)
        picture = screenshot(alice.locator(".jp-NotebookPanel"), f"conversation-{name}")
        assert layout_problems(alice, WIDGET) == [], name
    if os.environ.get("UPDATE_DOCS_SCREENSHOT"):
        shutil.copy(picture, DOCS_PICTURE)  # light: README's "From a notebook"
    expect(alice.locator(f"{PANEL} .jp-CopilotRoom-approval")).to_have_count(0)

    # A reload, the kernel still running: live, with the kernel's options.
    carol.reload()
    wait_for_lab(carol)
    open_notebook(carol)
    expect(carol.locator(WIDGET)).to_contain_text("echo: then bob", timeout=30_000)
    expect_height(carol, LIVE_HEIGHT)

    # The kernel is gone (a reopened notebook, nothing run): still live, with the saved options,
    # never ipywidgets' "model not found".
    signed_in = people.authorization("alice")
    for kernel in http(f"{lab.url}/api/kernels", "GET", None, signed_in)[1]:
        http(f"{lab.url}/api/kernels/{kernel['id']}", "DELETE", None, signed_in)
    carol.reload()
    wait_for_lab(carol)
    open_notebook(carol)
    expect(carol.locator(WIDGET)).to_contain_text("echo: then bob", timeout=30_000)
    expect_height(carol, SAVED_HEIGHT)
    send(alice, PANEL, "after the reopen")
    expect(carol.locator(WIDGET)).to_contain_text("echo: after the reopen", timeout=30_000)
    assert "Error displaying widget" not in carol.locator(".jp-Notebook").inner_text()

    # Notebook 7 shows it as well.
    erin = new_page(browser, "bob")
    try:
        erin.goto(f"{lab.url}/notebooks/{NOTEBOOK}?token={people.token('bob')}")
        expect(erin.locator(WIDGET)).to_contain_text("echo: after the reopen", timeout=60_000)
        expect(erin.locator(WIDGET_PROMPT)).to_be_enabled()
        screenshot(erin, "notebook7")
    finally:
        erin.context.close()

    # The .ipynb holds the view options and a text fallback, never the room's state.
    saved = saved_notebook(lab.root / NOTEBOOK)
    output = json.loads(saved)["cells"][0]["outputs"][0]["data"]
    assert output["application/vnd.copilot-room.room+json"] == {
        "parts": ["transcript", "cards", "prompt"],
        "height": SAVED_HEIGHT,
    }
    assert "".join(output["text/plain"]).startswith("Copilot room")
    for room_text in ("then bob", "write the file", "from-the-widget", "Done:"):
        assert room_text not in saved, room_text


def saved_notebook(path, timeout=10.0) -> str:
    """The notebook's text as saved; jupyter-collaboration may be writing it this very moment
    (a full run once read it empty)."""
    deadline = time.monotonic() + timeout
    while True:
        text = path.read_text()
        try:
            json.loads(text)
            return text
        except ValueError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
