"""The one way the room states a fact: write it to the transcript, then show it in the document.

The order is the room's durability promise: the document (what people see) never runs ahead of
`transcript.jsonl` (what survives a restart). Listeners hear every committed record, after the
document shows it; the room uses that to keep `meta.state` current, and its metrics and Jupyter
Events. A record the full disk refused (`InsufficientStorage`) is reported to the storage watch,
which notices when space returns; so does a record written, once everyone has it, since what the
room then records (a turn's end it held back) comes after it. No record holds one of the
server's secrets: each is redacted first (`redaction.py`), so nothing derived from it does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from ...errors import InsufficientStorage
from ...events import Record, Strict
from ..live.document import RoomDocument
from .redaction import Redactor
from .storage import StorageWatch
from .transcript_file import Transcript

#: Who acts through the in-process API in this task, and from where (`api/`): each record
#: committed with that actor carries the source. A context variable, so a source never reaches
#: another request's records (each request is a task of its own).
_ACTING: ContextVar[tuple[str, str] | None] = ContextVar("copilot_room_acting", default=None)


@contextlib.contextmanager
def acting_from(username: str, source: str | None) -> Iterator[None]:
    """Records committed for `username` inside the block say they came from `source`."""
    token = _ACTING.set((username, source) if source else None)
    try:
        yield
    finally:
        _ACTING.reset(token)


def source_of(actor: str | None) -> str | None:
    """The front `actor` acts from in this task (`acting_from`), if any."""
    acting = _ACTING.get()
    return acting[1] if acting is not None and actor is not None and acting[0] == actor else None


class Recorder:
    def __init__(
        self,
        transcript: Transcript,
        document: RoomDocument,
        clock: Callable[[], float],
        storage: StorageWatch,
        redactor: Redactor | None = None,
    ):
        self.transcript = transcript
        self.document = document
        self.clock = clock
        self.storage = storage
        self.redactor = redactor or Redactor()
        self._listeners: list[Callable[[Record], None]] = []

    def listen(self, listener: Callable[[Record], None]) -> None:
        self._listeners.append(listener)

    def unlisten(self, listener: Callable[[Record], None]) -> None:
        self._listeners.remove(listener)

    def commit(self, kind: str, actor: str | None, payload: Strict) -> Record:
        payload = self.redactor.payload(payload)
        try:
            record = self.transcript.append(
                kind, actor, payload, self.clock(), source=source_of(actor)
            )
        except InsufficientStorage:
            self.storage.ran_out()
            raise
        self.document.apply(record, payload)
        for listener in self._listeners:
            listener(record)
        # Last: what the room records once it learns space returned follows this record.
        self.storage.wrote()
        return record
