"""Teams' messaging endpoint, `copilot-room/teams/messages`: Teams posts each activity here,
proving itself by a Bot Framework token (checked by the bridge), not by a Jupyter login (Teams
holds none). A hub admin exposes this one route to Teams (docs/hosts.md)."""

from __future__ import annotations

from jupyter_server.auth.decorator import allow_unauthenticated

from .outside_calls import OutsideCallHandler

#: The largest activity taken; a message's is far smaller (Teams caps a message near 28 KB).
MAX_ACTIVITY = 2**20


class TeamsMessagesHandler(OutsideCallHandler):
    max_body = MAX_ACTIVITY

    @allow_unauthenticated
    async def post(self) -> None:
        await self.rooms.hear_teams(self.request.headers.get("Authorization", ""), self.body)
        self.set_status(202)  # taken: the bridge handles it after the answer, as Teams expects
        self.finish()
