"""The room settings as a resource: read by those admitted, patched by hosts. The patch
body is derived from the settings' own declaration (`settings.py`), so a setting added there is
served here without a change.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..settings import SettingsPatch
from .room_handler import RoomAPIHandler


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
