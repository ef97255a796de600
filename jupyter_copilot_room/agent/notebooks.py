"""Notebook tools for the agent: it edits notebooks the way a collaborator does.

When a notebook is open in a jupyter-collaboration room, the agent edits that live shared
document (one transaction per edit; a replaced cell keeps its id and gets a character-level diff;
metadata keys are set one by one), so the people typing in it keep every keystroke. Only when no
room has the notebook open does it go through the contents manager, validated with nbformat.
It never writes the `.ipynb` file behind the collaboration layer's back (that makes the server
reload the file and lose people's unsaved edits).

Plain data only: the tool specs and handlers here are wrapped into SDK tools by `copilot.py`.
The runtime does not enforce the JSON-schema bounds below, so every handler validates its
arguments and answers a bad call with a `NotebookToolError` the model can act on.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from inspect import isawaitable
from typing import Any

import nbformat
from pycrdt import Assoc, StickyIndex

CELL_TYPES = ("code", "markdown", "raw")
MAX_SOURCE = 100_000
METADATA_KEY = "copilot_room"


class NotebookToolError(Exception):
    """A tool call that cannot be done; the message goes back to the model."""


@dataclass(frozen=True)
class Provenance:
    """Which prompt, person and tool call a cell's latest agent edit came from."""

    prompt_id: str
    author: str
    turn: int
    tool_call_id: str
    time: float


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict
    edits: bool  # edits go through the room's approval (kind `notebook`); reading does not


_PATH = {"type": "string", "description": "Notebook path relative to the repository root."}
_CELL = {"type": "string", "description": "The cell's id, as notebook_read lists it."}
_SOURCE = {"type": "string", "description": "The cell's full new source."}

TOOLS = (
    ToolSpec(
        "notebook_read",
        "Read a notebook: each cell's id, type, source and a short summary of its outputs. "
        "Use it before editing, and use these tools (not file writes) for .ipynb files: people "
        "may have the notebook open.",
        {"type": "object", "properties": {"path": _PATH}, "required": ["path"]},
        edits=False,
    ),
    ToolSpec(
        "notebook_insert_cell",
        "Insert a new cell at `index` (0 = first; the number of cells = at the end).",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "index": {"type": "integer", "minimum": 0},
                "cell_type": {"type": "string", "enum": list(CELL_TYPES)},
                "source": _SOURCE,
            },
            "required": ["path", "index", "cell_type", "source"],
        },
        edits=True,
    ),
    ToolSpec(
        "notebook_replace_cell",
        "Replace a cell's source (a code cell's outputs are cleared).",
        {
            "type": "object",
            "properties": {"path": _PATH, "cell_id": _CELL, "source": _SOURCE},
            "required": ["path", "cell_id", "source"],
        },
        edits=True,
    ),
    ToolSpec(
        "notebook_delete_cell",
        "Delete a cell.",
        {
            "type": "object",
            "properties": {"path": _PATH, "cell_id": _CELL},
            "required": ["path", "cell_id"],
        },
        edits=True,
    ),
    ToolSpec(
        "notebook_move_cell",
        "Move a cell to `index` (its position after the move).",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "cell_id": _CELL,
                "index": {"type": "integer", "minimum": 0},
            },
            "required": ["path", "cell_id", "index"],
        },
        edits=True,
    ),
)
TOOL_NAMES = frozenset(spec.name for spec in TOOLS)


