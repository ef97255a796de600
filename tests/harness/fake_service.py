"""What the tests' local fakes of a model provider's API share: the scripted model's local
service (`agent/scripted_model.py`), the requests it was asked, a 404 for anything else, and
server-sent events written as the real services write them."""

from __future__ import annotations

import json

from tornado.web import RequestHandler

from jupyter_copilot_room.agent.scripted_model import LocalService


class FakeService(LocalService):
    """`routes()`: the service's own `(pattern, handler)`s; anything else is a 404."""

    def routes(self) -> list[tuple[str, type[RequestHandler]]]:
        raise NotImplementedError

    def handlers(self) -> list[tuple[str, type[RequestHandler]]]:
        return [*self.routes(), (r".*", _Nothing)]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class _Nothing(RequestHandler):
    def initialize(self, owner: LocalService) -> None:
        pass

    def prepare(self) -> None:
        self.set_status(404)
        self.finish({"type": "error", "error": {"type": "not_found_error", "message": "fake"}})


class EventStream(RequestHandler):
    """A handler that answers with server-sent events, each `{"type": name, **data}`."""

    async def event(self, name: str, data: dict) -> None:
        self.write(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n")
        await self.flush()
