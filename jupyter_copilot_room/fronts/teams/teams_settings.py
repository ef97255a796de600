"""`c.CopilotRoom.teams`, read once and checked at start. The secret is named by its variable."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...agent.login_variables import not_a_login_variable
from ..chat.chat_settings import rooms_and_people, slashed

#: Where a bot gets its tokens (Entra ID), where Teams publishes the keys that sign its calls to
#: the bot (Bot Framework), and the connector a bot posts to before Teams has called it.
LOGIN_URL = "https://login.microsoftonline.com/"
OPENID_URL = "https://login.botframework.com/v1/.well-known/openidconfiguration"
SERVICE_URL = "https://smba.trafficmanager.net/teams/"
_KEYS = {
    "app_id",
    "tenant_id",
    "secret_env",
    "rooms",
    "people",
    "service_url",
    "login_url",
    "openid_url",
}


@dataclass(frozen=True)
class TeamsSettings:
    app_id: str  # the bot's Microsoft App ID (its Entra app registration)
    tenant_id: str
    secret_env: str = "TEAMS_APP_SECRET"
    rooms: Mapping[str, str] = field(default_factory=dict)  # room name -> channel id (19:...)
    people: Mapping[str, str] = field(default_factory=dict)  # Entra object id -> room username
    service_url: str = SERVICE_URL
    login_url: str = LOGIN_URL
    openid_url: str = OPENID_URL

    def secret(self) -> str:
        return os.environ.get(self.secret_env, "")


def parse_teams(value: Mapping[str, Any]) -> TeamsSettings | None:
    """None when nothing is configured; ValueError naming what is wrong otherwise."""
    if not value:
        return None
    if unknown := sorted(set(value) - _KEYS):
        raise ValueError(f"unknown keys {unknown}; known: {sorted(_KEYS)}")
    for key in ("app_id", "tenant_id"):
        if not isinstance(value.get(key), str) or not value[key]:
            raise ValueError(f"{key} is required (the bot's Entra app registration)")
    rooms, people = rooms_and_people(value)
    secret_env = str(value.get("secret_env") or "TEAMS_APP_SECRET")
    not_a_login_variable("secret_env", secret_env, "the Teams app's secret", "TEAMS_APP_SECRET")
    return TeamsSettings(
        app_id=value["app_id"],
        tenant_id=value["tenant_id"],
        secret_env=secret_env,
        rooms=rooms,
        people=people,
        service_url=slashed(value.get("service_url") or SERVICE_URL),
        login_url=slashed(value.get("login_url") or LOGIN_URL),
        openid_url=str(value.get("openid_url") or OPENID_URL),
    )
