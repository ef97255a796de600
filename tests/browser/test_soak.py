"""Collaboration soak: two people type into one shared notebook while the agent inserts, edits and
runs cells; one browser drops off the network for 20 s; the server restarts in the middle.

At the end the file on disk, both browsers' notebooks and the agent's last read hold the same
cells, and every keystroke each person typed and every edit the agent made is in them (checked
against a log of what each did). `benchmarks/soak.py` runs the same test for longer.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import close_connection_lost_dialogs

#: Seconds each phase of typing lasts (two phases around the restart); the benchmark sets more.
PHASE = float(os.environ.get("COPILOT_ROOM_SOAK_PHASE", "12"))
KEPT = 8  # cells of its own the agent keeps, so that its read of the notebook stays whole
OFFLINE = min(20.0, 2 * PHASE)  # seconds one browser is off the network (shorter in a quick soak)
NOTEBOOK = "soak.ipynb"
KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


@dataclass
class AgentLog:
    """What the scripted agent did, from the tool results it got back."""

    sources: dict[str, str] = field(default_factory=dict)  # cell id -> its latest source
    runs: dict[str, str] = field(default_factory=dict)  # cell id -> the source it last ran
    last_read: dict | None = None
    finishing: threading.Event = field(default_factory=threading.Event)
    pending: dict | None = None  # the edit waiting for its result
    edits: int = 0
    deleted: set[str] = field(default_factory=set)

    def script(self, request):
        time.sleep(0.2)  # a model takes a moment to answer
        if request.tool_results:
            self._record(request.tool_results[-1])
        elif "soak" not in request.prompt:
            return Reply("not a soak prompt")
        if self.last_read is not None and self.pending is None:
            return Reply("Soak turn done.")
        if self.finishing.is_set():
            self.pending = {"tool": "read"}
            return Reply(tool_calls=(ToolCall("notebook_read", {"path": NOTEBOOK}),))
        return Reply(tool_calls=(self._next(),))

    def _next(self) -> ToolCall:
        """Insert, replace, run, and (past `KEPT` cells of its own) delete its oldest cell."""
        self.edits += 1
        n = self.edits
        cells = list(self.sources)
        if n % 4 == 0 and len(cells) > KEPT:
            self.pending = {"tool": "delete", "cell": cells[0]}
            return ToolCall("notebook_delete_cell", {"path": NOTEBOOK, "cell_id": cells[0]})
        if n % 4 in (0, 1) or not cells:
            source = f"print('agent {n}')"
            self.pending = {"tool": "insert", "source": source}
            index = 2 + n % (len(cells) + 1)  # below the people's cells, among the agent's
            args = {"path": NOTEBOOK, "index": index, "cell_type": "code", "source": source}
            return ToolCall("notebook_insert_cell", args)
        target = cells[-1]
        if n % 4 == 2:
            source = f"print('agent {n}', {n} * 2)"
            self.pending = {"tool": "replace", "cell": target, "source": source}
            args = {"path": NOTEBOOK, "cell_id": target, "source": source}
            return ToolCall("notebook_replace_cell", args)
        self.pending = {"tool": "run", "cell": target, "source": self.sources[target]}
        return ToolCall("notebook_run_cells", {"path": NOTEBOOK, "cell_ids": [target]})

    def _record(self, result: str) -> None:
        pending, self.pending = self.pending, None
        if pending is None:
            return
        match pending["tool"]:
            case "insert":
                found = re.search(r"Inserted code cell (\S+)", result)
                if found:
                    self.sources[found.group(1)] = pending["source"]
            case "replace" if result.startswith("Replaced"):
                self.sources[pending["cell"]] = pending["source"]
            case "delete" if result.startswith("Deleted"):
                del self.sources[pending["cell"]]
                self.deleted.add(pending["cell"])
            case "run" if "error" not in result.lower()[:40]:
                self.runs[pending["cell"]] = pending["source"]
            case "read":
                self.last_read = json.loads(result)


def printed_by(source: str) -> str:
    """What one of the agent's cells prints (they are `print(...)` of literals)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(source, {})
    return out.getvalue()


def open_notebook(page) -> None:
    page.evaluate(
        "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        NOTEBOOK,
    )
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(2, timeout=30_000)


def browser_cells(page) -> list[dict]:
    """The notebook as this browser holds it: its shared model's cells."""
    return page.evaluate(
        """() => {
          const panel = window.jupyterapp.shell.widgets('main').find(
            w => w.context && w.context.path === 'soak.ipynb');
          return panel.content.model.sharedModel.toJSON().cells.map(
            c => ({id: c.id, source: c.source}));
        }"""
    )


