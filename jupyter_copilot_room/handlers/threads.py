"""Side threads (`threads/`): open one forked from the room's conversation, list them, read one,
add people, prompt in it, bring it back, close it; and its live document on a websocket
(`copilot-room/ws/threads/<id>`, `copilot-room/ws/<room>/threads/<id>`). The room's threads
decide who may do what; these handlers carry the bodies in and the answers out."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..api import RoomAPI
from ..request_bodies import PersonBody, PromoteBody, ThreadBody, ThreadPromptBody
from .room_handler import RoomAPIHandler
from .transcript import PagedHandler
from .websocket import RoomWebSocketHandler


class ThreadsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply({"threads": self.room.threads.listing(self.identity)})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(ThreadBody)
        thread = await self.room.threads.create(self.identity, body.from_, body.title)
        await self.reply(thread, status=201)


class ThreadHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def delete(self, item_id: str) -> None:
        await self.room.threads.close(self.identity, item_id)
        await self.reply_empty()


class ThreadTranscriptHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        """The thread's whole transcript, as JSONL (like the room's)."""
        await self.send(await self.room.threads.transcript(self.identity, item_id))


class ThreadPeopleHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(PersonBody)
        await self.reply(self.room.threads.add_person(self.identity, item_id, body.username))


class ThreadPromptsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(ThreadPromptBody)
        await self.reply(
            await self.room.threads.submit(self.identity, item_id, body.text), status=202
        )


class ThreadChangesHandler(RoomAPIHandler):
    """`GET threads/<id>/diff`: the thread's changes against its fork point (a preview)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        await self.reply(await self.room.threads.changes(self.identity, item_id))


class ThreadPromoteHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(PromoteBody)
        answer = await self.room.threads.promote(self.identity, item_id, body.as_, body.text)
        await self.reply(answer, status=202)


class ThreadWebSocketHandler(RoomWebSocketHandler):
    """A thread's live document: as a room's, for the people who may see the thread."""

    async def prepare(self, *args: Any, **kwargs: Any) -> None:
        await super().prepare(*args, **kwargs)
        self.thread_id = self.path_kwargs.pop("item_id")

    async def room_to_serve(self) -> RoomAPI:
        room = await super().room_to_serve()
        return await room.threads.open(self.identity, self.thread_id)
