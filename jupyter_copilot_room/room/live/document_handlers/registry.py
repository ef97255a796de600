"""The registry of the document's record handlers: one per record kind, checked complete.

Each kind of `events.RECORD_PAYLOADS` has exactly one function that shows its records in the
room's document (`@handles(kind)`); `document_handlers/__init__.py` refuses to import while a
kind has none or a handler names a kind that does not exist, so a new record kind cannot reach a
running room (which would record it, then fail to show it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ....events import Record
    from ..document import RoomDocument

Handler = Callable[["RoomDocument", "Record", Any], None]

HANDLERS: dict[str, Handler] = {}


def handles(kind: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the document's handler of `kind`'s records."""

    def register(handler: Handler) -> Handler:
        if kind in HANDLERS:
            raise RuntimeError(f"two document handlers for the record kind {kind!r}")
        HANDLERS[kind] = handler
        return handler

    return register


def mismatch(handlers: Collection[str], kinds: Collection[str]) -> str | None:
    """What is wrong between the handled and the declared kinds, in words; None if nothing."""
    missing = sorted(set(kinds) - set(handlers))
    unknown = sorted(set(handlers) - set(kinds))
    problems = []
    if missing:
        problems.append(f"record kinds without a document handler: {', '.join(missing)}")
    if unknown:
        problems.append(f"document handlers of undeclared kinds: {', '.join(unknown)}")
    return "; ".join(problems) or None
