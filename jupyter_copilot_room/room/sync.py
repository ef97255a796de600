"""Server-authoritative Yjs sync for the room document.

Clients get the full state on connect and every update live, through pycrdt-websocket's `YRoom`.
But the room document has exactly one writer, the server, so each client's channel is wrapped in
a filter that lets through only what a reader may send: SYNC_STEP1 (asking for state). Document
updates a client sends (SYNC_STEP2, SYNC_UPDATE) and anything unreadable are dropped and logged;
awareness is dropped quietly (presence is the server's: who is connected, in `participants`), so
no client can speak as someone else or flood the others. They never reach the document or another
client. `YRoom.on_message` sees only bytes, not the sender, which is why the filter sits on each
channel instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from pycrdt import Doc, YMessageType, YSyncMessageType
from pycrdt.websocket import YRoom

log = logging.getLogger(__name__)


class ClientChannel(Protocol):
    """A connected client: pycrdt's `Channel` plus a way to close it."""

    @property
    def path(self) -> str: ...

    def __aiter__(self) -> AsyncIterator[bytes]: ...

    async def send(self, message: bytes) -> None: ...

    def close(self, code: int | None = None, reason: str | None = None) -> None: ...


#: What a standard Yjs client answers to the server's sync step 1 when it has nothing of its own:
#: SYNC, SYNC_STEP2, then an empty update. Dropping it is routine, not a forged write.
EMPTY_STEP2 = b"\x00\x01\x02\x00\x00"


def is_reader_message(message: bytes) -> bool:
    """True for the only message a read-only client may send: sync step 1."""
    return (
        len(message) >= 2
        and message[0] == YMessageType.SYNC
        and message[1] == YSyncMessageType.SYNC_STEP1
    )


def is_routine(message: bytes) -> bool:
    """What standard clients send anyway and is dropped without a warning: their (empty) sync
    step 2 and their awareness."""
    return message == EMPTY_STEP2 or message[:1] == bytes([YMessageType.AWARENESS])


class ReadOnlyChannel:
    """Wraps a client's channel; what it yields to `YRoom.serve` is only reader messages."""

    def __init__(self, channel: ClientChannel, username: str):
        self._channel = channel
        self.username = username
        self.dropped = 0

    @property
    def path(self) -> str:
        return self._channel.path

    async def send(self, message: bytes) -> None:
        await self._channel.send(message)

    def close(self, code: int | None = None, reason: str | None = None) -> None:
        self._channel.close(code, reason)

    def __aiter__(self) -> ReadOnlyChannel:
        return self

    async def __anext__(self) -> bytes:
        return await self.recv()

    async def recv(self) -> bytes:
        """The client's next reader message; anything else is dropped (and logged once)."""
        async for message in self._channel:
            if is_reader_message(message):
                return message
            if is_routine(message):
                continue
            self.dropped += 1
            level = logging.WARNING if self.dropped == 1 else logging.DEBUG
            log.log(
                level,
                "Dropped a %d-byte frame from %s: the room document is written only by the "
                "server (%d dropped on this connection).",
                len(message),
                self.username,
                self.dropped,
            )
        raise StopAsyncIteration


class RoomSync:
    """Owns the YRoom serving the room document and knows who is connected."""

    def __init__(self, ydoc: Doc):
        self.yroom = YRoom(ready=True, ydoc=ydoc, log=log, exception_handler=_log_exception)
        self._channels: set[ReadOnlyChannel] = set()
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self.yroom.start())
        await self.yroom.started.wait()

    async def stop(self) -> None:
        for channel in list(self._channels):
            channel.close(1001, "The room is shutting down.")
        if self._task is not None:
            # Cancelling the task ends YRoom's task group whatever stage its start reached
            # (YRoom.stop() raises if its awareness task has not started yet).
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def serve(
        self, channel: ClientChannel, username: str, on_presence: Callable[[str], None]
    ) -> None:
        """Serve one client until it disconnects; `on_presence` hears when they come and go."""
        reader = ReadOnlyChannel(channel, username)
        self._channels.add(reader)
        on_presence(username)
        try:
            await self.yroom.serve(reader)
        finally:
            self._channels.discard(reader)
            on_presence(username)

    def connected(self) -> set[str]:
        return {channel.username for channel in self._channels}

    def disconnect(self, username: str, reason: str) -> None:
        """Close every connection of this person at once (removed, or no longer admitted)."""
        for channel in [c for c in self._channels if c.username == username]:
            channel.close(4403, reason)


def _log_exception(exception: Exception, logger: logging.Logger) -> bool:
    logger.error("Room sync error", exc_info=exception)
    return True
