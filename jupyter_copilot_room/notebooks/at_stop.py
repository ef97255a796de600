"""Open notebooks kept whole when the server stops, so a restart loses no edit.

jupyter-collaboration (5.0) saves a shared notebook a second after its last change (a debounce:
while people or the agent keep editing, it never saves), does not save when the server stops,
and writes each change to its update store in a task that the stop cancels: under steady typing
the store falls behind the document. At the next start the store and the file disagree, the
collaboration layer takes the file as the truth and applies it over the stored history, and
every browser that reconnects merges that rewrite with the history it holds: edits vanish or
come back twice, in the browsers and then on disk (measured by `tests/browser/test_soak.py`).

So at stop each open notebook's whole state goes to its update store as one update and, where
the file differs, to its file: the store and the file then agree with the document, the
restarted server resumes the history the browsers hold, and they merge only what is new.

`hold` reads the documents before any extension's stop awaits anything: jupyter_server stops
extensions together, and jupyter_server_ydoc's stop closes the rooms it reads.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from inspect import isawaitable
from pathlib import Path
from typing import Any

from jupyter_ydoc import YNotebook

from .open_notebooks import as_saved, notebook_rooms


@dataclass(frozen=True)
class Held:
    """One open notebook as its shared document held it when the server began to stop."""

    path: str  # its contents path
    content: dict
    state: bytes  # the document's whole history, as one update
    store: Any  # the room's update store (pycrdt BaseYStore), None without one


def hold(settings: dict) -> list[Held]:
    """Every open notebook's content and state. Synchronous on purpose (see the module)."""
    return [
        Held(path, YNotebook(room.ydoc).get(), room.ydoc.get_update(), room.ystore)
        for _, room, path in notebook_rooms(settings)
    ]


async def keep(settings: dict, held: list[Held], log: logging.Logger) -> None:
    """Write each held notebook to its update store, then to its file where the file differs."""
    contents = settings["contents_manager"]
    for notebook in held:
        try:
            if notebook.store is not None:
                await notebook.store.write(notebook.state)
            if as_saved(notebook.content) != _read(Path(contents.root_dir) / notebook.path):
                model = {"type": "notebook", "format": "json", "content": notebook.content}
                saved = contents.save(model, notebook.path)
                if isawaitable(saved):
                    await saved
                log.info("Saved the open notebook %s at stop: it had unsaved edits", notebook.path)
        except Exception as err:  # a full disk, a read-only file: say so, keep the others anyway
            log.warning("Could not keep the open notebook %s at stop: %s", notebook.path, err)


def _read(file: Path) -> bytes:
    try:
        return file.read_bytes()
    except OSError:
        return b""
