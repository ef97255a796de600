"""One front's reading of one room's transcript: from where the front stopped, then live, while
the room is loaded; stopped when the room is unloaded (quiet for `room_idle_timeout`) and started
again, from where the front stopped, when it is loaded anew. The API tells it both
(`RoomsAPI.watch`), so no front looks again and again whether its room is loaded. The chat
mirror and the pull request room read through it, each handing it what to do with a record.

A reading that a service's refusal ended (`ServiceRefusal` out of `handle`: a bad token, a channel
the bot is not in) starts again `again` seconds after it began, from the record it stopped at."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ..background_tasks import started
from .reach import ServiceRefusal

if TYPE_CHECKING:
    from ..api import Front, RoomAPI, RoomsAPI


def _nothing(*_: object) -> None:
    return None


class RoomFollower:
    def __init__(
        self,
        rooms: RoomsAPI,
        name: str,
        front: Front,
        position: Callable[[], int],
        handle: Callable[[RoomAPI, dict], Awaitable[None]],
        *,
        loaded: Callable[[RoomAPI], None] = _nothing,
        ended: Callable[[RoomAPI, ServiceRefusal], None] = _nothing,
        again: float = 30.0,
    ):
        self.rooms = rooms
        self.name = name
        self.front = front  # who reads: the front itself, for nobody
        self._position = position  # the last record the front is done with
        self._handle = handle
        self._loaded = loaded  # told before each reading of a room loaded anew starts
        self._ended = ended  # told when a service's refusal ended a reading
        self._again = again
        #: The room as it is loaded now (None: not loaded, or not started yet).
        self.room: RoomAPI | None = None
        self._reading: asyncio.Task | None = None
        self._retry: asyncio.TimerHandle | None = None
        self._unwatch: Callable[[], None] | None = None

    def start(self) -> None:
        self._unwatch = self.rooms.watch(self.name, self._started, self._unloaded)

    async def stop(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        reading = self._reading
        self._unloaded()
        if reading is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await reading

    def _started(self, room: RoomAPI) -> None:
        self.room = room
        self._loaded(room)
        self._read(room)

    def _unloaded(self) -> None:
        self.room = None
        self._cancel()

    def _cancel(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self._reading is not None:
            self._reading.cancel()
            self._reading = None

    def _read(self, room: RoomAPI) -> None:
        self._cancel()
        began = asyncio.get_running_loop().time()
        self._reading = started(self._follow(room, began), f"The reading of {self.name}")

    async def _follow(self, room: RoomAPI, began: float) -> None:
        try:
            async for record in room.follow(self.front, after=self._position()):
                await self._handle(room, record)
        except ServiceRefusal as refusal:
            self._ended(room, refusal)
            loop = asyncio.get_running_loop()
            self._retry = loop.call_at(began + self._again, self._read_again, room)

    def _read_again(self, room: RoomAPI) -> None:
        self._retry = None
        if self.room is room:
            self._read(room)
