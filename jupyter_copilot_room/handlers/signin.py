"""Signing the server in to Copilot from the panel (demo mode, hosts only): each step of
the runtime's own login flow as a command, and the sign-out that forgets its login. These are
server-level routes: every room's session runs in the server's one runtime, so the login they
make or forget answers every room, and no room's name appears in these routes.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import SignInReturnBody
from .room_handler import RoomAPIHandler


class SignInHandler(RoomAPIHandler):
    """Hosts only, in demo mode: `GET signin` the flow in hand (its address is never in the
    shared document), `POST signin` begins the runtime's own login flow."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.room.describe_signin(self.identity))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.reply(await self.room.begin_signin(self.identity))


class SignInReturnHandler(RoomAPIHandler):
    """`POST signin/return {url}`: the address a host's browser landed on after GitHub."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(SignInReturnBody)
        await self.reply(await self.room.deliver_signin(self.identity, body.url))


class SignInAllowHandler(RoomAPIHandler):
    """`POST signin/allow`: a host lets the runtime keep the login in plain text (no keychain)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.reply(await self.room.allow_signin(self.identity))


class SignInCancelHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.reply(await self.room.cancel_signin(self.identity))


class SignOutHandler(RoomAPIHandler):
    """`POST signout`: forget the runtime's login; the agent starts afresh (demo mode)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.room.sign_out(self.identity)
        await self.reply({"signed_out": True})
