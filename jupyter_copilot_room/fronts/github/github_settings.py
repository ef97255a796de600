"""`c.CopilotRoom.github`, read once and checked at start: a wrong value stops the server saying
what is wrong, never at the first comment. Secrets are named by their environment variable."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...agent.login_variables import not_a_login_variable
from ...api.person import vouchable

GITHUB_API = "https://api.github.com"
#: The variable of the room's GitHub token when `token_env` names none: not one the Copilot
#: login reads (`agent/login_variables.py`), so the PR bot's token never becomes the seat.
TOKEN_ENV = "COPILOT_ROOM_GITHUB_TOKEN"
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_KEYS = {
    "token_env",
    "api_url",
    "repository",
    "poll_interval",
    "webhook_secret_env",
    "people",
    "match_logins",
    "max_rounds",
    "seat_check",
}


@dataclass(frozen=True)
class SeatCheck:
    """Only people with an active Copilot seat in `org` may prompt or come in."""

    org: str
    token_env: str


@dataclass(frozen=True)
class GitHubSettings:
    repository: str = ""  # "owner/name"; "" with only a seat check configured
    token_env: str = TOKEN_ENV
    api_url: str = GITHUB_API
    poll_interval: float = 15.0
    webhook_secret_env: str | None = None
    people: Mapping[str, str] = field(default_factory=dict)  # GitHub login -> room username
    match_logins: bool = False  # an unmapped login acts as the room username of the same name
    max_rounds: int = 6
    seat_check: SeatCheck | None = None

    def token(self) -> str | None:
        return os.environ.get(self.token_env) or None

    def webhook_secret(self) -> str | None:
        return os.environ.get(self.webhook_secret_env) if self.webhook_secret_env else None

    def username_of(self, login: str) -> str | None:
        """The room username a GitHub login acts as: `people`'s; else, with `match_logins` (safe
        only on a hub that signs people in with GitHub), the same name; else None: nobody. A
        login that a username shares by chance must not act as that person. Never the
        server's own token's."""
        username = self.people.get(login, login if self.match_logins else None)
        return username if username is not None and vouchable(username) else None

    def login_of(self, username: str) -> str | None:
        """The GitHub login that acts as `username` (`username_of` read backwards), so a
        post names a person as GitHub readers know them; None: no login does."""
        login = next((login for login, name in self.people.items() if name == username), None)
        if login is None and self.match_logins and username not in self.people:
            login = username
        return login if login is not None and self.username_of(login) == username else None


def parse_github(value: Mapping[str, Any]) -> GitHubSettings | None:
    """None when nothing is configured; ValueError naming the wrong key otherwise."""
    if not value:
        return None
    if unknown := sorted(set(value) - _KEYS):
        raise ValueError(f"unknown keys {unknown}; known: {sorted(_KEYS)}")
    repository = value.get("repository") or ""
    if repository and not _REPOSITORY.fullmatch(repository):
        raise ValueError(f"repository {repository!r} is not 'owner/name'")
    seat = value.get("seat_check")
    if not repository and not seat:
        raise ValueError("needs a 'repository' (owner/name), a 'seat_check', or both")
    interval = float(value.get("poll_interval", 15))
    rounds = int(value.get("max_rounds", 6))
    if interval <= 0 or rounds < 1:
        raise ValueError("poll_interval must be above 0 and max_rounds at least 1")
    match_logins = value.get("match_logins", False)
    if not isinstance(match_logins, bool):
        raise ValueError("match_logins is true or false")
    people = value.get("people") or {}
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in people.items()):
        raise ValueError("people maps GitHub logins to room usernames, both strings")
    token_env = str(value.get("token_env") or TOKEN_ENV)
    not_a_login_variable("token_env", token_env, "the PR bot's token", TOKEN_ENV)
    return GitHubSettings(
        repository=repository,
        token_env=token_env,
        api_url=str(value.get("api_url") or GITHUB_API).rstrip("/"),
        poll_interval=interval,
        webhook_secret_env=value.get("webhook_secret_env") or None,
        people=dict(people),
        match_logins=match_logins,
        max_rounds=rounds,
        seat_check=_seat_check(seat) if seat else None,
    )


def _seat_check(seat: Mapping[str, Any]) -> SeatCheck:
    if not isinstance(seat, Mapping) or not seat.get("org"):
        raise ValueError("seat_check needs {'org': ..., 'token_env': ...}")
    token_env = str(seat.get("token_env") or TOKEN_ENV)
    not_a_login_variable(
        "seat_check's token_env", token_env, "the seat check's token", "GITHUB_ADMIN_TOKEN"
    )
    return SeatCheck(org=str(seat["org"]), token_env=token_env)
