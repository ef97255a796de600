"""A read or write request as people read it before they answer: its path relative to the room's
repository (the runtime's absolute path wraps at 250 px and tells nobody anything more), and a
write's diff with each notebook cell by cell (`notebooks/notebook_diff.py`), never its JSON lines.
"""

from __future__ import annotations

import difflib
from dataclasses import replace
from pathlib import Path

from ...agent.seam import PermissionAsk
from ...notebooks.notebook_diff import file_header, notebook_diff


def as_people_read(ask: PermissionAsk, repository: Path) -> PermissionAsk:
    if ask.kind not in ("read", "write"):
        return ask
    details = ask.details
    if ask.kind == "write":
        details = {**details, "diff": _write_diff(ask, repository)}
    return replace(ask, summary=relative(ask.summary, repository), details=details)


def relative(path: str, repository: Path) -> str:
    """An absolute `path` relative to the repository when it lies inside it; any other text
    (a path elsewhere, a command) as it is."""
    if not Path(path).is_absolute():
        return path
    try:
        return Path(path).resolve().relative_to(repository.resolve()).as_posix() or "."
    except (ValueError, OSError):
        return path


def file_diff(path: str, before: str | None, after: str | None) -> str:
    """One file's change: a notebook cell by cell, any other text as a unified diff."""
    header = file_header(path, before, after)
    if path.endswith(".ipynb") and (cells := notebook_diff(before, after)) is not None:
        return header + cells
    lines = difflib.unified_diff(
        (before or "").splitlines(), (after or "").splitlines(), lineterm=""
    )
    hunks = [line for k, line in enumerate(lines) if k > 1]  # past difflib's own ---/+++ lines
    return header + "".join(line + "\n" for line in hunks)


def _write_diff(ask: PermissionAsk, repository: Path) -> str:
    if not ask.changes:  # a runtime that did not say the files whole: its diff, paths shortened
        prefix = repository.resolve().as_posix()
        return ask.details.get("diff", "").replace(f"a{prefix}/", "a/").replace(f"b{prefix}/", "b/")
    return "".join(
        file_diff(relative(change.path, repository), change.before, change.after)
        for change in ask.changes
    )
