"""Who has an active Copilot seat in the organisation (`c.CopilotRoom.github["seat_check"]`), as
the admission order asks it (`access/admissions.py`): answers are kept for an hour, asked in the
background (the order is asked synchronously), and GitHub's silence is said, never guessed."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable

from ..fronts.github.github_rest import GitHubRest
from ..fronts.github.github_settings import GitHubSettings
from ..fronts.reach import ServiceTrouble
from .admissions import SeatWord

log = logging.getLogger(__name__)

#: Seconds an answer holds; GitHub's silence is asked again sooner.
ANSWER_LASTS, SILENCE_LASTS = 3600.0, 60.0


class CopilotSeats:
    def __init__(self, rest: GitHubRest, org: str, logins: dict[str, str]):
        self.rest = rest
        self.org = org
        self._logins = logins  # room username -> GitHub login, where they differ
        self._answers: dict[str, tuple[SeatWord, float]] = {}
        self._asking: dict[str, asyncio.Task] = {}
        #: Called with a username once their answer is in (the rooms show them again).
        self.on_answer: Callable[[str], None] = lambda username: None

    @classmethod
    def configured(cls, settings: GitHubSettings | None) -> CopilotSeats | None:
        check = settings.seat_check if settings else None
        if settings is None or check is None:
            return None
        rest = GitHubRest(os.environ.get(check.token_env, ""), settings.api_url)
        return cls(rest, check.org, {user: login for login, user in settings.people.items()})

    def word(self, username: str) -> SeatWord:
        answer = self._answers.get(username)
        lasts = SILENCE_LASTS if answer and answer[0] == "unknown" else ANSWER_LASTS
        if answer is not None and time.monotonic() - answer[1] < lasts:
            return answer[0]
        self._ask(username)
        return answer[0] if answer is not None else "asking"  # the last word while asking again

    async def settled(self, username: str) -> None:
        if self.word(username) == "asking" and (asking := self._asking.get(username)):
            await asyncio.shield(asking)

    def _ask(self, username: str) -> None:
        if username in self._asking:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # asked outside the server's loop (a script): asked again from inside
        self._asking[username] = loop.create_task(self._check(username))

    async def _check(self, username: str) -> None:
        login = self._logins.get(username, username)
        word: SeatWord
        try:
            word = "seat" if await self.rest.has_copilot_seat(self.org, login) else "none"
        except ServiceTrouble as silence:
            log.warning(
                "GitHub could not say whether %s has a Copilot seat in %s (%s); the room's "
                "admission policy decides.",
                login,
                self.org,
                silence,
            )
            word = "unknown"
        finally:
            self._asking.pop(username, None)
        self._answers[username] = (word, time.monotonic())
        self.on_answer(username)
