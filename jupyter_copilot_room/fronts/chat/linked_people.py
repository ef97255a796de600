"""Who a chat user is in the rooms: the configured `people`, or a username they linked
themselves. Linking is the person's own act, in two steps: the panel gives them a one-time code
(ten minutes), the chat user who sends `link <code>` to the bot asks to act as them, and only
the code's owner allows or denies that ask in the panel ("Slack user @mallory asks to act as
you"). A code that leaked therefore links nobody on its own. Wrong codes are limited per chat
user (`WRONG_CODES` in `WRONG_CODES_WINDOW`), so codes cannot be guessed.

Links are kept in `<state_dir>/bridges/people.json`, by service and user id, with the chat
user's name as the service gave it; asks live in memory for their code's ten minutes."""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ...errors import NotFound
from ...statefiles import read_json, write_json_atomically

CODE_LASTS = 600.0
#: Wrong codes a chat user may send in `WRONG_CODES_WINDOW` seconds; more are refused unread.
WRONG_CODES = 5
WRONG_CODES_WINDOW = 600.0
_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # nothing read two ways (0/O, 1/I)


@dataclass(frozen=True)
class LinkAsk:
    """A chat user asking, with a code, to act as `username`; answered where they asked."""

    id: str
    service: str
    user: str  # the service's user id
    name: str  # as the service names them ("@mallory")
    username: str
    channel: str  # where they sent the code (the answer goes there)
    thread: str | None

    def public(self) -> dict:
        return {"id": self.id, "service": self.service, "user": self.user, "name": self.name}


@dataclass(frozen=True)
class Presented:
    """What became of a code a chat user sent: an `ask` for its owner, or why not (`unknown`,
    or `retry_in` seconds while their wrong codes are over the limit)."""

    ask: LinkAsk | None = None
    retry_in: float = 0.0


class LinkedPeople:
    def __init__(self, file: Path, configured: Mapping[str, Mapping[str, str]]):
        self.file = file
        self._configured = configured  # service -> user id -> username
        saved = read_json(file) or {}
        self._linked: dict[str, str] = saved.get("linked", {})  # "service:user" -> username
        self._names: dict[str, str] = saved.get("names", {})  # "service:user" -> chat name
        self._codes: dict[str, tuple[str, float]] = {}  # code -> (username, issued)
        self._asks: dict[str, tuple[LinkAsk, float]] = {}  # id -> (ask, when)
        self._wrong: dict[str, deque[float]] = {}  # "service:user" -> times of wrong codes
        #: Each chat service's way to tell the asker how their ask was answered (and the
        #: owner's display name).
        self.answered: dict[str, Callable[[LinkAsk, bool, str], Awaitable[None]]] = {}

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

    def present(
        self, service: str, user: str, name: str, code: str, channel: str, thread: str | None
    ) -> Presented:
        """A chat user sent `code`: an ask for the code's owner to answer (the code is spent),
        or nothing (an unknown or expired code counts against the sender's wrong codes)."""
        now = time.monotonic()
        wrong = self._wrong.setdefault(f"{service}:{user}", deque())
        while wrong and now - wrong[0] >= WRONG_CODES_WINDOW:
            wrong.popleft()
        if len(wrong) >= WRONG_CODES:
            return Presented(retry_in=WRONG_CODES_WINDOW - (now - wrong[0]))
        issued = self._codes.pop(code.strip().upper(), None)
        if issued is None or now - issued[1] >= CODE_LASTS:
            wrong.append(now)
            return Presented()
        ask = LinkAsk(secrets.token_hex(6), service, user, name, issued[0], channel, thread)
        self._asks[ask.id] = (ask, now)
        return Presented(ask=ask)

    def asks_for(self, username: str) -> list[LinkAsk]:
        """The asks waiting on `username`, oldest first (an ask lasts as long as a code)."""
        now = time.monotonic()
        self._asks = {i: (a, t) for i, (a, t) in self._asks.items() if now - t < CODE_LASTS}
        return [ask for ask, _ in self._asks.values() if ask.username == username]

    def ask(self, username: str, ask_id: str) -> LinkAsk:
        """`username`'s ask `ask_id`; `NotFound` for anyone else's, an answered or an old one."""
        found = next((a for a in self.asks_for(username) if a.id == ask_id), None)
        if found is None:
            raise NotFound("No such ask to act as you waits: it was answered or expired.")
        return found

    def settle(self, ask: LinkAsk, allow: bool) -> None:
        """The owner's answer: the link kept (allow) and the ask gone either way."""
        self._asks.pop(ask.id, None)
        if allow:
            key = f"{ask.service}:{ask.user}"
            self._linked[key], self._names[key] = ask.username, ask.name
            self._save()

    def links_of(self, username: str) -> list[dict]:
        """The chat accounts `username` linked (`{service, user, name}`), not the configured."""
        return [
            {"service": service, "user": user, "name": self._names.get(key, user)}
            for key, linked in self._linked.items()
            if linked == username
            for service, _, user in [key.partition(":")]
        ]

    def unlink(self, username: str, service: str, user: str) -> None:
        """`username`'s link of `service`'s `user` removed (`NotFound` if it is not theirs)."""
        key = f"{service}:{user}"
        if self._linked.get(key) != username:
            raise NotFound(f"You have no linked {service.title()} account {user}.")
        del self._linked[key]
        self._names.pop(key, None)
        self._save()

    def _save(self) -> None:
        write_json_atomically(self.file, {"linked": self._linked, "names": self._names})
