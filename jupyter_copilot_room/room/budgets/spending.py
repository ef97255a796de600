"""What a room's turns spend from: today's sums under its daily caps, or, for a side thread, its
room's.

A thread's turn is booked twice: in the thread's own sums (its panel shows them) and, as a
`usage` record naming the thread and no prompt, in its room's transcript. The room's sums, which
every check reads, then hold what its threads spent too, across restarts and after a thread
closes; a thread checks its prompts against its room's sums, so nobody spends past a cap by
working in a thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...events import TurnUsage
from ..live.document import RoomDocument
from ..persistence.recorder import Recorder
from . import budget_caps
from .budget_caps import Budgets


class Spending:
    def __init__(
        self, caps: Budgets, document: RoomDocument, recorder: Recorder, clock: Callable[[], float]
    ):
        self.caps = caps
        self.document = document
        self.recorder = recorder
        self.clock = clock
        self.room: Spending | None = None  # a side thread's: the room it spends from
        self.thread = ""

    def spends_from(self, room: Spending, thread: str) -> None:
        """This is the side thread `thread` of the room whose spending is `room`."""
        self.room, self.thread = room, thread

    def today(self) -> dict[str, Any]:
        """Today's (UTC) usage per person and for the room, as the records sum it."""
        if self.room is not None:
            return self.room.today()
        return budget_caps.today(self.document.meta.get("usage"), self.clock())

    def check(self, username: str) -> None:
        """Refuse a prompt by `username` past a cap (`budget_caps.check`)."""
        budget_caps.check(self.caps, self.today(), username)

    def credits_left(self, username: str | None) -> float | None:
        return budget_caps.credits_left(self.caps, self.today(), username)

    def booked(self, usage: TurnUsage) -> None:
        """A turn's cost was recorded here: a thread's goes to its room's sums as well."""
        if self.room is not None:
            self.room.recorder.commit(
                "usage", None, usage.model_copy(update={"prompt_id": None, "thread": self.thread})
            )
