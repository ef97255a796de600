"""`c.CopilotRoom.slack`, read once and checked at start. Tokens are named by their variable."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...agent.login_variables import not_a_login_variable
from ..chat.chat_settings import rooms_and_people, slashed

SLACK_API = "https://slack.com/api/"
#: The bot scopes the bridge uses, as the app's manifest in docs/hosts.md asks for them:
#: prompts by mention, posting, thread replies (public, private), `link <code>` in a direct
#: message, and people's names.
BOT_SCOPES = (
    "app_mentions:read",
    "chat:write",
    "channels:history",
    "groups:history",
    "im:history",
    "users:read",
)
_KEYS = {"bot_token_env", "app_token_env", "rooms", "people", "api_url"}


@dataclass(frozen=True)
class SlackSettings:
    bot_token_env: str = "SLACK_BOT_TOKEN"
    app_token_env: str = "SLACK_APP_TOKEN"
    rooms: Mapping[str, str] = field(default_factory=dict)  # room name -> channel id
    people: Mapping[str, str] = field(default_factory=dict)  # Slack user id -> room username
    api_url: str = SLACK_API

    def tokens(self) -> tuple[str, str]:
        return os.environ.get(self.bot_token_env, ""), os.environ.get(self.app_token_env, "")


def parse_slack(value: Mapping[str, Any]) -> SlackSettings | None:
    """None when nothing is configured; ValueError naming what is wrong otherwise."""
    if not value:
        return None
    if unknown := sorted(set(value) - _KEYS):
        raise ValueError(f"unknown keys {unknown}; known: {sorted(_KEYS)}")
    rooms, people = rooms_and_people(value)
    bot = str(value.get("bot_token_env") or "SLACK_BOT_TOKEN")
    app = str(value.get("app_token_env") or "SLACK_APP_TOKEN")
    not_a_login_variable("bot_token_env", bot, "the Slack bot's token", "SLACK_BOT_TOKEN")
    not_a_login_variable("app_token_env", app, "the Slack app token", "SLACK_APP_TOKEN")
    return SlackSettings(
        bot_token_env=bot,
        app_token_env=app,
        rooms=rooms,
        people=people,
        api_url=slashed(value.get("api_url") or SLACK_API),
    )
