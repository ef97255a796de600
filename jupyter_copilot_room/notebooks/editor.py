"""Notebook tools for the agent: it edits notebooks the way a collaborator does.

When a notebook is open in a jupyter-collaboration room, the agent edits that live shared
document (one transaction per edit; a replaced cell keeps its id and gets a character-level diff;
metadata keys are set one by one), so the people typing in it keep every keystroke. Only when no
room has the notebook open does it go through the contents manager, validated with nbformat.
It never writes the `.ipynb` file behind the collaboration layer's back (that makes the server
reload the file and lose people's unsaved edits).

The agent adapter wraps these handlers into SDK tools (`tools.py` declares them); this module
imports no SDK.
"""

from __future__ import annotations

import asyncio
import json
import posixpath
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict
from inspect import isawaitable
from pathlib import Path
from typing import Any

import nbformat

from .cell_sink import CellSink
from .deletions import AgentDeletions
from .edits import Delete, Edit, Insert, Move, Replace, source_of
from .execution import Executions, Ran, card_code
from .file_runs import FileRuns
from .open_notebooks import LiveNotebooks
from .presence import Presence
from .tools import METADATA_KEY, NotebookToolError, Provenance, validated

#: What a card in a busy kernel says: the agent's run or inspection waits, never interleaves.
WAITING = "Someone's code is running in this kernel now: the agent waits for it to finish."