class NotebookEditor:
    """Carries out the notebook tools against the running server.

    `server_settings` returns the Jupyter server's web-app settings when called: the collaboration
    extension loads after this one (extensions load alphabetically), so it is looked up per call.
    """

    def __init__(self, server_settings: Callable[[], dict]):
        self._settings = server_settings
        # The runtime may run several tool calls at once: edits of one notebook take turns, or
        # two read-modify-save cycles on a closed notebook would lose one of the edits.
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._presence: dict[str, _Presence] = {}  # notebooks the agent is editing this turn

    # -- the tools -------------------------------------------------------------------------------

    async def call(self, tool: str, arguments: Any, provenance: Provenance) -> str:
        args = _validated(tool, arguments)
        match tool:
            case "notebook_read":
                return await self.read(args["path"])
            case "notebook_insert_cell":
                return await self._edit(
                    args["path"],
                    provenance,
                    _Insert(args["index"], args["cell_type"], args["source"]),
                )
            case "notebook_replace_cell":
                return await self._edit(
                    args["path"], provenance, _Replace(args["cell_id"], args["source"])
                )
            case "notebook_delete_cell":
                return await self._edit(args["path"], provenance, _Delete(args["cell_id"]))
            case "notebook_move_cell":
                return await self._edit(
                    args["path"], provenance, _Move(args["cell_id"], args["index"])
                )
        raise NotebookToolError(f"Unknown notebook tool {tool!r}.")

    async def read(self, path: str) -> str:
        cells = (await self._cells(path))[0]
        return json.dumps({"path": path, "cells": [_summary(c) for c in cells]}, indent=1)

    async def describe(self, tool: str, arguments: Any) -> tuple[str, dict]:
        """What an approval card shows for an edit: a one-line summary and a before/after diff."""
        args = _validated(tool, arguments)
        path = args["path"]
        cells, _ = await self._cells(path)
        edit = {
            "notebook_insert_cell": lambda: _Insert(
                args["index"], args["cell_type"], args["source"]
            ),
            "notebook_replace_cell": lambda: _Replace(args["cell_id"], args["source"]),
            "notebook_delete_cell": lambda: _Delete(args["cell_id"]),
            "notebook_move_cell": lambda: _Move(args["cell_id"], args["index"]),
        }[tool]()
        return edit.summary(path, cells), {"path": path, "diff": edit.diff(cells)}

    # -- where notebooks live --------------------------------------------------------------------

    async def _live(self, path: str):
        """The open collaboration room's notebook, or None when nobody has it open."""
        ydocs = self._settings().get("jupyter_server_ydoc")
        if ydocs is None:
            return None
        return await ydocs.get_document(
            path=path, content_type="notebook", file_format="json", copy=False
        )

    async def _cells(self, path: str) -> tuple[list[dict], bool]:
        live = await self._live(path)
        if live is not None:
            return [live.get_cell(i) for i in range(live.cell_number)], True
        return list((await self._load(path)).cells), False

    async def _load(self, path: str):
        contents = self._settings()["contents_manager"]
        try:
            model = contents.get(path, content=True, type="notebook")
            if isawaitable(model):
                model = await model
        except Exception as err:
            raise NotebookToolError(f"Cannot open notebook {path!r}: {_reason(err)}") from None
        return model["content"]

    async def _edit(self, path: str, provenance: Provenance, edit: _Edit) -> str:
        async with self._locks[path]:
            return await self._edit_now(path, provenance, edit)

    async def _edit_now(self, path: str, provenance: Provenance, edit: _Edit) -> str:
        meta = {METADATA_KEY: asdict(provenance)}
        live = await self._live(path)
        if live is not None:
            with live.ydoc.transaction():
                said = edit.on_live(live, meta)
            self._show_presence(path, live, provenance.author, edit.cell_id_after(live))
            return said + " (in the open, shared notebook)"
        notebook = await self._load(path)
        result = edit.on_file(notebook, meta)
        try:
            nbformat.validate(notebook)
        except nbformat.ValidationError as err:
            raise NotebookToolError(
                f"The edit would make an invalid notebook: {err.message}"
            ) from None
        if await self._live(path) is not None:
            # Someone opened it while we were editing the file: edit the live document instead.
            return await self._edit_now(path, provenance, edit)
        contents = self._settings()["contents_manager"]
        saved = contents.save({"type": "notebook", "format": "json", "content": notebook}, path)
        if isawaitable(saved):
            await saved
        return result + " (saved; nobody had the notebook open)"

    # -- presence --------------------------------------------------------------------------------

    def _show_presence(self, path: str, live, author: str, cell_id: str | None) -> None:
        """Appear in the notebook as a collaborator, with a cursor on the cell just touched."""
        presence = self._presence.get(path)
        if presence is None or presence.live is not live:
            presence = self._presence[path] = _Presence(live, author)
        presence.point_at(cell_id)

    def leave(self) -> None:
        """The turn is over: the agent's presence leaves every notebook it was in."""
        for presence in self._presence.values():
            presence.leave()
        self._presence.clear()


