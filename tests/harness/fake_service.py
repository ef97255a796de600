"""What the tests' local fakes of a model provider's API share: the scripted model's local
service (`agent/scripted_model.py`), the requests it was asked, a 404 for anything else, and
server-sent events written as the real services write them, and a text streamed in pieces as
they stream it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable

from tornado.web import RequestHandler

from jupyter_copilot_room.agent.scripted_model import LocalService

#: How the fakes stream a text: in pieces of PIECE characters, PAUSE seconds apart; `sent`, when
#: set, hears each piece once it was written (benchmarks/acp.py sets all three).
PIECE, PAUSE = 12, 0.005
sent: Callable[[str], None] | None = None


async def streamed(text: str) -> AsyncIterator[str]:
    """`text` in pieces, each yielded to be written and flushed before the next."""
    for at in range(0, len(text), PIECE):
        piece = text[at : at + PIECE]
        yield piece
        if sent is not None:
            sent(piece)
        await asyncio.sleep(PAUSE)


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