class NotebookEditor:
    """Carries out the notebook tools against the running server.

    `server_settings` returns the Jupyter server's web-app settings when called: the collaboration
    extension loads after this one (extensions load alphabetically), so it is looked up per call.
    """

    def __init__(
        self,
        server_settings: Callable[[], dict],
        repository: Path | None = None,
        execution_timeout: Callable[[], float] = lambda: 300.0,
    ):
        self._settings = server_settings
        self._repository = repository  # None: the server's root is the repository
        self.executions = Executions(server_settings, execution_timeout)
        # The runtime may run several tool calls at once: edits of one notebook take turns, or
        # two read-modify-save cycles on a closed notebook would lose one of the edits.
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._presence: dict[str, Presence] = {}  # notebooks the agent is editing this turn
        self.live = LiveNotebooks(server_settings)  # the open notebooks, for checkpoints
        self.deletions = AgentDeletions()  # which deleted cells were the agent's, for checkpoints
        self.file_runs = FileRuns()  # runs into closed notebooks: each saves its file

    # -- the tools -------------------------------------------------------------------------------

    async def call(self, tool: str, arguments: Any, provenance: Provenance) -> str:
        args = validated(tool, arguments)
        if tool == "notebook_run_cells":
            return (await self.run_cells(arguments, provenance)).text
        path = self.contents_path(args["path"])
        match tool:
            case "notebook_read":
                return await self.read(path, shown=args["path"])
            case "notebook_insert_cell":
                return await self._edit(
                    path, provenance, Insert(args["index"], args["cell_type"], args["source"])
                )
            case "notebook_replace_cell":
                return await self._edit(path, provenance, Replace(args["cell_id"], args["source"]))
            case "notebook_delete_cell":
                said = await self._edit(path, provenance, Delete(args["cell_id"]))
                self.deletions.add(provenance.prompt_id, args["cell_id"])
                return said
            case "notebook_move_cell":
                return await self._edit(path, provenance, Move(args["cell_id"], args["index"]))
            case "notebook_inspect":
                return await self.inspect(path, args["names"])
        raise NotebookToolError(f"Unknown notebook tool {tool!r}.")

    async def read(self, path: str, shown: str | None = None) -> str:
        """The notebook at `path` (the server's contents path), named `shown` (as the agent
        named it) in what the agent reads."""
        cells = (await self._cells(path))[0]
        return json.dumps({"path": shown or path, "cells": [_summary(c) for c in cells]}, indent=1)

    async def describe(self, tool: str, arguments: Any) -> tuple[str, dict]:
        """What an approval card shows for an edit: a one-line summary and a before/after diff."""
        args = validated(tool, arguments)
        path = self.contents_path(args["path"])
        real = self.resolve(path)
        if tool == "notebook_run_cells":
            return await self._describe_run(path, args["cell_ids"])
        if tool == "notebook_inspect":
            return await self._describe_inspect(path, args["names"])
        cells, _ = await self._cells(path)
        edit = {
            "notebook_insert_cell": lambda: Insert(
                args["index"], args["cell_type"], args["source"]
            ),
            "notebook_replace_cell": lambda: Replace(args["cell_id"], args["source"]),
            "notebook_delete_cell": lambda: Delete(args["cell_id"]),
            "notebook_move_cell": lambda: Move(args["cell_id"], args["index"]),
        }[tool]()
        summary, details = edit.summary(path, cells), {"path": path, "diff": edit.diff(cells)}
        if real != path:
            summary += f" (a link: the file changed is {real})"
            details["resolved_path"] = real
        return summary, details

    # -- running cells ---------------------------------------------------------------------------

    async def run_cells(self, arguments: Any, provenance: Provenance) -> Ran:
        """Run the cells in the notebook's kernel (after the room approved it), outputs into the
        live notebook as they arrive, or into the file when nobody has it open."""
        args = validated("notebook_run_cells", arguments)
        path, ids = self.contents_path(args["path"]), args["cell_ids"]
        ran = asdict(provenance)  # `copilot_room.ran`: the agent's latest run of the cell
        live = await self._live(path)
        if live is not None:
            cells = [live.get_cell(i) for i in range(live.cell_number)]
            chosen = _code_cells(cells, ids)
            choice = await self.executions.choose(path, _kernelspec(live.get()["metadata"]))
            name = provenance.author_name or provenance.author
            self._show_presence(path, live, name, ids[0])
            return await self.executions.run(
                path,
                choice,
                [(c["id"], source_of(c), CellSink(live, None, c["id"], ran)) for c in chosen],
            )
        async with self._locks[path]:  # the file is written at the end: edits wait for it
            notebook = await self._load(path)
            chosen = _code_cells(notebook.cells, ids)
            choice = await self.executions.choose(path, _kernelspec(notebook.metadata))
            return await self.file_runs.run(
                self.executions.run(
                    path,
                    choice,
                    [(c["id"], source_of(c), CellSink(None, c, c["id"], ran)) for c in chosen],
                ),
                lambda: self._save(path, notebook),
            )

    async def _save(self, path: str, notebook) -> None:
        contents = self._settings()["contents_manager"]
        saved = contents.save({"type": "notebook", "format": "json", "content": notebook}, path)
        if isawaitable(saved):
            await saved

    async def _describe_run(self, path: str, ids: list[str]) -> tuple[str, dict]:
        """A run's card: the code of each cell, which kernel, and whether it will wait."""
        live = await self._live(path)
        if live is not None:
            cells = [live.get_cell(i) for i in range(live.cell_number)]
            spec = _kernelspec(live.get()["metadata"])
        else:
            notebook = await self._load(path)
            cells, spec = list(notebook.cells), _kernelspec(notebook.metadata)
        chosen = _code_cells(cells, ids)
        choice = await self.executions.choose(path, spec)
        plural = "s" if len(chosen) > 1 else ""
        summary = f"run {len(chosen)} cell{plural} of {path}"
        if choice.kernel_id is None:
            summary += f" (a new {choice.kernel_name} kernel will be started)"
        details = {
            "path": path,
            "kernel": choice.words(path),
            "code": card_code([(c["id"], source_of(c)) for c in chosen]),
        }
        if self.executions.busy(choice):
            details["waiting"] = WAITING
        return summary, details

    async def inspect(self, path: str, names: list[str]) -> str:
        """Summaries of the named variables in the notebook's kernel (after approval)."""
        choice = await self.executions.choose(path, None)
        return await self.executions.inspect(path, choice, names)

    async def _describe_inspect(self, path: str, names: list[str]) -> tuple[str, dict]:
        choice = await self.executions.choose(path, None)
        summary = f"inspect {', '.join(names)} in the kernel of {path}"
        if choice.kernel_id is None:
            return summary + " (no kernel is running: it will fail)", {"path": path}
        details = {
            "path": path,
            "kernel": choice.words(path),
            "code": "# reads only: a short description of each variable\n"
            + "\n".join(f"describe({name})" for name in names),
        }
        if self.executions.busy(choice):
            details["waiting"] = WAITING
        return summary, details

    def interrupt(self) -> None:
        """The turn is being stopped: runs in progress interrupt their kernels."""
        self.executions.interrupt()

    async def stop(self) -> None:
        """The room stops: no more following kernels, and the runs into closed notebooks end
        with their files written (none is left to save after the loop ends)."""
        await self.executions.stop()
        await self.file_runs.stop()

    def contents_path(self, path: str) -> str:
        """A tool's path (relative to the room's repository, as the agent, working there, names
        it) as the server's contents path (relative to the server's root), checked to lie
        inside the repository: a room in `sub/` addresses `sub/x.ipynb` for `x.ipynb`, and
        never a notebook outside its folder."""
        root = self.root()
        repository = (self._repository or root).resolve()
        base = repository.relative_to(root) if repository.is_relative_to(root) else Path()
        joined = posixpath.normpath((base / path).as_posix())
        if joined == ".." or joined.startswith("../") or posixpath.isabs(joined):
            joined = path  # refused by `resolve` below, in its words
        self.resolve(joined)
        return joined

    def resolve(self, path: str) -> str:
        """The notebook's real path relative to the server's root, links followed; it must lie
        inside both the room's repository and the server's root, for reading as for writing."""
        root = Path(self._settings()["contents_manager"].root_dir).resolve()
        repository = (self._repository or root).resolve()
        real = (root / path).resolve()
        if not (real.is_relative_to(root) and real.is_relative_to(repository)):
            raise NotebookToolError(
                f"Cannot open notebook {path!r}: it leads outside the repository (a link or "
                "'..'); the notebook tools work only on notebooks inside it."
            )
        return real.relative_to(root).as_posix()

    # -- where notebooks live --------------------------------------------------------------------

    async def cells(self, path: str) -> tuple[list[dict], bool]:
        """The notebook's cells as people see them now (the live document when it is open, else
        the file) and whether they are live: what a prompt's context chips are read from."""
        return await self._cells(path)

    async def text(self, path: str) -> tuple[str, bool]:
        """A text file as people see it now: its open shared document, else the file."""
        ydocs = self._settings().get("jupyter_server_ydoc")
        if ydocs is not None:
            live = await ydocs.get_document(
                path=path, content_type="file", file_format="text", copy=False
            )
            if live is not None:
                return str(live.source), True
        contents = self._settings()["contents_manager"]
        try:
            model = contents.get(path, content=True, type="file", format="text")
            if isawaitable(model):
                model = await model
        except Exception as err:
            raise NotebookToolError(f"Cannot read {path!r}: {_reason(err)}.") from None
        return str(model["content"]), False

    def root(self) -> Path:
        return Path(self._settings()["contents_manager"].root_dir).resolve()

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
            raise NotebookToolError(f"Cannot open notebook {path!r}: {_reason(err)}.") from None
        return model["content"]

    async def _edit(self, path: str, provenance: Provenance, edit: Edit) -> str:
        async with self._locks[path]:
            return await self._edit_now(path, provenance, edit)

    async def _edit_now(self, path: str, provenance: Provenance, edit: Edit) -> str:
        meta = {METADATA_KEY: asdict(provenance)}
        live = await self._live(path)
        if live is not None:
            with live.ydoc.transaction():
                said = edit.on_live(live, meta)
            name = provenance.author_name or provenance.author
            self._show_presence(path, live, name, edit.cell_id_after(live))
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
            presence = self._presence[path] = Presence(live, author)
        presence.point_at(cell_id)

    def leave(self) -> None:
        """The turn is over: the agent's presence leaves every notebook it was in."""
        for presence in self._presence.values():
            presence.leave()
        self._presence.clear()


