"""The room settings as a resource: read by those admitted, patched by hosts. The patch
body is derived from the settings' own declaration (`settings.py`), so a setting added there is
served here without a change. Beside them, for hosts, the server's setup checked (`GET doctor`),
which the settings dialog is to show.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..settings import SettingsPatch
from .room_handler import RoomAPIHandler


class DoctorHandler(RoomAPIHandler):
    """`GET doctor`: `jupyter copilot-room doctor`'s report, for hosts."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(await self.rooms.check_setup(self.identity))


class SettingsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.room.get_settings(self.identity))

    @web.authenticated
    @authorized
    async def patch(self) -> None:
        patch = self.parse(SettingsPatch)
        await self.reply(self.room.patch_settings(self.identity, patch))