AGENT_COLOUR = "#8250df"


class _Presence:
    """The agent's awareness state in one live notebook; re-announced when someone joins, so
    late joiners see it at once. `autosave: False`: a state without it would turn the room's
    autosave back on for everyone (jupyter_server_ydoc saves if any state asks)."""

    def __init__(self, live, author: str):
        self.live = live
        self.state: dict = {
            "user": {
                "username": "copilot",
                "name": f"Copilot for {author}",
                "display_name": f"Copilot for {author}",
                "initials": "CP",
                "color": AGENT_COLOUR,
            },
            "autosave": False,
        }
        self._subscription = live.awareness.observe(self._on_change)

    def point_at(self, cell_id: str | None) -> None:
        self.state["cursors"] = self._cursor(cell_id)
        self.live.awareness.set_local_state(dict(self.state))

    def _cursor(self, cell_id: str | None) -> list:
        cells = [self.live.get_cell(i) for i in range(self.live.cell_number)]
        index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
        if index is None:
            return []
        source = self.live.ycells[index]["source"]
        if not len(source):
            return []  # pycrdt 0.14 panics on a sticky index into an empty text
        # Named by the cell's first character (Assoc.AFTER at 0): JupyterLab resolves that; a
        # position before it is named by the text's own id, which pycrdt 0.14 gets wrong.
        position = source.sticky_index(0, Assoc.AFTER).to_json()
        return [{"anchor": position, "head": position, "primary": True, "empty": True}]

    def _on_change(self, topic: str, changes) -> None:
        added = [c for c in changes[0].get("added", []) if c != self.live.awareness.client_id]
        if topic == "change" and added:
            self.live.awareness.set_local_state(dict(self.state))

    def leave(self) -> None:
        self.live.awareness.unobserve(self._subscription)
        self.live.awareness.set_local_state(None)


# -- the edits, on a live YNotebook or on an nbformat notebook ---------------------------------


class _Edit:
    def on_live(self, live, meta: dict) -> str: ...

    def on_file(self, notebook, meta: dict) -> str: ...

    def summary(self, path: str, cells: list[dict]) -> str: ...

    def diff(self, cells: list[dict]) -> str:
        return ""

    def cell_id_after(self, live) -> str | None:
        """The cell the agent's cursor should rest on after the edit."""
        return getattr(self, "cell_id", None)


@dataclass
class _Insert(_Edit):
    index: int
    cell_type: str
    source: str

    def _cell(self, meta: dict) -> dict:
        cell = (
            nbformat.v4.new_code_cell(self.source)
            if self.cell_type == "code"
            else (
                nbformat.v4.new_markdown_cell(self.source)
                if self.cell_type == "markdown"
                else nbformat.v4.new_raw_cell(self.source)
            )
        )
        cell["metadata"] = dict(meta)
        return cell

    def on_live(self, live, meta: dict) -> str:
        _check_index(self.index, live.cell_number, inserting=True)
        cell = self._cell(meta)
        live.ycells.insert(self.index, live.create_ycell(dict(cell)))
        return f"Inserted {self.cell_type} cell {cell['id']} at index {self.index}"

    def cell_id_after(self, live) -> str | None:
        return live.get_cell(self.index).get("id")

    def on_file(self, notebook, meta: dict) -> str:
        _check_index(self.index, len(notebook.cells), inserting=True)
        cell = self._cell(meta)
        notebook.cells.insert(self.index, cell)
        return f"Inserted {self.cell_type} cell {cell['id']} at index {self.index}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"insert a {self.cell_type} cell at {self.index} in {path}"

    def diff(self, cells: list[dict]) -> str:
        return _diff("", self.source)


