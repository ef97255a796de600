"""The rooms as resources: `GET rooms` lists them and `POST rooms` creates one (the
server's registry, `room_registry.py`, decides who may), `GET room` is one room's whole state as the
caller may see it, with what the caller may do there (`me.can`), so the panel never re-derives
the role table.
"""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler
from tornado import web

from ..request_bodies import RoomBody
from .room_handler import RoomAPIHandler


class RoomStateHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.room.describe(self.identity))


class RoomsHandler(RoomAPIHandler):
    """`GET rooms`: every room, main first, with its state, who is in it and what waits on the
    caller there, and whether the caller may create one; `POST rooms {name, repository}`: a new
    room (hosts and `room_creators`). The list opens no room: it answers while a room cannot
    start (`main` too), and says which and why."""

    async def prepare(self, **kwargs: Any) -> None:
        await APIHandler.prepare(self, **kwargs)

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.rooms.listing(self.identity))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(RoomBody)
        await self.reply(
            await self.rooms.create(self.identity, body.name, body.repository), status=201
        )
