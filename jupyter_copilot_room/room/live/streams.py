"""Replies and reasoning that are still streaming.

Deltas go to the live document only (an append to the entry's body, never a rewrite); one
`assistant.started` record fixes where the entry stands in the transcript, and the complete
`assistant.message` record closes it. A turn that ends early keeps what streamed, marked partial,
because deltas are never on disk. A model call that fails mid-reply and is made again (the
runtime retries it) leaves an abandoned attempt: recorded as such (`retried`), so the transcript
keeps every attempt while people see one reply, the next attempt's. Deltas are redacted before
the document shows them (`redaction.py`): the few characters that could begin a secret wait for
the next delta, or for the reply's end.
"""

from __future__ import annotations

from collections.abc import Callable

from ...events import AssistantMessage, AssistantStarted, MessageDelta
from ..persistence.recorder import Recorder
from .document import RoomDocument


class Streams:
    def __init__(
        self,
        recorder: Recorder,
        document: RoomDocument,
        speaker: Callable[[], str | None] = lambda: None,
    ):
        """`speaker()`: the title of the agent that speaks now, if not the room's own."""
        self.recorder = recorder
        self.document = document
        self.speaker = speaker
        self._open: dict[str, AssistantStarted] = {}
        self._held: dict[str, str] = {}  # entry id -> its stream's end, not shown yet

    @property
    def streaming(self) -> bool:
        """Whether a reply is streaming (its deltas are in the document only)."""
        return bool(self._open)

    def replayed(self, started: AssistantStarted | None, closed: str | None = None) -> None:
        """A replayed record opened (`started`) or closed (`closed`, an entry id) a stream."""
        if started is not None:
            self._open[started.entry_id] = started
        if closed is not None:
            self._open.pop(closed, None)

    def delta(self, prompt_id: str, event: MessageDelta) -> None:
        if event.entry_id not in self._open:
            started = AssistantStarted(
                entry_id=event.entry_id, prompt_id=prompt_id, kind=event.kind, agent=self.speaker()
            )
            self.recorder.commit("assistant.started", None, started)
            self._open[event.entry_id] = started
        held = self._held.get(event.entry_id, "")
        shown, self._held[event.entry_id] = self.recorder.redactor.streamed(held, event.text)
        if shown:
            self.document.stream(event.entry_id, shown)

    def finish(self, prompt_id: str, message: AssistantMessage) -> None:
        stamped = message.model_copy(update={"prompt_id": prompt_id})
        self.recorder.commit("assistant.message", None, stamped)  # its whole text, redacted
        self._open.pop(message.entry_id, None)
        self._held.pop(message.entry_id, None)

    def close_all(self, *, retried: bool = False) -> None:
        """Keep what streamed of unfinished messages, marked partial (each forgotten once
        recorded, so a full disk halfway through leaves the rest for the next try); `retried`:
        the model call is made again, so they are abandoned attempts (recorded, not shown)."""
        for started in list(self._open.values()):
            if held := self._held.pop(started.entry_id, ""):
                self.document.stream(started.entry_id, held)
            self.recorder.commit(
                "assistant.message",
                None,
                AssistantMessage(
                    entry_id=started.entry_id,
                    prompt_id=started.prompt_id,
                    kind=started.kind,
                    partial=True,
                    retried=retried,
                    text=self.document.streamed_text(started.entry_id),
                ),
            )
            del self._open[started.entry_id]
