"""What of a notebook's change during a turn was the agent's, for the turn's checkpoint.

A checkpoint compares the worktree before and after a turn, so it also catches what people did
meanwhile. In a notebook the commonest such change is outputs: a person runs a cell, or the
`%%copilot` cell that sent the prompt fills with the turn as it streams. Those outputs are not
the turn's to show or to revert (a turn whose only edit was rejected showed "Changed 1 file" and
offered to revert the prompt cell's own output). So, in the checkpoint, a cell the turn's agent
did not run keeps the outputs and execution count it had when the turn started.
"""

from __future__ import annotations

import nbformat

from .open_notebooks import as_saved
from .tools import METADATA_KEY


def agents_share(before: bytes, after: bytes, prompt_id: str) -> bytes:
    """`after`, where each code cell that `before` holds (same id) and that the agent did not
    run in turn `prompt_id` has its `before` outputs and execution count. `after` unchanged
    when either is not a notebook as Jupyter writes it: the change is then shown whole."""
    try:
        old = nbformat.reads(before.decode(), as_version=nbformat.NO_CONVERT)
        new = nbformat.reads(after.decode(), as_version=nbformat.NO_CONVERT)
    except Exception:  # not a notebook, not UTF-8: whatever it is, it is shown as it is
        return after
    if as_saved(new) != after:
        return after  # written by another tool: rewriting it would change every line
    was = {cell.get("id"): cell for cell in old.cells if cell.cell_type == "code"}
    changed = False
    for cell in new.cells:
        start = was.get(cell.get("id")) if cell.get("id") else None
        if start is None or cell.cell_type != "code" or _ran_in(cell, prompt_id):
            continue
        if (cell.outputs, cell.execution_count) != (start.outputs, start.execution_count):
            cell.outputs, cell.execution_count = start.outputs, start.execution_count
            changed = True
    return as_saved(new) if changed else after


def _ran_in(cell, prompt_id: str) -> bool:
    mark = cell.metadata.get(METADATA_KEY)
    ran = mark.get("ran") if isinstance(mark, dict) else None
    return isinstance(ran, dict) and ran.get("prompt_id") == prompt_id
