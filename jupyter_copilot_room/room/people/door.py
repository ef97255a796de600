"""Who is at the room's door now, not just who once asked to come in.

Someone outside the room cannot hold its live document, so their panel asks `GET room` every
2 s while it waits (`DOOR_POLL_MS` in labextension/src/connection.ts; a background tab's timers
slow to once a minute). A knock lasts `KNOCK_LASTS` seconds after the last of those visits: a
browser closed at the door leaves no card behind in the hosts' panels, and the person's next
visit knocks again. A panel that is closed (its tab, or the room it showed) says so
(`DELETE door`), so its card goes at once rather than after `KNOCK_LASTS`. Nothing here is
recorded: a knock is presence, not a decision.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

#: Longer than a background tab's slowest poll (a minute), so a person who waits in a tab they
#: are not looking at still counts as waiting.
KNOCK_LASTS = 90.0


class Door:
    def __init__(self, on_change: Callable[[str], None], lasts: float = KNOCK_LASTS):
        self.on_change = on_change  # a knock started or ended: the person's card changes
        self.lasts = lasts
        self._knocks: dict[str, asyncio.TimerHandle] = {}

    def __contains__(self, username: str) -> bool:
        return username in self._knocks

    def knock(self, username: str) -> None:
        """A visit of someone waiting to come in: their knock lasts `lasts` from now."""
        self.leave(username)
        loop = asyncio.get_running_loop()
        self._knocks[username] = loop.call_later(self.lasts, self._gone, username)

    def leave(self, username: str) -> None:
        """They are no longer outside (admitted, turned away, removed)."""
        if (timer := self._knocks.pop(username, None)) is not None:
            timer.cancel()

    def went_away(self, username: str) -> None:
        """Their panel closed: the knock ends now, and their card says so."""
        if username in self._knocks:
            self.leave(username)
            self.on_change(username)

    def close(self) -> None:
        for timer in self._knocks.values():
            timer.cancel()
        self._knocks.clear()

    def _gone(self, username: str) -> None:
        del self._knocks[username]
        self.on_change(username)
