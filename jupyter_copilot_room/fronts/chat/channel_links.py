"""Which channel each room is in, for one chat service: the configured `rooms`, then what hosts
linked and unlinked from the panel (kept in `<state_dir>/bridges/<service>-channels.json`,
winning over the configuration); each linked room's mirror, started once the service is there
and stopped when its room is unlinked; and what the linked rooms' header says of the service
("Slack: disconnected"). A channel is one room's."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ...api import Front
from ...errors import Conflict, InvalidRequest
from ...statefiles import read_json, write_json_atomically
from ..reach import ServiceRefusal, ServiceWaiting, reach
from .channel_mirror import ChannelMirror
from .chat_service import ChatService
from .mirror_state import MirrorState

if TYPE_CHECKING:
    from ...api import RoomAPI, RoomsAPI

log = logging.getLogger(__name__)


class ChannelLinks:
    def __init__(
        self,
        service: ChatService,
        rooms: RoomsAPI,
        configured: Mapping[str, str],
        state: Path,
    ):
        self.service = service
        self.rooms = rooms
        self.status: str | None = None  # the bridge's own word ("bad token"), None: all well
        self.front = Front(service.name)  # the header's "<Service>: ..." is the bridge's own
        self._states = state / service.name  # a mirror's state: `<room>.json`
        self._file = state / f"{service.name}-channels.json"
        self._changed: dict[str, str | None] = read_json(self._file) or {}
        taken = {channel for channel in self._changed.values() if channel}
        kept = {room: ch for room, ch in configured.items() if ch not in taken}  # hosts' win
        linked = {**kept, **self._changed}
        self._mirrors = {room: self._mirror(room, ch) for room, ch in linked.items() if ch}
        self._running = False
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        return self.service.name.title()

    @property
    def linked(self) -> dict[str, str]:
        """Each linked room's channel."""
        return {room: mirror.channel for room, mirror in self._mirrors.items()}

    def _mirror(self, room: str, channel: str) -> ChannelMirror:
        state = MirrorState.load(self._states / f"{room}.json")
        return ChannelMirror(room, channel, self.service, self.rooms, state, self._mirror_says)

    def say(self, status: str | None) -> None:
        """The header's "<Service>: <status>" in the linked rooms that are loaded, when it
        changes."""
        if status == self.status:
            return
        if status == "disconnected":
            log.info("%s: disconnected; the room goes on, and what it missed follows", self.name)
        self.status = status
        for name in self._mirrors:
            self._show(name, status)

    async def reach(self, call: Callable[[], Awaitable[object]]) -> ServiceRefusal | None:
        """Makes the service's first `call` until it answers (`fronts/reach.py`), the header
        saying "disconnected" meanwhile. A refusal (a bad token) is not tried again: the header
        says so and it is returned, for the bridge to log in its own words."""

        def waited(waiting: ServiceWaiting, wait: float) -> None:
            self.say("disconnected")
            log.info("%s cannot be reached (%s); trying again in %.0f s", self.name, waiting, wait)

        try:
            await reach(call, waited)
        except ServiceRefusal as refusal:
            self.say("bad token")
            return refusal
        self.say(None)
        return None

    def _show(self, name: str, status: str | None) -> None:
        """`status` in the room's header, once it has started if it is starting now."""
        self.rooms.once_started(name, lambda room: room.set_front_status(self.front, status))

    def _mirror_says(self, room: RoomAPI | None, status: str | None) -> None:
        """A mirror's word on its room's header; once its trouble passed, the bridge's."""
        if room is not None:
            room.set_front_status(self.front, status or self.status)

    def start(self) -> None:
        self._running = True
        for mirror in self._mirrors.values():
            mirror.start()

    async def stop(self) -> None:
        self._running = False
        for mirror in self._mirrors.values():
            await mirror.stop()

    def in_channel(self, channel: str) -> ChannelMirror | None:
        """The mirror of the room linked to `channel`, if one is."""
        return next((m for m in self._mirrors.values() if m.channel == channel), None)

    async def link(self, room: str, given: str, recorded: Callable[[str], None]) -> str:
        """`room` in the channel `given` names from now on (its turns before are not posted):
        the channel's id; `InvalidRequest` for no channel's id, `Conflict` when the channel is
        another room's. `recorded(channel)` (the transcript's line) comes between the checks and
        the change: if it raises, nothing changed."""
        channel = self.service.channel_id(given)
        if channel is None:
            said = f"{given} is not the id of a {self.name} channel."
            raise InvalidRequest(said, code="invalid_channel")
        async with self._lock:
            taken = next((r for r, c in self.linked.items() if c == channel and r != room), None)
            if taken is not None:
                raise Conflict(f"{channel} is the room {taken}'s channel.", code="channel_taken")
            if self.linked.get(room) == channel:
                return channel
            recorded(channel)
            await self._drop(room)
            self._mirrors[room] = mirror = self._mirror(room, channel)
            if self._running:
                mirror.start()
            self._save(room, channel)
            self._show(room, self.status)
            return channel

    async def unlink(self, room: str) -> None:
        async with self._lock:
            await self._drop(room)
            self._save(room, None)

    async def _drop(self, room: str) -> None:
        """`room`'s mirror stopped and forgotten (a new link starts afresh)."""
        if (mirror := self._mirrors.pop(room, None)) is not None:
            await mirror.stop()
        (self._states / f"{room}.json").unlink(missing_ok=True)
        self._show(room, None)  # the service is no word of its header now

    def _save(self, room: str, channel: str | None) -> None:
        self._changed[room] = channel
        write_json_atomically(self._file, self._changed)
