"""The room on a pull request (`fronts/github/`): a host links a room to one (`POST github/pull`
`{"number"}`, `DELETE github/pull`), and GitHub delivers comments at `copilot-room/github/webhook`,
which proves itself by its signature, not by a Jupyter login (GitHub holds none)."""

from __future__ import annotations

from jupyter_server.auth.decorator import allow_unauthenticated, authorized
from tornado import web

from ..request_bodies import PullBody
from .outside_calls import OutsideCallHandler
from .room_handler import RoomAPIHandler

#: The largest webhook delivery GitHub sends (25 MB); a comment's is far smaller.
MAX_DELIVERY = 25 * 2**20


class PullLinkHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(PullBody)
        await self.reply(await self.room.links.link_pull(self.identity, body.number))

    @web.authenticated
    @authorized
    async def delete(self) -> None:
        await self.room.links.unlink_pull(self.identity)
        await self.reply_empty()


class WebhookHandler(OutsideCallHandler):
    max_body = MAX_DELIVERY

    @allow_unauthenticated
    async def post(self) -> None:
        headers = self.request.headers
        self.rooms.hear_github(
            headers.get("X-GitHub-Event", ""),
            headers.get("X-Hub-Signature-256", ""),
            self.body,
            headers.get("Content-Type", ""),
        )
        await self.reply_empty()
