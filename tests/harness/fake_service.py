"""What the tests' local fakes of a model provider's API share: a tornado server on a free port
of 127.0.0.1 in the test's event loop, the requests it was asked, a 404 for anything else, and
server-sent events written as the real services write them."""

from __future__ import annotations

import json

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler


class FakeService:
    """`routes()`: the service's `(pattern, handler)`s, each handler given `owner=self`."""

    def __init__(self) -> None:
        self._server: HTTPServer | None = None
        self.port = 0

    def routes(self) -> list[tuple[str, type[RequestHandler]]]:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        handlers = [(pattern, handler, {"owner": self}) for pattern, handler in self.routes()]
        app = Application([*handlers, (r".*", _Nothing)])
        sockets = bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self._server = HTTPServer(app)
        self._server.add_sockets(sockets)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            await self._server.close_all_connections()


class _Nothing(RequestHandler):
    def prepare(self) -> None:
        self.set_status(404)
        self.finish({"type": "error", "error": {"type": "not_found_error", "message": "fake"}})


class EventStream(RequestHandler):
    """A handler that answers with server-sent events, each `{"type": name, **data}`."""

    async def event(self, name: str, data: dict) -> None:
        self.write(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n")
        await self.flush()
