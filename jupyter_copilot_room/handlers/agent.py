"""The room's agent as resources: which model answers (a host switches it), the skills
and custom agents it can use, and a host's controls over its life, an abort of the running turn
and a retry of an agent that could not start. The room, not the agent, decides who may.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import ModelBody
from .room_handler import RoomAPIHandler


class ModelHandler(RoomAPIHandler):
    """`GET model`: the model that answers and the choices; `PUT model {model}`: a host's
    switch for the next turns."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(await self.room.describe_model(self.identity))

    @web.authenticated
    @authorized
    async def put(self) -> None:
        await self.reply(await self.room.choose_model(self.identity, self.parse(ModelBody).model))


class CatalogHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.room.describe_catalog(self.identity))


class AbortHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.room.abort(self.identity)
        await self.reply({"aborted": True})


class AgentStartHandler(RoomAPIHandler):
    """`POST agent/start`: a host retries starting an agent that is unavailable."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        self.room.start_agent(self.identity)
        await self.reply({"state": "starting"}, status=202)
