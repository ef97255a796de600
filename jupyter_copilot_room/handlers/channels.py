"""The room's channel in a bridged chat service (`PUT channels/{service}` `{"channel"}`,
`DELETE channels/{service}`): hosts link it from the panel; the configuration's `rooms` are the
starting links."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import ChannelBody
from .room_handler import RoomAPIHandler


class ChannelLinkHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def put(self, service: str) -> None:
        body = self.parse(ChannelBody)
        await self.reply(await self.room.links.link_channel(self.identity, service, body.channel))

    @web.authenticated
    @authorized
    async def delete(self, service: str) -> None:
        await self.room.links.unlink_channel(self.identity, service)
        await self.reply_empty()
