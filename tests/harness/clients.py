"""A scriptable Yjs client of the room document, as the panel would be."""

import asyncio

from pycrdt import (
    Array,
    Doc,
    Map,
    YMessageType,
    create_sync_message,
    handle_sync_message,
)


class YClient:
    """A minimal Yjs client of the room document, as the panel would be (but scriptable)."""

    def __init__(self, ws):
        self.ws = ws
        self.doc = Doc()
        self.transcript = self.doc.get("transcript", type=Array)
        self.queue = self.doc.get("queue", type=Array)
        self.meta = self.doc.get("meta", type=Map)
        self.participants = self.doc.get("participants", type=Map)
        self.approvals = self.doc.get("approvals", type=Map)
        self.received: list[bytes] = []
        #: Called after each message is applied (outside its update: the copy may be read).
        self.after_message = lambda: None
        self.closed = asyncio.Event()
        self._reader = asyncio.create_task(self._read())
        ws.write_message(create_sync_message(self.doc), binary=True)

    async def _read(self):
        while (message := await self.ws.read_message()) is not None:
            self.received.append(message)
            if message[0] == YMessageType.SYNC:
                reply = handle_sync_message(message[1:], self.doc)
                if reply is not None:
                    self.ws.write_message(reply, binary=True)
            self.after_message()
        self.closed.set()

    def replies(self):
        return [e for e in self.transcript.to_py() if e["kind"] == "assistant"]

    def snapshot(self):
        return {
            name: getattr(self, name).to_py()
            for name in ("meta", "participants", "queue", "transcript", "approvals")
        }

    def close(self):
        self.ws.close()
        self._reader.cancel()