@dataclass
class _Replace(_Edit):
    cell_id: str
    source: str

    def on_live(self, live, meta: dict) -> str:
        index = _index_of(self.cell_id, [live.get_cell(i) for i in range(live.cell_number)])
        ycell = live.ycells[index]
        if _someone_is_in(live, ycell["source"]):
            # Never fight a person: same-cell concurrent edits interleave characters.
            beside = _Insert(index + 1, ycell["cell_type"], self.source)
            beside.on_live(live, meta)
            self.rests_on = beside.cell_id_after(live)
            return (
                f"Someone is working in cell {self.cell_id}, so it was left alone; the new "
                f"version was inserted below it as cell {self.rests_on}"
            )
        live.set_cell(index, source=self.source)  # a character-level diff; the id stays
        if ycell["cell_type"] == "code":
            ycell["outputs"].clear()
            ycell["execution_count"] = None
        for key, value in meta.items():  # one key: people's own metadata edits survive
            ycell["metadata"][key] = value
        return f"Replaced the source of cell {self.cell_id}"

    def cell_id_after(self, live) -> str | None:
        return getattr(self, "rests_on", self.cell_id)

    def on_file(self, notebook, meta: dict) -> str:
        cell = notebook.cells[_index_of(self.cell_id, notebook.cells)]
        cell["source"] = self.source
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell["metadata"].update(meta)
        return f"Replaced the source of cell {self.cell_id}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"replace cell {_index_of(self.cell_id, cells)} ({self.cell_id}) in {path}"

    def diff(self, cells: list[dict]) -> str:
        return _diff(_source(cells[_index_of(self.cell_id, cells)]), self.source)


@dataclass
class _Delete(_Edit):
    cell_id: str

    def on_live(self, live, meta: dict) -> str:
        index = _index_of(self.cell_id, [live.get_cell(i) for i in range(live.cell_number)])
        del live.ycells[index]
        return f"Deleted cell {self.cell_id}"

    def on_file(self, notebook, meta: dict) -> str:
        del notebook.cells[_index_of(self.cell_id, notebook.cells)]
        return f"Deleted cell {self.cell_id}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"delete cell {_index_of(self.cell_id, cells)} ({self.cell_id}) in {path}"

    def diff(self, cells: list[dict]) -> str:
        return _diff(_source(cells[_index_of(self.cell_id, cells)]), "")


@dataclass
class _Move(_Edit):
    cell_id: str
    index: int

    def on_live(self, live, meta: dict) -> str:
        index = _index_of(self.cell_id, [live.get_cell(i) for i in range(live.cell_number)])
        _check_index(self.index, live.cell_number, inserting=False)
        # pycrdt 0.14 has no Array.move: the cell is re-created, same id and content, at its new
        # place within the same transaction (a cursor inside it does not follow).
        cell = live.get_cell(index)
        cell["metadata"] = {**cell.get("metadata", {}), **meta}
        del live.ycells[index]
        live.ycells.insert(self.index, live.create_ycell(cell))
        return f"Moved cell {self.cell_id} to index {self.index}"

    def on_file(self, notebook, meta: dict) -> str:
        index = _index_of(self.cell_id, notebook.cells)
        _check_index(self.index, len(notebook.cells), inserting=False)
        cell = notebook.cells.pop(index)
        cell["metadata"].update(meta)
        notebook.cells.insert(self.index, cell)
        return f"Moved cell {self.cell_id} to index {self.index}"

    def summary(self, path: str, cells: list[dict]) -> str:
        return f"move cell {self.cell_id} to {self.index} in {path}"


# -- helpers -------------------------------------------------------------------------------------


