"""Slack, through the bridge's own client (`fronts/slack/slack_service.py`) at the configured
base URL: the bot token (`auth.test`), the scopes the app's manifest asks for against those
Slack granted it, and Socket Mode with the app token (`apps.connections.open`)."""

from __future__ import annotations

from ..fronts.reach import ServiceRefusal, ServiceWaiting
from ..fronts.slack.slack_service import SlackService
from ..fronts.slack.slack_settings import BOT_SCOPES, SlackSettings
from .finding import Check

REINSTALL = "in the app's settings (api.slack.com/apps), then reinstall it in the workspace"


async def checks(settings: SlackSettings) -> list[Check]:
    bot_token, app_token = settings.tokens()
    unset = [
        Check(name, False, f"{variable} is not set", f"put the {what} in {variable}")
        for name, variable, value, what in (
            ("Slack bot token", settings.bot_token_env, bot_token, "bot's token (xoxb-...)"),
            ("Slack Socket Mode", settings.app_token_env, app_token, "app token (xapp-...)"),
        )
        if not value
    ]
    if unset:
        return unset
    service = SlackService(bot_token, app_token, settings.api_url)
    try:
        return [*await _bot(service, settings), await _socket(service, settings)]
    finally:
        await service.close()


async def _bot(service: SlackService, settings: SlackSettings) -> list[Check]:
    try:
        bot, granted = await service.granted()
    except (ServiceRefusal, ServiceWaiting) as no:
        todo = (
            "put the bot's current token (xoxb-..., under OAuth & Permissions) in "
            f"{settings.bot_token_env}"
        )
        return [_failed("Slack bot token", no, settings.bot_token_env, todo)]
    said = f"the token in {settings.bot_token_env} is the bot {bot}'s"
    missing = [scope for scope in BOT_SCOPES if scope not in granted]
    if missing:
        return [
            Check("Slack bot token", True, said),
            Check(
                "Slack scopes",
                False,
                f"the bot token lacks {', '.join(missing)}",
                f"add {', '.join(missing)} under OAuth & Permissions {REINSTALL} "
                "(docs/hosts.md's manifest lists them all)",
            ),
        ]
    return [
        Check("Slack bot token", True, said),
        Check("Slack scopes", True, f"all the manifest's: {', '.join(BOT_SCOPES)}"),
    ]


async def _socket(service: SlackService, settings: SlackSettings) -> Check:
    try:
        await service.socket_opens()
    except (ServiceRefusal, ServiceWaiting) as no:
        todo = (
            f"put an app-level token with connections:write (xapp-..., under Basic "
            f"Information) in {settings.app_token_env}, and turn Socket Mode on"
        )
        return _failed("Slack Socket Mode", no, settings.app_token_env, todo)
    return Check("Slack Socket Mode", True, f"opens with the app token in {settings.app_token_env}")


def _failed(name: str, no: ServiceRefusal | ServiceWaiting, variable: str, todo: str) -> Check:
    if isinstance(no, ServiceWaiting):
        return Check(name, False, f"Slack cannot be reached ({no})", "see the server's network")
    return Check(name, False, f"Slack refuses the token in {variable} ({no})", todo)
