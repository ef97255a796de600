"""A turn's notebook change undone cell by cell, so that what happened since survives.

A revert of a plain file applies the turn's diff in reverse, three-way, to the file as it is now.
On a notebook's JSON that fails as soon as anything near the turn's lines changed since: a later
turn's cell inserted next to them, a person's run filling an output. Undone by cell id instead:
the turn's inserted cells go, its edited cells get their sources (and outputs) back, its deleted
cells return after the cell that preceded them, and every other cell stays as it is now. A cell
a person has edited since (its source is no longer the turn's) is a true conflict: nothing is
changed and the conflict names the cells.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import nbformat

from ..notebooks.open_notebooks import as_saved


@dataclass(frozen=True)
class EditedSince(Exception):
    """Cells of the turn that someone changed since: their ids and first lines."""

    cells: tuple[str, ...]


def revert_cells(before: bytes, after: bytes, now: bytes, force: bool = False) -> bytes | None:
    """`now` with the change from `before` to `after` undone cell by cell, as Jupyter writes
    it; None when a cell-level revert cannot be read off them (not notebooks, cells without
    ids, not as Jupyter writes them): the caller then reverts the file's lines. Raises
    `EditedSince` for cells changed since the turn, unless `force` (a host's "revert anyway":
    those cells are put back as they were before the turn, what was typed in them since goes)."""
    try:
        start, end, current = (
            nbformat.reads(data.decode(), as_version=nbformat.NO_CONVERT)
            for data in (before, after, now)
        )
    except Exception:  # not notebooks: the line-based revert says what it can
        return None
    if any(not cell.get("id") for nb in (start, end, current) for cell in nb.cells):
        return None  # before nbformat 4.5 cells have no ids to follow
    if as_saved(current) != now:
        return None  # written by another tool: rewriting it would change every line
    was = {cell.id: cell for cell in start.cells}
    made = {cell.id: cell for cell in end.cells}
    edited_since = [  # a cell of the turn (changed or inserted) whose source is not the turn's
        cell
        for cell in current.cells
        if cell.id in made
        and was.get(cell.id) != made[cell.id]
        and cell.source != made[cell.id].source
    ]
    if edited_since and not force:
        raise EditedSince(tuple(_named(cell, current.cells) for cell in edited_since))

    cells = []
    for cell in current.cells:
        if cell.id in made and cell.id not in was:
            continue  # the turn inserted it
        if cell.id in made and was[cell.id] != made[cell.id]:
            cell = copy.deepcopy(was[cell.id])  # the turn changed it: as it was
        cells.append(cell)
    present = {cell.id for cell in cells}
    for index, cell in enumerate(start.cells):
        if cell.id in made or cell.id in present:
            continue  # still there, or removed since by someone else
        cells.insert(_place(start.cells[:index], cells), copy.deepcopy(cell))
        present.add(cell.id)
    current.cells = cells
    if current.metadata == end.metadata:
        current.metadata = start.metadata
    return as_saved(current)


def _place(preceding: list, cells: list) -> int:
    """Where a deleted cell goes back: after the nearest cell that preceded it and is still
    there, else first."""
    ids = [cell.id for cell in cells]
    for cell in reversed(preceding):
        if cell.id in ids:
            return ids.index(cell.id) + 1
    return 0


def _named(cell, cells: list) -> str:
    """As people find it, by its place and its first line: `cell 3 (total = 0)`."""
    first = cell.source.splitlines()[0][:40] if cell.source else "(empty)"
    return f"cell {cells.index(cell) + 1} ({first})"
