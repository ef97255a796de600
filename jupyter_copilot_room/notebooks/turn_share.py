"""What of a notebook's change during a turn was the agent's, for the turn's checkpoint.

A checkpoint compares the worktree before and after a turn, so it also catches what people did
meanwhile: they run cells (outputs, and the kernel's `language_info` in the notebook's
metadata), the `%%copilot` cell that sent the prompt fills with the turn as it streams, and
Shift+Enter on the last cell adds an empty one. None of that is the turn's to show or to revert
(a turn whose only edit was rejected showed "Changed 1 file" and offered to revert it). The
agent's notebook tools mark each cell they insert, edit or run with the turn's prompt id
(`metadata.copilot_room`) and note each cell they delete (`deletions.py`), so in the checkpoint
a cell the turn did not mark is as it was when the turn started, a cell the turn did not add is
not there, a cell gone that the agent did not delete is back at its place, a marked cell the
agent did not run keeps its starting outputs and execution count, and the kernel's description
is as it was.
A notebook the agent wrote itself (an approved write request) is the agent's change whole.
"""

from __future__ import annotations

import nbformat

from .open_notebooks import as_saved
from .tools import METADATA_KEY

#: Notebook metadata a kernel writes when someone starts or changes it.
KERNELS_OWN = ("kernelspec", "language_info")


def agents_share(
    before: bytes, after: bytes, prompt_id: str, deleted: frozenset[str] = frozenset()
) -> bytes:
    """`after` with only the turn's own cell changes (see above; the agent deleted the cells in
    `deleted`); `after` unchanged when either is not a notebook as Jupyter writes it: the change
    is then shown whole."""
    try:
        old = nbformat.reads(before.decode(), as_version=nbformat.NO_CONVERT)
        new = nbformat.reads(after.decode(), as_version=nbformat.NO_CONVERT)
    except Exception:  # not a notebook, not UTF-8: whatever it is, it is shown as it is
        return after
    if as_saved(new) != after:
        return after  # written by another tool: rewriting it would change every line
    was = {cell.get("id"): cell for cell in old.cells if cell.get("id")}
    cells = []
    for cell in new.cells:
        start = was.get(cell.get("id")) if cell.get("id") else None
        if not _marked_in(cell, prompt_id):
            if start is not None:
                cells.append(start)  # a person's cell: as it was
            elif not cell.get("id"):
                cells.append(cell)  # no id to know it by: shown as it is
            continue  # a cell a person added
        if start is not None and cell.cell_type == "code" and not _ran_in(cell, prompt_id):
            cell.outputs, cell.execution_count = start.outputs, start.execution_count
        cells.append(cell)
    new.cells = _put_back(cells, old.cells, deleted)
    for key in KERNELS_OWN:
        if key in old.metadata:
            new.metadata[key] = old.metadata[key]
        else:
            new.metadata.pop(key, None)
    share = as_saved(new)
    return after if share == after else share


def _put_back(cells: list, old: list, deleted: frozenset[str]) -> list:
    """`cells` with each of the `old` cells gone from them that the agent did not delete put
    back after the old cell it followed (first if none of those is left)."""
    kept = {cell.get("id") for cell in cells}
    for n, cell in enumerate(old):
        cell_id = cell.get("id")
        if not cell_id or cell_id in kept or cell_id in deleted:
            continue
        before = next((c.get("id") for c in reversed(old[:n]) if c.get("id") in kept), None)
        at = next((i + 1 for i, c in enumerate(cells) if c.get("id") == before), 0)
        cells.insert(at, cell)
        kept.add(cell_id)
    return cells


def _marked_in(cell, prompt_id: str) -> bool:
    mark = cell.metadata.get(METADATA_KEY)
    return isinstance(mark, dict) and (
        mark.get("prompt_id") == prompt_id or _ran_in(cell, prompt_id)
    )


def _ran_in(cell, prompt_id: str) -> bool:
    mark = cell.metadata.get(METADATA_KEY)
    ran = mark.get("ran") if isinstance(mark, dict) else None
    return isinstance(ran, dict) and ran.get("prompt_id") == prompt_id
