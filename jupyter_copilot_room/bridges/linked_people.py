"""Who a chat user is in the rooms: the configured `people`, or a username they linked
themselves with a one-time code the panel gave them (`link <code>` to the bot; ten minutes).
Links are kept in `<state_dir>/bridges/people.json`, by service and user id."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from pathlib import Path

from ..statefiles import read_json, write_json_atomically

CODE_LASTS = 600.0
_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # nothing read two ways (0/O, 1/I)


class LinkedPeople:
    def __init__(self, file: Path, configured: Mapping[str, Mapping[str, str]]):
        self.file = file
        self._configured = configured  # service -> user id -> username
        self._linked: dict[str, str] = (read_json(file) or {}).get("linked", {})
        self._codes: dict[str, tuple[str, float]] = {}  # code -> (username, issued)

    def username(self, service: str, user: str) -> str | None:
        return self._configured.get(service, {}).get(user) or self._linked.get(f"{service}:{user}")

    def code_for(self, username: str) -> dict:
        """A fresh one-time code for `username` (their older one no longer works)."""
        now = time.monotonic()
        self._codes = {
            c: (u, t) for c, (u, t) in self._codes.items() if u != username and now - t < CODE_LASTS
        }
        code = "".join(secrets.choice(_ALPHABET) for _ in range(8))
        self._codes[code] = (username, now)
        return {"code": code, "expires_in": int(CODE_LASTS)}

    def redeem(self, service: str, user: str, code: str) -> str | None:
        """The username the code links `user` to (the code is spent), or None."""
        issued = self._codes.pop(code.strip().upper(), None)
        if issued is None or time.monotonic() - issued[1] >= CODE_LASTS:
            return None
        self._linked[f"{service}:{user}"] = issued[0]
        write_json_atomically(self.file, {"linked": self._linked})
        return issued[0]
