"""A room's live document over a websocket, under `<base_url>copilot-room/ws/<name>`
(`copilot-room/ws` is main's).

The Yjs sync protocol, read-only for every client (`room/live/sync.py` drops their writes).
Access is checked when the socket opens and again every `websocket_recheck_interval` seconds, so
a revoked hub share or a lost hub group ends a visitor's live view too.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable
from typing import Any

from jupyter_server.auth.decorator import authorized, ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketHandler

from ..api import RoomAPI
from ..errors import Refused
from ..room_registry import MAIN
from .hub_user_cache import forget_hub_user
from .room_handler import RoomMixin

log = logging.getLogger(__name__)


class RoomWebSocketHandler(RoomMixin, WebSocketMixin, WebSocketHandler, JupyterHandler):
    """The live room document over the Yjs sync protocol; read-only for every client.

    Tornado pushes frames to `on_message`; pycrdt's rooms pull them with `async for`, so frames
    go through a queue. The handler itself is the channel the room serves.
    """

    async def prepare(self, *args: Any, **kwargs: Any) -> None:
        await super().prepare(*args, **kwargs)
        self.room_name = self.path_kwargs.pop("room_name", MAIN)  # `ws/<name>`, or `ws`: main

    @ws_authenticated
    @authorized
    async def get(self, *args, **kwargs):
        try:
            self.room = await self.room_to_serve()
            self.room.check_watcher(self.identity)
        except Refused as err:  # no such room, a refused start (full disk, changed
            raise web.HTTPError(err.status, err.message) from None  # transcript), not admitted
        return await super().get(*args, **kwargs)

    async def room_to_serve(self) -> RoomAPI:
        """The room the route names, loaded at its first request (`Rooms.open`)."""
        return await self.rooms.open(self.room_name)

    @property
    def path(self) -> str:
        return f"copilot-room:{self.current_user.username}"

    def open(self, *args: Any, **kwargs: Any) -> None:
        self._frames: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._serving = asyncio.create_task(self.room.connect(self.identity, self))
        self._serving.add_done_callback(self._served)
        self._rechecking = asyncio.create_task(self._keep_checking())

    def _served(self, task: asyncio.Task) -> None:
        """Serving ended: an error is logged with its traceback and the socket closed."""
        if task.cancelled() or task.exception() is None:
            return
        log.error(
            "Serving the room to %s failed", self.current_user.username, exc_info=task.exception()
        )
        self.close(1011, "The room could not be served; see the server log.")

    def on_message(self, message: str | bytes) -> None:
        self._frames.put_nowait(message if isinstance(message, bytes) else message.encode())

    def on_close(self) -> None:
        self._frames.put_nowait(None)
        self._rechecking.cancel()

    async def _keep_checking(self) -> None:
        """Access can end while a socket stays open (a revoked hub share, a lost hub group):
        ask the identity provider again now and then, and close the socket when it is over."""
        while True:
            await asyncio.sleep(self.context.recheck_interval)
            if not await self._still_admitted():
                self.close(4401, "Your access to this room has ended.")
                return

    async def _still_admitted(self) -> bool:
        if self.acts_as_server_owner:
            return True  # the server's token holds until the server stops
        forget_hub_user(self)  # JupyterHub would answer from the user it cached on the handler
        try:
            user = self.identity_provider.get_user(self)
            if inspect.isawaitable(user):
                user = await user
        except Exception:
            return False
        if user is None or user.username != self.current_user.username:
            return False
        # Not a visit: this socket's cookies are those of its start, so the name they carry may
        # be one the person has changed since (a plain lab's anonymous user renamed).
        return self.room.still_watches(self.identity_of(user))

    def __aiter__(self):
        return self

    async def __anext__(self) -> bytes:
        frame = await self._frames.get()
        if frame is None:
            raise StopAsyncIteration
        return frame

    def send_frame(self, message: bytes) -> Awaitable[None]:
        """Queue one frame; the future resolves once tornado has handed it to the network."""
        return self.write_message(message, binary=True)
