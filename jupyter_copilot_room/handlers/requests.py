"""Answers to what the agent asked the room: a permission request (approve or reject, with
feedback) and a question. The room's ledger of requests decides who may answer and which answer
counts; these handlers only carry the answer in and echo it back. And the whole of an open
card, for whoever sees the card, when the document shows it only in part.
"""

from __future__ import annotations

import asyncio
import json

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import ApprovalBody, QuestionBody
from .room_handler import RoomAPIHandler


class ApprovalHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(ApprovalBody)
        answer = await self.room.answer(self.identity, item_id, body.decision, body.feedback)
        await self.reply(answer)


class ApprovalDetailsHandler(RoomAPIHandler):
    """`GET approvals/<id>/details`: the open card's summary and details, no text cut (404
    `request_not_open` once it settled), for everyone admitted (viewers see the card too)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        whole = self.room.card_in_full(self.identity, item_id)
        # Up to a few times 5 MB of text: encoded off the event loop.
        body = await asyncio.to_thread(json.dumps, whole)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(body)


class QuestionHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(QuestionBody)
        await self.reply(await self.room.reply(self.identity, item_id, body.answer))
