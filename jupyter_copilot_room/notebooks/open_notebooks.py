"""Open notebooks as jupyter-collaboration holds them, for checkpoints.

A notebook open in JupyterLab lives in a shared document the server saves now and then (or never,
with autosave off): its file on disk can be behind what people see. A checkpoint reads such a
notebook from the live document, as Jupyter would save it; a revert writes it back through the
live document, in one transaction, so everyone in it sees the change at once and the
collaboration layer saves it as it saves any edit. Writing the file instead would race the
collaboration layer's file watcher and overwrite people's unsaved edits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from jupyter_ydoc import YNotebook


def as_saved(content: dict) -> bytes:
    """A notebook's bytes as the contents manager writes them (`nbformat.write`, NO_CONVERT)."""
    text = nbformat.writes(nbformat.from_dict(content), version=nbformat.NO_CONVERT)
    return (text if text.endswith("\n") else text + "\n").encode()


def same_notebook(data: bytes, saved: bytes) -> bool:
    """Whether a file's bytes, loaded as the collaboration layer loads them, are saved as
    `saved`: a file not written by Jupyter (e.g. without the kernelspec a live document adds)
    can hold what a live document holds. Its own document: safe in a worker thread."""
    try:
        notebook = nbformat.reads(data.decode(), as_version=4)
    except Exception:
        return False
    doc = YNotebook()
    doc.set(notebook)
    return as_saved(doc.get()) == saved


@dataclass
class LiveNotebook:
    """One open notebook: `file` its absolute path, `doc` the collaboration layer's document."""

    file: Path
    doc: Any  # jupyter_ydoc.YNotebook

    def saved(self) -> bytes:
        return as_saved(self.doc.get())

    def apply(self, data: bytes) -> bool:
        """Make the live document hold the notebook in `data`, in one transaction: a cell kept
        (same id) gets a character-level diff of its source and keeps its trust; the rest as
        jupyter_ydoc sets a notebook (changed keys only). False if `data` is not a notebook."""
        try:
            target = nbformat.reads(data.decode(), as_version=4)
        except Exception:
            return False
        doc = self.doc
        with doc.ydoc.transaction():
            ids = [doc.get_cell(i).get("id") for i in range(doc.cell_number)]
            current = {cell_id: i for i, cell_id in enumerate(ids) if cell_id}
            for cell in target.cells:
                index = current.get(cell.get("id") or "")
                if index is None:
                    continue  # a new cell, or a notebook without cell ids (nbformat < 4.5)
                now = doc.get_cell(index)
                if "trusted" in now.get("metadata", {}):
                    cell.metadata.setdefault("trusted", now["metadata"]["trusted"])
                if now.get("source") != cell.source:
                    doc.set_cell(index, source=cell.source)
            doc.set(target)
        return True


class LiveNotebooks:
    """The notebooks open in the server's collaboration rooms (none without jupyter_server_ydoc).

    `server_settings` returns the web app's settings when called: the collaboration extension
    loads after this one, so it is looked up each time.
    """

    def __init__(self, server_settings: Callable[[], dict]):
        self._settings = server_settings

    async def open(self) -> list[LiveNotebook]:
        settings = self._settings()
        found = []
        for room_id, _, path in notebook_rooms(settings):
            doc = await settings["jupyter_server_ydoc"].get_document(room_id=room_id, copy=False)
            if doc is not None:
                found.append(LiveNotebook(Path(settings["contents_manager"].root_dir) / path, doc))
        return found


def notebook_rooms(settings: dict) -> list[tuple[str, Any, str]]:
    """`(room id, room, contents path)` of every loaded notebook room of the collaboration layer
    (none without jupyter_server_ydoc). Synchronous: `at_stop.py` reads them while stopping."""
    ydocs, ids = settings.get("jupyter_server_ydoc"), settings.get("file_id_manager")
    if ydocs is None or ids is None:
        return []
    found = []
    for room_id, room in list(ydocs.ywebsocket_server.rooms.items()):
        _, kind, file_id = [*room_id.split(":", 2), "", ""][:3]
        if kind != "notebook" or not getattr(room, "ready", False):
            continue  # a room still loading holds no notebook yet
        path = ids.get_path(file_id)
        if path is not None:
            found.append((room_id, room, path))
    return found
