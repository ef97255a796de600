"""Which record kinds each reader of the transcript handles and which it ignores, declared by
every reader beside its code: a kind added to `RECORD_PAYLOADS` stops every reader that has not
said what it does with it from importing, so none forgets one silently.

The document's handlers (`room/live/document_handlers/`) keep their own registry, one handler a
kind; the readers here switch on a few kinds and let the rest pass.
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

    def mismatch(self, kinds: Collection[str]) -> str | None:
        """What the declaration misses of `kinds`, in words; None if nothing."""
        said = self.handles | self.ignores
        problems = []
        if missing := sorted(set(kinds) - said):
            problems.append(f"says nothing of {', '.join(missing)}")
        if unknown := sorted(said - set(kinds)):
            problems.append(f"names undeclared kinds {', '.join(unknown)}")
        if both := sorted(self.handles & self.ignores):
            problems.append(f"both handles and ignores {', '.join(both)}")
        return "; ".join(problems) or None


#: Every reader declared so far (those whose modules are imported), by name.
READERS: dict[str, RecordReader] = {}


def reads(
    name: str, *, handles: Iterable[RecordKind], ignores: Iterable[RecordKind]
) -> RecordReader:
    """Declare what the reader `name` does with each record kind; refuses (at import) a
    declaration that leaves a kind out."""
    reader = RecordReader(name, frozenset(handles), frozenset(ignores))
    if (problem := reader.mismatch(RECORD_PAYLOADS)) is not None:
        raise RuntimeError(f"The transcript reader {name!r} {problem}.")
    READERS[name] = reader
    return reader