class Typist:
    """One person typing numbered words at the end of their own cell.

    `text` is what their cell holds by their own hand: each word is checked in their own
    browser's document right after it is typed. JupyterLab's "Server Connection Error" dialog
    takes the focus when the server goes away, so a keystroke can land on it instead of the
    cell, and the focus it gives back may put the caret anywhere in the cell: the person closes
    the dialog, takes back what half-arrived (wherever it landed), puts the caret back at the end
    and types the word again, as anyone would. What their cell held before is never taken back:
    losing any of it, or finding in it anything they did not type, is a failure.
    """

    def __init__(self, page, letter: str, cell: int, text: str):
        self.page, self.letter, self.cell, self.text = page, letter, cell, text
        self.words = 0

    def type_word(self) -> None:
        word = f" {self.letter}{self.words:04d}"
        for _ in range(5):
            self._close_dialogs()
            self._caret_to_end()
            self.page.keyboard.type(word, delay=10)
            now = self._source()
            if now == self.text + word:
                self.text, self.words = now, self.words + 1
                return
            strays = stray_keystrokes(self.text, now, word)
            assert strays is not None, f"{self.letter}'s own cell lost text: {now!r}"
            self._close_dialogs()
            self._take_back(strays)
        raise AssertionError(f"{self.letter} could not type {word!r} into their cell")

    def _cell_js(self, body: str, *args):
        """Run `body` with `cell` (this person's shared cell) and `editor` in their browser."""
        return self.page.evaluate(
            "([path, i, args]) => { const panel = window.jupyterapp.shell.widgets('main').find("
            "w => w.context && w.context.path === path);"
            "const cell = panel.content.model.sharedModel.cells[i];"
            f"const editor = panel.content.widgets[i].editor; {body} }}",
            [NOTEBOOK, self.cell, list(args)],
        )

    def _source(self) -> str:
        return self._cell_js("return cell.getSource();")

    def _caret_to_end(self) -> None:
        self._cell_js(
            "editor.setCursorPosition(editor.getPositionAt(cell.getSource().length));"
            "editor.focus();"
        )

    def _take_back(self, strays: list[int]) -> None:
        """Delete the characters at `strays` (offsets of their own half-arrived keystrokes)."""
        self._cell_js(
            "for (const at of [...args[0]].sort((a, b) => b - a)) cell.updateSource(at, at + 1);",
            strays,
        )
        assert self._source() == self.text, f"{self.letter} could not take back {strays}"

    def _close_dialogs(self) -> None:
        dialogs = self.page.locator(".jp-Dialog")
        while dialogs.count():
            self.page.keyboard.press("Escape")


def stray_keystrokes(before: str, now: str, word: str) -> list[int] | None:
    """Where in `now` the characters of `word` landed around an unchanged `before`, or None when
    `now` is not `before` with some of `word`'s characters inserted (something was lost)."""
    strays, kept = [], 0
    for at, char in enumerate(now):
        if kept < len(before) and char == before[kept]:
            kept += 1
        else:
            strays.append(at)
    extra = [now[at] for at in strays]
    typed = list(word)
    for char in extra:
        if char not in typed:
            return None
        typed.remove(char)
    return strays if kept == len(before) else None


def type_for(seconds: float, typists: list[Typist], until=None) -> None:
    """Both people type in turn for `seconds` (or until `until()` holds)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (until and until()):
        for typist in typists:
            typist.type_word()


def wait_until(condition, seconds: float, what: str = "condition") -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.2)


def cells_on_disk(lab) -> list[dict] | None:
    """The notebook's cells in its file, or None while the file is being written."""
    try:
        cells = nbformat.read(lab.root / NOTEBOOK, as_version=4).cells
    except (OSError, nbformat.reader.NotJSONError):
        return None
    return [{"id": c.id, "source": c.source} for c in cells]


def agreed(read: list[dict], lab, *pages) -> list[dict]:
    """Wait until the file and every browser hold the cells of the agent's last `read` (the
    server's notebook once nobody changes it any more: the collaboration layer saves it a second
    after its last change, and sends it to every browser); the file's cells."""
    last: list = []

    def same() -> bool:
        nonlocal last
        last = [cells_on_disk(lab), *(browser_cells(page) for page in pages)]
        return all(cells == read for cells in last)

    try:
        wait_until(same, 30)
    except AssertionError:
        raise AssertionError(
            f"the file and the browsers never agreed with {read}: {last}"
        ) from None
    return last[0]


