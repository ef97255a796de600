"""Which record kinds each reader of the transcript handles, declared by every reader beside its
code, in one of two ways.

A reader that rebuilds what the transcript holds (the replay, a snapshot, an export, the event
log) calls `rebuilds`: it names every kind, handled or ignored, so a kind added to
`RECORD_PAYLOADS` stops it from importing until someone decides what it does with that kind.
Every other reader (a front's mirror, the metrics, the seat quota, ...) calls `reads` with only
the kinds it handles: a new internal record does not touch it, and a kind it names that no longer
exists still stops its import.

The document's handlers (`room/live/document_handlers/`) keep their own registry, one handler a
kind.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from .records import RECORD_PAYLOADS, RecordKind


@dataclass(frozen=True)
class RecordReader:
    name: str
    handles: frozenset[str]
    ignores: frozenset[str]
    #: Whether it names every kind (`rebuilds`), or only the kinds it handles (`reads`).
    every_kind: bool

    def mismatch(self, kinds: Collection[str]) -> str | None:
        """What the declaration misses of `kinds`, in words; None if nothing."""
        said = self.handles | self.ignores
        problems = []
        if self.every_kind and (missing := sorted(set(kinds) - said)):
            problems.append(f"says nothing of {', '.join(missing)}")
        if unknown := sorted(said - set(kinds)):
            problems.append(f"names undeclared kinds {', '.join(unknown)}")
        if both := sorted(self.handles & self.ignores):
            problems.append(f"both handles and ignores {', '.join(both)}")
        return "; ".join(problems) or None


#: Every reader declared so far (those whose modules are imported), by name.
READERS: dict[str, RecordReader] = {}


def _declare(reader: RecordReader) -> RecordReader:
    if (problem := reader.mismatch(RECORD_PAYLOADS)) is not None:
        raise RuntimeError(f"The transcript reader {reader.name!r} {problem}.")
    READERS[reader.name] = reader
    return reader


def reads(name: str, *, handles: Iterable[RecordKind]) -> RecordReader:
    """Declare the kinds the reader `name` handles; it passes over every other kind, those added
    later included. Refuses (at import) a kind that does not exist."""
    return _declare(RecordReader(name, frozenset(handles), frozenset(), every_kind=False))


def rebuilds(
    name: str, *, handles: Iterable[RecordKind], ignores: Iterable[RecordKind]
) -> RecordReader:
    """Declare what the reader `name`, which rebuilds state from the transcript, does with each
    record kind; refuses (at import) a declaration that leaves a kind out, so a new kind is a
    decision there."""
    return _declare(RecordReader(name, frozenset(handles), frozenset(ignores), every_kind=True))
