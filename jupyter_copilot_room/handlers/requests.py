"""Answers to what the agent asked the room: a permission request (approve or reject, with
feedback) and a question. The room's ledger of requests decides who may answer and which answer
counts; these handlers only carry the answer in and echo it back.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import ApprovalBody, QuestionBody
from .base import RoomAPIHandler


class ApprovalHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def post(self, item_id: str) -> None:
        body = self.parse(ApprovalBody)
        self.room.answer_permission(
            self.identity, item_id, body.decision == "approve", body.feedback
        )
        self.reply({"id": item_id, "decision": body.decision})


class QuestionHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def post(self, item_id: str) -> None:
        body = self.parse(QuestionBody)
        self.room.answer_question(self.identity, item_id, body.answer)
        self.reply({"id": item_id, "answer": body.answer})