@pytest.fixture
def lab(tmp_path, model, request):
    """A lab whose notebook edits and runs need no approval, its shared-document stores in the
    test's folder (they survive the restart, as a real server's do)."""
    model.script = no_script
    model.requests.clear()
    stores = {
        "SQLiteYStore": {"db_path": str(tmp_path / "ystore.db")},
        "BaseFileIdManager": {"db_path": str(tmp_path / "file_id.db")},
    }
    room = {
        **config.copilot_agent(model.base_url),
        "approval_policy": {"notebook": "auto", "execute": "auto"},
    }
    server = JupyterServer(tmp_path, app="lab", room=room, extra=(stores,))
    with serving(server, request, server.start):
        yield server


def test_a_shared_notebook_keeps_every_keystroke_and_every_agent_edit(lab, model, open_lab):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = KERNELSPEC
    notebook.cells = [nbformat.v4.new_code_cell("# alice:"), nbformat.v4.new_code_cell("# bob:")]
    nbformat.write(notebook, lab.root / NOTEBOOK)
    agent = AgentLog()
    model.script = agent.script
    alice, bob = open_lab("alice"), open_lab("bob")
    for page in (alice, bob):
        close_connection_lost_dialogs(page)  # one may show again between Escape and a click
        open_notebook(page)
    typists = [Typist(alice, "a", 0, "# alice:"), Typist(bob, "b", 1, "# bob:")]

    def turn(text: str) -> None:
        agent.finishing.clear()
        agent.last_read = None
        assert lab.api("alice", "POST", "prompts", {"text": text})[0] == 202

    def idle() -> bool:
        try:
            code, room = lab.api("alice", "GET", "room")
        except OSError:  # the server is not listening yet
            return False
        return code == 200 and not room["queue"] and room["agent"].get("state") == "idle"

    turn("soak: before the restart")
    type_for(PHASE, typists)
    bob.context.set_offline(True)
    type_for(OFFLINE, typists)
    assert browser_cells(alice)[1]["source"] != typists[1].text, "bob was never cut off"
    bob.context.set_offline(False)
    type_for(PHASE / 2, typists)
    agent.finishing.set()
    type_for(60, typists, until=lambda: agent.last_read is not None and idle())

    lab.process.send_signal(lab.stop_signal)  # the restart: people go on typing meanwhile
    type_for(30, typists, until=lambda: lab.process.poll() is not None)
    lab.stop()
    lab.launch()
    type_for(90, typists, until=idle)
    turn("soak: after the restart")
    type_for(PHASE, typists)
    # People stop; the agent's last read comes after their last keystrokes reached the server:
    # each is in the other's browser, which has it from the server.
    wait_until(
        lambda: (
            [browser_cells(bob)[0]["source"], browser_cells(alice)[1]["source"]]
            == [typist.text for typist in typists]
        ),
        30,
        "the last keystrokes in the other browser",
    )
    agent.finishing.set()
    wait_until(lambda: agent.last_read is not None and idle(), 60)
    read = [{"id": c["id"], "source": c["source"]} for c in agent.last_read["cells"]]
    on_disk = agreed(read, lab, alice, bob)
    assert browser_cells(alice) == on_disk
    assert browser_cells(bob) == on_disk
    assert read == on_disk
    sources = {cell["id"]: cell["source"] for cell in on_disk}
    assert [cell["source"] for cell in on_disk[:2]] == [typist.text for typist in typists]
    assert agent.sources and all(sources.get(i) == s for i, s in agent.sources.items())
    assert agent.deleted and not agent.deleted & set(sources), "a deleted cell came back"
    assert agent.runs, "the agent ran no cell"
    cells = {c.id: c for c in nbformat.read(lab.root / NOTEBOOK, 4).cells}
    still = [i for i, ran in agent.runs.items() if i in cells and cells[i].source == ran]
    assert still, "no cell the agent ran is left as it ran it"
    for cell_id in still:
        printed = "".join(o.get("text", "") for o in cells[cell_id].outputs)
        assert printed == printed_by(agent.runs[cell_id]), f"{cell_id}'s output is not its run's"
    words = ", ".join(f"{t.letter} typed {t.words} words" for t in typists)
    did = f"{agent.edits} edits ({len(agent.deleted)} deletions), ran {len(agent.runs)} cells"
    print(f"\nsoak: {words}; the agent made {did}")
