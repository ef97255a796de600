"""The room's live document in a kernel: the panel's read-only Yjs client, in Python (pycrdt).

One websocket per room and event loop. Every applied update bumps `version` and wakes whoever
awaits `changed()`. A 4002 (the document was compacted) or 4008 (this client fell behind) close
reconnects at once with a fresh document, as the panel does; any other close ends it with
`error` set.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from pycrdt import Array, Doc, Map, YMessageType, create_sync_message, handle_sync_message
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

RESYNC_CODES = (4002, 4008)


class LiveDocument:
    def __init__(self, url: str, headers: dict[str, str], loop: asyncio.AbstractEventLoop):
        self.url, self.headers, self.loop = url, headers, loop
        self.doc: Doc = Doc()
        self.version = 0
        self.error: str | None = None
        self._changed = asyncio.Condition()
        self._task = loop.create_task(self._run())

    @property
    def transcript(self) -> Array:
        return self.doc.get("transcript", type=Array)

    @property
    def queue(self) -> Array:
        return self.doc.get("queue", type=Array)

    @property
    def meta(self) -> Map:
        return self.doc.get("meta", type=Map)

    async def changed(self, seen: int, timeout: float | None = None) -> None:
        """Return once `version` is past `seen` (or the connection ended, or `timeout` s)."""
        async with self._changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: self.version > seen or self.error is not None),
                    timeout,
                )

    def close(self) -> None:
        self._task.cancel()

    async def _run(self) -> None:
        try:
            while True:
                code, reason = await self._serve_once()
                if code not in RESYNC_CODES:
                    self.error = f"The room's live connection closed ({code}: {reason})."
                    break
                self.doc = Doc()  # a fresh document, as the panel starts each connection
        except Exception as err:  # whatever ends it is told to the waiters
            self.error = f"The room's live connection failed: {err}"
        await self._notify()

    async def _serve_once(self) -> tuple[int | None, str | None]:
        ws: WebSocketClientConnection = await websocket_connect(
            HTTPRequest(self.url, headers=self.headers)
        )
        try:
            await ws.write_message(create_sync_message(self.doc), binary=True)
            while (message := await ws.read_message()) is not None:
                if isinstance(message, bytes) and message[0] == YMessageType.SYNC:
                    reply = handle_sync_message(message[1:], self.doc)
                    if reply is not None:
                        await ws.write_message(reply, binary=True)
                    await self._notify()
            return ws.close_code, ws.close_reason
        finally:
            ws.close()

    async def _notify(self) -> None:
        async with self._changed:
            self.version += 1
            self._changed.notify_all()


def plain(entry: Any) -> dict[str, Any]:
    """A document Map as plain data (its `body` Text as a string)."""
    return entry.to_py() if hasattr(entry, "to_py") else dict(entry)