def _validated(tool: str, arguments: Any) -> dict:
    spec = next((s for s in TOOLS if s.name == tool), None)
    if spec is None:
        raise NotebookToolError(f"Unknown notebook tool {tool!r}.")
    if not isinstance(arguments, dict):
        raise NotebookToolError("The arguments must be an object.")
    missing = [k for k in spec.parameters["required"] if k not in arguments]
    if missing:
        raise NotebookToolError(f"Missing argument(s): {', '.join(missing)}.")
    path = arguments["path"]
    if not isinstance(path, str) or not path.endswith(".ipynb") or path.startswith("/"):
        raise NotebookToolError("`path` must be a relative path to an .ipynb file.")
    if "index" in arguments and (
        not isinstance(arguments["index"], int)
        or isinstance(arguments["index"], bool)
        or arguments["index"] < 0
    ):
        raise NotebookToolError("`index` must be a whole number, 0 or more.")
    if "cell_type" in arguments and arguments["cell_type"] not in CELL_TYPES:
        raise NotebookToolError(f"`cell_type` must be one of {', '.join(CELL_TYPES)}.")
    for key in ("source", "cell_id"):
        if key in arguments and not isinstance(arguments[key], str):
            raise NotebookToolError(f"`{key}` must be a string.")
    if len(arguments.get("source", "")) > MAX_SOURCE:
        raise NotebookToolError(f"`source` is longer than {MAX_SOURCE} characters.")
    return arguments


def _someone_is_in(live, text) -> bool:
    """Whether another collaborator's cursor (JupyterLab's `cursors` awareness field, Yjs
    relative positions) rests in `text`, a cell's source."""
    positions = [
        position
        for client, state in live.awareness.states.items()
        if client != live.awareness.client_id and state
        for cursor in state.get("cursors") or []
        for position in (cursor.get("anchor"), cursor.get("head"))
        if isinstance(position, dict)
    ]
    if not positions:
        return False
    length = len(text)
    # A position inside a text names the character after it: compare with this text's own.
    chars = {
        (item["client"], item["clock"])
        for item in (text.sticky_index(i, Assoc.AFTER).to_json().get("item") for i in range(length))
        if item
    }
    for position in positions:
        item = position.get("item")
        if item:
            if (item.get("client"), item.get("clock")) in chars:
                return True
        elif position.get("type"):
            # At the end of a text Yjs names the text itself, whose id pycrdt 0.14 does not
            # expose: resolve it and compare the offset with this text's length. A match in
            # another cell of the same length only makes the agent more careful.
            known = {k: v for k, v in position.items() if v is not None}
            with contextlib.suppress(Exception):
                if StickyIndex.from_json(known, text).get_index() == length:
                    return True
    return False


def _check_index(index: int, count: int, *, inserting: bool) -> None:
    top = count if inserting else count - 1
    if index > top:
        raise NotebookToolError(
            f"`index` {index} is out of range: the notebook has {count} cells. Read it again."
        )


def _index_of(cell_id: str, cells) -> int:
    for index, cell in enumerate(cells):
        if cell.get("id") == cell_id:
            return index
    raise NotebookToolError(
        f"There is no cell {cell_id!r} (it may have been deleted); read the notebook again."
    )


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _summary(cell: dict) -> dict:
    summary = {"id": cell.get("id"), "cell_type": cell.get("cell_type"), "source": _source(cell)}
    outputs = cell.get("outputs") or []
    if outputs:
        summary["outputs"] = [_output(o) for o in outputs[:5]]
    return summary


def _output(output: dict) -> str:
    kind = output.get("output_type", "")
    if kind == "stream":
        text = output.get("text", "")
    elif kind == "error":
        text = f"{output.get('ename')}: {output.get('evalue')}"
    else:
        text = (output.get("data") or {}).get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else str(text)
    return f"{kind}: {text[:200]}"


def _diff(before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            "before",
            "after",
            lineterm="\n",
        )
    )[:8000]


def _reason(err: Exception) -> str:
    return getattr(err, "log_message", None) or str(err) or type(err).__name__
