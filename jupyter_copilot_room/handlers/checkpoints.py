"""A turn's checkpoint as a resource: its diff to read and its revert. Both name the
checkpoint by its commit; the room's checkpoints (`checkpoints/turn_checkpoints.py`) refuse
anything that is not one of theirs, so a commit hash from elsewhere in the repository is a 404.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..request_bodies import RevertBody
from .room_handler import RoomAPIHandler


class CheckpointDiffHandler(RoomAPIHandler):
    """`GET checkpoints/<commit>/diff`: a turn's checkpoint as a unified diff (members, hosts)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        await self.reply(await self.room.checkpoint_diff(self.identity, item_id))


class CheckpointRevertHandler(RoomAPIHandler):
    """`POST checkpoints/<commit>/revert`: the turn's files back as before it (409 with the
    conflicting files if they changed since in the same places; nothing changed then)."""

    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(RevertBody)
        await self.reply(await self.room.revert(self.identity, item_id, force=body.force))
