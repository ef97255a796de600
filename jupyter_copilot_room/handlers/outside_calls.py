"""The routes a service outside calls (GitHub's webhook, Teams' messaging endpoint): no Jupyter
login and no cookie (the call proves itself: a signature, a token, checked by the front), and a
body read only up to the route's `max_body`, so that anyone on the internet can make the server
hold no more than that: a longer one is cut off before it is buffered."""

from __future__ import annotations

from typing import Any

from tornado.web import stream_request_body

from .room_handler import RoomAPIHandler


@stream_request_body
class OutsideCallHandler(RoomAPIHandler):
    max_body = 2**20

    def check_xsrf_cookie(self) -> None:
        """No cookie is involved: the call carries its own credential."""

    async def prepare(self, **kwargs: Any) -> None:
        self._body = bytearray()
        self.request.connection.set_max_body_size(self.max_body)  # type: ignore[union-attr]
        await super().prepare(**kwargs)

    def data_received(self, chunk: bytes) -> None:
        self._body += chunk

    @property
    def body(self) -> bytes:
        return bytes(self._body)