def _code_cells(cells, ids: list[str]) -> list:
    by_id = {c.get("id"): c for c in cells}
    chosen = []
    for cell_id in ids:
        cell = by_id.get(cell_id)
        if cell is None:
            raise NotebookToolError(
                f"There is no cell {cell_id!r} (it may have been deleted); read the notebook again."
            )
        if cell.get("cell_type") != "code":
            raise NotebookToolError(
                f"Cell {cell_id!r} is a {cell.get('cell_type')} cell: only code cells run."
            )
        chosen.append(cell)
    return chosen


def _kernelspec(metadata) -> str | None:
    """The kernelspec name a notebook's metadata names, if any."""
    if metadata is None:
        return None
    if hasattr(metadata, "to_py"):
        metadata = metadata.to_py()
    spec = (metadata or {}).get("kernelspec") or {}
    return spec.get("name") if isinstance(spec, dict) else None


def _summary(cell: dict) -> dict:
    summary = {"id": cell.get("id"), "cell_type": cell.get("cell_type"), "source": source_of(cell)}
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


def _reason(err: Exception) -> str:
    """Why a notebook could not be opened, in words that never echo its content or a server path
    (the contents manager's own messages can hold both)."""
    match getattr(err, "status_code", None):
        case 404:
            return "there is no such notebook"
        case 400:
            return "it is not a readable notebook"
        case 403:
            return "the server does not allow reading it"
    return "the server could not read it"
