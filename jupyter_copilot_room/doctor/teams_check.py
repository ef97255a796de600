"""Teams: the bot's token from Entra ID through the bridge's own MSAL client
(`fronts/teams/bot_token.py`) at the configured authority, and the messaging endpoint's public
address, which Microsoft's cloud calls over HTTPS."""

from __future__ import annotations

from urllib.parse import urlparse

from ..fronts.reach import ServiceRefusal, ServiceWaiting
from ..fronts.teams.bot_token import BotToken
from ..fronts.teams.teams_settings import TeamsSettings
from .finding import Check

ENDPOINT = "copilot-room/teams/messages"
LOOPBACK = ("localhost", "127.0.0.1", "::1")


async def checks(settings: TeamsSettings, public_url: str) -> list[Check]:
    return [await _token(settings), _endpoint(public_url)]


async def _token(settings: TeamsSettings) -> Check:
    name = "Teams token"
    if not settings.secret():
        return Check(
            name,
            False,
            f"{settings.secret_env} is not set",
            f"put the client secret of the app {settings.app_id} in {settings.secret_env}",
        )
    try:
        await BotToken(settings).get()
    except ServiceWaiting as no:
        return Check(name, False, f"Entra ID cannot be reached ({no})", "see the server's network")
    except ServiceRefusal as no:
        return Check(
            name,
            False,
            str(no),
            f"check app_id and tenant_id, and put a current client secret of the app in "
            f"{settings.secret_env}",
        )
    return Check(name, True, f"Entra ID gives the app {settings.app_id} its token")


def _endpoint(public_url: str) -> Check:
    name = "Teams endpoint"
    if not public_url:
        return Check(
            name,
            False,
            "the server's public address is not configured, so Teams' messaging endpoint is "
            "not known here",
            "set c.ServerApp.custom_display_url to the https address people reach the server at "
            "(JupyterHub's public_url says it on a hub), and the bot's messaging endpoint to it "
            f"followed by {ENDPOINT}",
        )
    endpoint = public_url + ENDPOINT
    address = urlparse(endpoint)
    if address.scheme != "https" or address.hostname in LOOPBACK:
        return Check(
            name,
            False,
            f"{endpoint} is not a public https address, which Teams needs",
            "serve the server over https at a public name (the hub's proxy does), and set the "
            "bot's messaging endpoint to it",
        )
    return Check(name, True, f"set the bot's messaging endpoint to {endpoint}")
