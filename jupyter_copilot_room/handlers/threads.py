"""Side threads (`threads/`): open one forked from the room's conversation, list them, read one,
add people, prompt in it, bring it back, close it; and its live document on a websocket
(`copilot-room/ws/threads/<id>`, `copilot-room/ws/<room>/threads/<id>`). The room's threads
decide who may do what; these handlers carry the bodies in and the answers out."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..errors import RoomError
from ..request_bodies import PersonBody, PromoteBody, ThreadBody, ThreadPromptBody
from ..room.room import Room
from ..threads import RoomThreads
from ..websocket import RoomWebSocketHandler
from .base import RoomAPIHandler
from .transcript import PagedHandler


class ThreadsMixin(RoomAPIHandler):
    @property
    def threads(self) -> RoomThreads:
        return self.context.threads.of(self.room)


class ThreadsHandler(ThreadsMixin):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply({"threads": self.threads.listing(self.identity)})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(ThreadBody)
        title = body.title.strip() or "Side thread"
        await self.reply(await self.threads.create(self.identity, body.from_, title), status=201)


class ThreadHandler(ThreadsMixin):
    @web.authenticated
    @authorized
    async def delete(self, item_id: str) -> None:
        await self.threads.close(self.identity, item_id)
        await self.reply_empty()


class ThreadTranscriptHandler(ThreadsMixin, PagedHandler):
    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        """The thread's whole transcript, as JSONL (like the room's)."""
        room = await self.threads.thread_room(self.identity, item_id)
        await self.stream(room.transcript_chunks(self.identity))


class ThreadPeopleHandler(ThreadsMixin):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(PersonBody)
        await self.reply(self.threads.add_person(self.identity, item_id, body.username))


class ThreadPromptsHandler(ThreadsMixin):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(ThreadPromptBody)
        prompt_id, position = await self.threads.submit(self.identity, item_id, body.text)
        await self.reply({"id": prompt_id, "position": position}, status=202)


class ThreadChangesHandler(ThreadsMixin):
    """`GET threads/<id>/diff`: the thread's changes against its fork point (a preview)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        await self.reply(await self.threads.changes(self.identity, item_id))


class ThreadPromoteHandler(ThreadsMixin):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(PromoteBody)
        if body.as_ == "prompt":
            answer = await self.threads.promote_as_prompt(self.identity, item_id, body.text)
        else:
            answer = await self.threads.promote_as_diff(self.identity, item_id)
        await self.reply(answer, status=202)


class ThreadScoped(RoomAPIHandler):
    """A room's command run in one of its threads (`threads/<id>/<command>`): the same handler,
    its `room` the thread's, for the people who may see the thread."""

    async def prepare(self, **kwargs: Any) -> None:
        await super().prepare(**kwargs)
        thread_id = self.path_kwargs.pop("thread_id")
        if self.current_user is not None:
            threads = self.context.threads.of(self.room)
            self.room = await threads.thread_room(self.identity, thread_id)


def in_thread(handler: type[RoomAPIHandler]) -> type[RoomAPIHandler]:
    """`handler`, serving its command in a thread."""
    return type(f"Thread{handler.__name__}", (ThreadScoped, handler), {})


class ThreadWebSocketHandler(RoomWebSocketHandler):
    """A thread's live document: as a room's, for the people who may see the thread."""

    async def prepare(self, *args: Any, **kwargs: Any) -> None:
        await super().prepare(*args, **kwargs)
        self.thread_id = self.path_kwargs.pop("item_id")

    async def room_to_serve(self) -> Room:
        room = await super().room_to_serve()
        try:
            return await self.context.threads.of(room).thread_room(self.identity, self.thread_id)
        except RoomError as err:
            raise web.HTTPError(err.status, err.message) from None
