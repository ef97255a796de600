"""What people say: prompts to the agent (queued, withdrawn, or steering the turn that runs
one), the images uploaded to go with them, and chat messages to the room that never reach the
agent. They share a module because they are one conversation; the room decides who may say what.
"""

from __future__ import annotations

import asyncio
import dataclasses

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import ChatBody, PromptBody, SteerBody
from .room_handler import RoomAPIHandler


class PromptsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(PromptBody)
        await self.reply(await self.room.post_prompt(self.identity, body), status=202)


class PromptHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def delete(self, item_id: str) -> None:
        await self.room.withdraw(self.identity, item_id)
        await self.reply_empty()


class SteerHandler(RoomAPIHandler):
    """`POST prompts/<id>/steer {text}`: a steering message into that prompt's running turn."""

    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(SteerBody)
        await self.reply(
            {"id": await self.room.steer(self.identity, item_id, body.text)}, status=201
        )


class AttachmentsHandler(RoomAPIHandler):
    """`POST attachments`: an image for a prompt, its bytes the body, its type Content-Type;
    201 `{id, mime, bytes, width, height}`, the id to name in `POST prompts`' attachments."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        upload = await self.room.upload(
            self.identity, self.request.body, self.request.headers.get("Content-Type", "")
        )
        await self.reply(dataclasses.asdict(upload), status=201)


class AttachmentHandler(RoomAPIHandler):
    """`GET attachments/<id>`: a stored image, for everyone admitted (viewers too)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        path, mime = self.room.attachment(self.identity, item_id)
        self.set_header("Content-Type", mime)
        # Its name is the hash of its bytes: it never changes, so the browser may keep it.
        self.set_header("Cache-Control", "private, max-age=31536000, immutable")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(await asyncio.to_thread(path.read_bytes))


class MessagesHandler(RoomAPIHandler):
    """`POST messages {text}`: say something to the room (chat; never to the agent)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(ChatBody)
        await self.reply({"id": await self.room.say(self.identity, body.text)}, status=201)
