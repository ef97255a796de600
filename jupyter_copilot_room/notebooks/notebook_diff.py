"""A notebook change as people read it: cell by cell, never the `.ipynb` file's JSON lines.

nbdime (the Jupyter ecosystem's notebook diff library) pairs the cells of the two versions, so a
cell that moved or changed stays one cell. The result is text in the unified diff's grammar, so a
card can cut it like any text and the panel colours it like any diff (`labextension/src/diff.ts`):
a `@@ cell 3 (code): changed @@` line opens each cell, then its source lines marked `+`, `-` or
` `, then `\\ ` lines summing up what is not source (outputs, metadata). The room's own marks on a
cell (`metadata.copilot_room`) are the room's bookkeeping, not the change.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import nbdime

#: The cell metadata key holding the room's own marks (who edited or ran a cell, in which turn).
ROOMS_MARKS = "copilot_room"


def notebook_diff(before: str | None, after: str | None) -> str | None:
    """`before` and `after` (a notebook's JSON text; None for a notebook that does not exist) as
    cell-by-cell diff text; None when either is not a notebook, for a plain text diff instead."""
    try:
        base, remote = _cells_of(before), _cells_of(after)
    except ValueError:
        return None
    lines: list[str] = []
    for number, old, new in _paired(base["cells"], remote["cells"]):
        lines += _cell_lines(number, old, new)
    if changed := _changed_keys(base["metadata"], remote["metadata"]):
        lines.append(f"\\ notebook metadata changed: {', '.join(changed)}")
    if not lines:
        lines.append("\\ no cell changed")
    return "".join(line + "\n" for line in lines)


def file_header(path: str, before: str | None, after: str | None) -> str:
    """The lines that name the file a diff is about, as git writes them."""
    old = f"a/{path}" if before is not None else "/dev/null"
    new = f"b/{path}" if after is not None else "/dev/null"
    return f"diff --git a/{path} b/{path}\n--- {old}\n+++ {new}\n"


def cell_hunk(number: int, cell_type: str, state: str, before: str, after: str) -> str:
    """One cell's source change, for an edit the room makes itself (`notebooks/edits.py`)."""
    head = f"@@ cell {number} ({cell_type}): {state} @@"
    return "".join(line + "\n" for line in [head, *_source_lines(before, after)])


def _cells_of(text: str | None) -> dict[str, Any]:
    if text is None:
        return {"cells": [], "metadata": {}}
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError("not JSON") from err
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError("not a notebook")
    cells = [cell for cell in notebook["cells"] if isinstance(cell, dict)]
    return {"cells": cells, "metadata": notebook.get("metadata") or {}}


def _paired(base: list[dict], remote: list[dict]) -> Iterator[tuple[int, dict | None, dict | None]]:
    """(position, cell before, cell after) for every cell, in the new notebook's order; a
    removed cell comes where it was, with the position it had."""
    index = position = 0  # in the old notebook, in the new one
    for op, start, end, cells in _cell_ops(base, remote):
        while index < start:
            position += 1
            yield position, base[index], base[index]
            index += 1
        if op == "add":
            for cell in cells:
                position += 1
                yield position, None, cell
        elif op == "remove":
            for index in range(start, end):
                yield index + 1, base[index], None
            index = end
        else:
            position += 1
            yield position, base[index], cells[0]
            index += 1
    while index < len(base):
        position += 1
        yield position, base[index], base[index]
        index += 1


def _cell_ops(base: list[dict], remote: list[dict]) -> Iterator[tuple[str, int, int, list]]:
    """The cells added, removed and changed, at their old positions. Cells that carry ids (nbformat
    4.5) are the same cell exactly when their ids are: the agent and the room's revert work by id.
    Older notebooks have none, and nbdime pairs their cells by content."""
    ids = [[cell.get("id") for cell in cells] for cells in (base, remote)]
    if all(None not in found and len(set(found)) == len(found) for found in ids):
        same = difflib.SequenceMatcher(None, ids[0], ids[1], autojunk=False)
        for tag, i1, i2, j1, j2 in same.get_opcodes():
            if tag == "equal":
                for k in range(i2 - i1):
                    if base[i1 + k] != remote[j1 + k]:
                        yield "patch", i1 + k, i1 + k + 1, [remote[j1 + k]]
                continue
            if i2 > i1:
                yield "remove", i1, i2, []
            if j2 > j1:
                yield "add", i2, i2, remote[j1:j2]
        return
    notebooks = (
        {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
        for cells in (base, remote)
    )
    entries = nbdime.diff_notebooks(*notebooks)
    for op in next((entry["diff"] for entry in entries if entry["key"] == "cells"), []):
        key = op["key"]
        if op["op"] == "addrange":
            yield "add", key, key, list(op["valuelist"])
        elif op["op"] == "removerange":
            yield "remove", key, key + op["length"], []
        else:
            yield "patch", key, key + 1, [nbdime.patch(base[key], op["diff"])]


def _cell_lines(number: int, old: dict | None, new: dict | None) -> list[str]:
    cell = new if new is not None else old
    assert cell is not None
    cell_type = cell.get("cell_type", "code")
    before, after = _source(old), _source(new)
    notes = _notes(old, new)
    if old is None:
        state = "added"
    elif new is None:
        state = "removed"
    elif before != after or notes:
        state = "changed"
    else:
        return []
    head = f"@@ cell {number} ({cell_type}): {state} @@"
    return [head, *_source_lines(before, after), *(f"\\ {note}" for note in notes)]


def _source_lines(before: str, after: str) -> list[str]:
    """The source's lines marked as a unified diff marks them, three lines of context around
    each change and `\\ ...` where unchanged lines are left out."""
    old, new = before.splitlines(), after.splitlines()
    if before == after:
        return [f" {line}" for line in old]
    lines: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(3):
        if group[0][1] > 0:
            lines.append("\\ ...")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [f" {line}" for line in old[i1:i2]]
                continue
            lines += [f"-{line}" for line in old[i1:i2]]
            lines += [f"+{line}" for line in new[j1:j2]]
        last = group[-1][2]
    if lines and last < len(old):
        lines.append("\\ ...")
    return lines


def _source(cell: dict | None) -> str:
    if cell is None:
        return ""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _notes(old: dict | None, new: dict | None) -> list[str]:
    """What changed besides the source: the outputs summed up by type, the metadata by key."""
    notes = []
    was, now = _outputs(old), _outputs(new)
    if (old or {}).get("outputs") != (new or {}).get("outputs") and (was or now):
        notes.append(
            f"outputs: {was or 'none'} -> {now or 'none'}"
            if old and new
            else f"outputs: {was or now}"
        )
    if old is not None and new is not None:
        was_marked, now_marked = old.get("metadata") or {}, new.get("metadata") or {}
        if keys := _changed_keys(was_marked, now_marked, skip=ROOMS_MARKS):
            notes.append(f"metadata changed: {', '.join(keys)}")
    return notes


def _changed_keys(old: dict, new: dict, skip: str = "") -> list[str]:
    """The keys whose values differ between two metadata mappings, `skip` aside, sorted."""
    return sorted(k for k in set(old) | set(new) if k != skip and old.get(k) != new.get(k))


def _outputs(cell: dict | None) -> str:
    """ "1 stream, 2 display_data" for a cell's outputs ('' for none)."""
    kinds = Counter(
        output.get("output_type", "output")
        for output in (cell or {}).get("outputs") or []
        if isinstance(output, dict)
    )
    return ", ".join(f"{n} {kind}" for kind, n in kinds.items())
