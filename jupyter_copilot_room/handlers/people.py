"""Who is in the room and with which role: the participants everyone admitted sees and a host
changes or removes, the admissions a host decides at the door, and the one-time host claim of a
server nobody is configured to host (the link printed at start, or the door's form in a tab
already open). A refused claim link is a page a person reads in the browser, so it is HTML.
"""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlencode

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from tornado import web

from ..errors import Refused
from ..request_bodies import AdmissionBody, ClaimBody, LinkAnswerBody, RoleBody
from .room_handler import RoomAPIHandler, RoomMixin

CLAIMED_COOKIE = "copilot-room-claimed"


class ParticipantsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply({"participants": self.room.list_people(self.identity)})


class ParticipantHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def put(self, username: str) -> None:
        body = self.parse(RoleBody)
        await self.reply(self.room.set_role(self.identity, username, body.role))

    @web.authenticated
    @authorized
    async def delete(self, username: str) -> None:
        self.room.remove(self.identity, username)
        await self.reply_empty()


class AdmissionHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, username: str) -> None:
        body = self.parse(AdmissionBody)
        await self.reply(self.room.admit(self.identity, username, body.decision))


class DoorHandler(RoomAPIHandler):
    """`DELETE door`: my panel closed while I waited at the door; hosts' cards drop my knock."""

    @web.authenticated
    @authorized
    async def delete(self) -> None:
        self.room.left_door(self.identity)
        await self.reply_empty()


class PersonAPIHandler(RoomAPIHandler):
    """A command about the caller alone (their chat accounts): it opens no room."""

    async def prepare(self, **kwargs: Any) -> None:
        await APIHandler.prepare(self, **kwargs)


class LinkCodeHandler(PersonAPIHandler):
    """`POST link-code`: a one-time code for the caller's chat account (Slack, Teams), sent to
    the bot as `link <code>`; the chat user who sends it then asks to act as the caller."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.reply(self.rooms.link_code(self.identity))


class ChatLinksHandler(PersonAPIHandler):
    """`GET chat-links`: the caller's linked chat accounts and the asks to act as them."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.rooms.chat_links(self.identity))


class ChatLinkAskHandler(PersonAPIHandler):
    """`POST chat-links/asks/{id}`: allow or deny a chat user's ask to act as the caller."""

    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(LinkAnswerBody)
        await self.reply(await self.rooms.answer_link(self.identity, item_id, body.decision))


class ChatLinkHandler(PersonAPIHandler):
    """`DELETE chat-links/{service}/{user}`: the caller's link of that chat account removed."""

    @web.authenticated
    @authorized
    async def delete(self, service: str, user: str) -> None:
        self.rooms.unlink_chat(self.identity, service, user)
        await self.reply_empty()


class ClaimAPIHandler(RoomAPIHandler):
    """`POST claim {secret}`: the door's "I started this server", in the tab already open."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(ClaimBody)
        await self.reply(self.room.claim_host(self.identity, body.secret))


class ClaimHandler(RoomMixin, JupyterHandler):
    """The one-time host-claim link printed at start when nobody is configured as host."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.open_room()
        secret = self.get_argument("secret", "")
        if self.acts_as_server_owner and "token" in self.request.query_arguments:
            # A fresh browser's first request: the link's `?token=` signed it in, and this
            # response carries its login cookie. The claim waits for the request that has it,
            # so the person becomes host, not the server's token ("Server owner").
            self.redirect(f"{self.request.path}?{urlencode({'secret': secret})}")
            return
        try:
            self.room.claim_host(self.identity, secret)
        except Refused as err:
            self.set_status(err.status)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(_refused_claim_page(err.message, self.base_url))
            return
        await self.room.durable()
        # For the panel about to open: say "You are the host" once (it reads and clears this).
        self.set_cookie(CLAIMED_COOKIE, "1", path=self.base_url, max_age=300, samesite="Strict")
        self.redirect(self.base_url)


def _refused_claim_page(message: str, lab_url: str) -> str:
    """What a used or wrong claim link says: why, and what to do next."""
    return (
        "<!doctype html><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width'>"
        "<title>Copilot room: not claimed</title>"
        "<body style='font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto;"
        " padding: 0 1em; line-height: 1.5'>"
        "<h1>You did not become the room's host</h1>"
        f"<p>{html.escape(message, quote=False)}</p>"
        f"<p><a href='{html.escape(lab_url)}'>Open JupyterLab</a> and the Copilot room panel: "
        "it shows whether you are waiting to be let in.</p></body>"
    )
