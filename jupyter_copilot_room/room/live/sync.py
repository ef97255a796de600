"""Server-authoritative Yjs sync for the room document, with a bounded outbox per client.

Clients get the full state on connect and every update live. The room document has exactly one
writer, the server, so what a client sends is filtered: only SYNC_STEP1 (asking for state) is
answered. Document updates a client sends (SYNC_STEP2, SYNC_UPDATE) and anything unreadable are
dropped and logged; awareness is dropped quietly (presence is the server's: who is connected, in
`participants`), so no client can speak as someone else or flood the others. So is an update that
holds nothing the room lacks: y-websocket answers the server's sync step 1 with one, carrying the
room's own deletions once the client has the room's state.

Each client has its own outbox: an update is queued once per client and a writer task hands the
queue to the socket, one batch at a time, waiting until the batch has left for the network. A
client that stops reading (a suspended laptop) therefore only fills its own outbox; once that
holds more than `limit` bytes the socket is closed (4008) and the queue dropped, so a slow client
neither delays the others nor grows the server without bound. It reconnects with a fresh document
and gets the current state.

`replace_document` swaps the served document (the room's history compaction builds a new one):
every client is closed (4002) and reconnects to the new document.

A sync step 1 that cannot be read (pycrdt raises ValueError "Cannot decode state", IndexError or
AssertionError on garbage) closes that one socket (4400, the reason saying why) with one warning
line: it is the client's fault, not the server's, so no traceback, and nobody else notices. The
panel retries such a close with its growing delay, as any other, never at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Protocol

from pycrdt import (
    Decoder,
    Doc,
    IdMap,
    IdSet,
    Subscription,
    TransactionEvent,
    YMessageType,
    YSyncMessageType,
    create_sync_message,
    create_update_message,
    handle_sync_message,
)

log = logging.getLogger(__name__)

#: Close codes the panel answers by reconnecting at once, with a fresh document.
COMPACTED = (4002, "The room document was compacted; reconnecting.")
FELL_BEHIND = (4008, "You fell behind the room; reconnecting.")
#: A frame that cannot be read: that client is closed, not answered (the panel does not hurry back).
UNREADABLE = (4400, "The room could not read a sync message your client sent; closing.")

#: The default cap of a client's outbox (`CopilotRoom.client_buffer_bytes`).
CLIENT_BUFFER_BYTES = 1 << 20


class ClientChannel(Protocol):
    """A connected client: the frames it sends, a way to write frames to it, and to close it."""

    @property
    def path(self) -> str: ...

    def __aiter__(self) -> AsyncIterator[bytes]: ...

    def send_frame(self, message: bytes) -> Awaitable[None]:
        """Queue one frame now; the awaitable resolves once it has left for the network (frames
        leave in order) and raises if the client is gone."""
        ...

    def close(self, code: int | None = None, reason: str | None = None) -> None: ...


def is_reader_message(message: bytes) -> bool:
    """True for the only message a read-only client may send: sync step 1."""
    return (
        len(message) >= 2
        and message[0] == YMessageType.SYNC
        and message[1] == YSyncMessageType.SYNC_STEP1
    )


_UPDATES = {bytes([YSyncMessageType.SYNC_STEP2]), bytes([YSyncMessageType.SYNC_UPDATE])}


def is_routine(message: bytes, ydoc: Doc) -> bool:
    """What standard clients send anyway and is dropped without a warning: their awareness, and a
    sync step 2 or update that adds nothing to `ydoc` (no items, and only deletions it holds)."""
    if message[:1] == bytes([YMessageType.AWARENESS]):
        return True
    if message[:1] != bytes([YMessageType.SYNC]) or message[1:2] not in _UPDATES:
        return False
    try:
        update = Decoder(message[2:]).read_message() or b""
        if update[:1] != b"\x00":  # a count of clients with items: it adds items
            return False
        deleted = IdMap.from_set(IdSet.decode(update[1:]), [])
        deleted.diff_with(IdSet.decode(ydoc.get_update(ydoc.get_state())[1:]))
    except Exception:  # bytes pycrdt cannot read are not routine
        return False
    return deleted.is_empty()


class Client:
    """One connected client: reads only its reader messages, writes through a bounded outbox."""

    def __init__(self, channel: ClientChannel, username: str, limit: int):
        self.channel = channel
        self.username = username
        self.limit = limit
        self.dropped = 0
        self.fell_behind = False  # closed because its outbox passed the cap
        self.queued = 0  # bytes in the outbox, not yet handed to the socket
        self.closed = False
        self._sending = False  # a batch was handed to the socket and has not left yet
        self._outbox: deque[bytes] = deque()
        self._wake = asyncio.Event()
        self._writer = asyncio.create_task(self._write())

    def put(self, message: bytes) -> None:
        """Queue a frame for this client; past the cap, close it instead.

        Only what waits behind a batch still on its way counts: a client that has taken
        everything so far gets the next batch at once, however large (the full state on join)."""
        if self.closed:
            return
        self._outbox.append(message)
        self.queued += len(message)
        if self._sending and self.queued > self.limit:
            log.warning(
                "%s fell behind the room (%d bytes waiting to be sent): closing their "
                "connection; they will reconnect and sync afresh.",
                self.username,
                self.queued,
            )
            self.fell_behind = True
            self.close(*FELL_BEHIND)
            return
        self._wake.set()

    def close(self, code: int, reason: str) -> None:
        """Drop the outbox and close the socket; the writer stops."""
        if self.closed:
            return
        self.closed = True
        self._outbox.clear()
        self.queued = 0
        self._writer.cancel()
        self.channel.close(code, reason)

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch = list(self._outbox)
            self._outbox.clear()
            self.queued = 0
            self._sending = True
            sent: list[Awaitable[None]] = []
            failed: BaseException | None = None
            for message in batch:
                try:
                    sent.append(self.channel.send_frame(message))
                except Exception as error:
                    failed = error
                    break
            results = await asyncio.gather(*sent, return_exceptions=True)
            failed = failed or next((r for r in results if isinstance(r, BaseException)), None)
            if failed is not None:  # the client left; its channel's end stops `serve`
                log.debug("Writing to %s failed; they left: %r", self.username, failed)
                self.closed = True
                return
            self._sending = False

    async def messages(self, ydoc: Doc) -> AsyncIterator[bytes]:
        """The client's reader messages; anything else is dropped (and logged once, unless it is
        routine for a client of `ydoc`)."""
        async for message in self.channel:
            if is_reader_message(message):
                yield message
            elif not is_routine(message, ydoc):
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

    async def stopped(self) -> None:
        """The writer is done (after `close`)."""
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer


class RoomSync:
    """Serves the room document to its clients and knows who is connected."""

    def __init__(self, ydoc: Doc, *, client_buffer_bytes: int = CLIENT_BUFFER_BYTES):
        self.client_buffer_bytes = client_buffer_bytes
        self._clients: set[Client] = set()
        #: Clients closed because they fell behind, since the server started (for the metrics).
        self.fell_behind = 0
        self._ydoc = ydoc
        self._subscription: Subscription | None = None

    @property
    def ydoc(self) -> Doc:
        return self._ydoc

    async def start(self) -> None:
        self._subscription = self._ydoc.observe(self._broadcast)

    async def stop(self) -> None:
        self._unobserve()
        for client in list(self._clients):
            client.close(1001, "The room is shutting down.")

    def replace_document(self, ydoc: Doc) -> None:
        """Serve `ydoc` from now on; everyone connected is closed (4002) and reconnects to it.
        The old document is unobserved: pycrdt's observer holds its Doc, which would otherwise
        stay in memory, a whole window per compaction."""
        started = self._subscription is not None
        self._unobserve()
        self._ydoc = ydoc
        if started:
            self._subscription = ydoc.observe(self._broadcast)
        for client in list(self._clients):
            client.close(*COMPACTED)
            self._clients.discard(client)

    async def serve(
        self, channel: ClientChannel, username: str, on_presence: Callable[[str], None]
    ) -> None:
        """Serve one client until it disconnects; `on_presence` hears when they come and go."""
        client = Client(channel, username, self.client_buffer_bytes)
        ydoc = self._ydoc
        self._clients.add(client)
        on_presence(username)
        try:
            client.put(create_sync_message(ydoc))
            async for message in client.messages(ydoc):
                if client.closed or ydoc is not self._ydoc:
                    continue  # closing: wait for the socket's end
                try:
                    reply = handle_sync_message(message[1:], ydoc)
                except Exception as error:  # what pycrdt raises on bytes it cannot decode
                    log.warning(
                        "Closed the connection of %s: they sent a %d-byte sync message the room "
                        "cannot read (%s: %s).",
                        username,
                        len(message),
                        type(error).__name__,
                        error,
                    )
                    client.close(*UNREADABLE)
                    continue
                if reply is not None:
                    client.put(reply)
        finally:
            self._clients.discard(client)
            self.fell_behind += client.fell_behind
            await client.stopped()
            on_presence(username)

    def connected(self) -> set[str]:
        return {client.username for client in self._clients if not client.closed}

    def disconnect(self, username: str, reason: str) -> None:
        """Close every connection of this person at once (removed, or no longer admitted)."""
        for client in [c for c in self._clients if c.username == username]:
            client.close(4403, reason)

    def _broadcast(self, event: TransactionEvent) -> None:
        message = create_update_message(event.update)
        for client in list(self._clients):
            client.put(message)

    def _unobserve(self) -> None:
        if self._subscription is not None:
            self._ydoc.unobserve(self._subscription)
            self._subscription = None
