"""The Teams bridge of a server (`c.CopilotRoom.teams`): its rooms' mirrors in their channels,
the front that hears what Teams delivers to `copilot-room/teams/messages` (each call's token
checked first), and what the header says while Teams is not there ("Teams: disconnected",
"Teams: bad token")."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from microsoft_agents.activity import Activity

from ...errors import InvalidRequest, Unauthorized
from ..chat.chat_bridge import ChatBridge
from ..chat.linked_people import LinkedPeople
from .bot_token import BotToken
from .caller_check import CallerCheck
from .teams_service import TeamsService
from .teams_settings import TeamsSettings

if TYPE_CHECKING:
    from ...api import RoomsAPI

log = logging.getLogger(__name__)


class TeamsBridge(ChatBridge[TeamsService]):
    def __init__(self, settings: TeamsSettings, rooms: RoomsAPI, people: LinkedPeople, state: Path):
        self.settings = settings
        self.callers = CallerCheck(settings.app_id, settings.openid_url)
        super().__init__(TeamsService(BotToken(settings)), rooms, people, settings.rooms, state)

    async def _run(self) -> None:
        """The bot's credentials, asked until Entra ID answers (a wrong secret is said once, not
        asked again), then the mirrors."""
        if refusal := await self.links.reach(self.service.tokens.get):
            log.error(
                "Teams: %s (app %s, secret $%s); the bridge is off.",
                refusal,
                self.settings.app_id,
                self.settings.secret_env,
            )
            return
        self.links.start()

    async def hear(self, authorization: str, body: bytes) -> None:
        """A call to the messaging endpoint: `Unauthorized` unless Teams made it, for this bot,
        in this tenant, from the connector its token names; then handled after the answer
        (Teams waits 15 seconds at most)."""
        service_url = await self.callers.verify(authorization)
        try:
            activity = Activity.model_validate_json(body)
        except (ValueError, RecursionError):
            raise InvalidRequest(
                "An activity is a JSON object, as Bot Framework sends it."
            ) from None
        if _url(activity.service_url) != _url(service_url):
            raise Unauthorized("The call's token was issued for another service URL.")
        tenant = activity.conversation.tenant_id if activity.conversation else None
        if activity.channel_id != "msteams" or tenant != self.settings.tenant_id:
            raise Unauthorized("Only Teams in the bot's own tenant is heard.")
        self.front.take(activity.type, self.service.hear(self.front, activity))


def _url(value: object) -> str:
    return str(value or "").rstrip("/").lower()
