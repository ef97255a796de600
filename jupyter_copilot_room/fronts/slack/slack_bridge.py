"""The Slack bridge of a server (`c.CopilotRoom.slack`): its rooms' mirrors in their channels,
the front that hears people, and what the header says while Slack is not there ("Slack:
disconnected", "Slack: bad token")."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ..chat.chat_bridge import ChatBridge
from ..chat.linked_people import LinkedPeople
from .slack_service import SlackService
from .slack_settings import SlackSettings

if TYPE_CHECKING:
    from ...api import RoomsAPI

log = logging.getLogger(__name__)

#: Seconds between two looks at whether the socket is connected.
WATCH_EVERY = 1.0


class SlackBridge(ChatBridge[SlackService]):
    def __init__(self, settings: SlackSettings, rooms: RoomsAPI, people: LinkedPeople, state: Path):
        self.settings = settings
        bot, app = settings.tokens()
        super().__init__(
            SlackService(bot, app, settings.api_url), rooms, people, settings.rooms, state
        )

    async def _run(self) -> None:
        if refusal := await self.links.reach(lambda: self.service.connect(self.front)):
            log.error(
                "Slack refused the room's tokens ($%s, $%s): %s; the bridge is off.",
                self.settings.bot_token_env,
                self.settings.app_token_env,
                refusal,
            )
            return
        self.links.start()
        while True:  # the SDK reconnects; the header says when it is not connected
            self.links.say(None if await self.service.connected() else "disconnected")
            await asyncio.sleep(WATCH_EVERY)
