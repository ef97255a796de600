"""A host signs the room's runtime in to GitHub Copilot from the panel (demo mode only).

The flow is the runtime's own (see `agent/copilot/login_flow.py`); the room only runs it, one at a
time. Its address is for hosts: it lives here, served by `GET signin` to hosts, never in the
shared document, the transcript or the log. What the room records is who signed it in and as
whom (`copilot.signed_in`), then the agent starts afresh with the login. On a server with no
keychain the runtime asks before it keeps the token in plain text in the room's state directory:
a host allows it (`allow`) or cancels. A flow left open longer than `signin_timeout` is
cancelled, and the card says so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..agent.seam import Agent, ConsentNeeded, LoginFlow, SignInFailed
from ..errors import Conflict
from ..events import CopilotSeat

log = logging.getLogger(__name__)

NOT_DEMO = (
    "The room already reaches a model (a provider or a Copilot login), or its agent is not "
    "ready: there is nothing to sign in to."
)


@dataclass
class Attempt:
    by: str
    flow: LoginFlow
    url: str = ""
    error: str = ""
    task: asyncio.Task | None = None
    consent: bool = False  # the runtime asks before keeping the token in plain text
    expiry: asyncio.TimerHandle | None = None

    @property
    def state(self) -> str:
        return "failed" if self.error else "consent" if self.consent else "waiting"

    def end(self, error: str = "") -> None:
        self.error = self.error or error
        self.consent = False
        if self.expiry is not None:
            self.expiry.cancel()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()


class SignIn:
    def __init__(
        self,
        agent: Agent | None,
        commit: Callable[[str, str, CopilotSeat], Any],
        idle: Callable[[], Awaitable[None]],
    ):
        self.agent = agent
        self.commit = commit  # records a `copilot.*` record by its actor
        self.idle = idle  # once no turn is in flight: the agent may start afresh
        self.attempt: Attempt | None = None
        self.restart: asyncio.Task | None = None  # the agent starting afresh with the login

    def describe(self) -> dict:
        """For hosts only: whether sign-in is offered and the flow in hand."""
        offered = self.agent is not None and self.agent.login_flow() is not None
        attempt = self.attempt
        if attempt is None:
            return {"state": "idle", "offered": offered}
        return {
            "state": attempt.state,
            "offered": offered,
            "by": attempt.by,
            "url": attempt.url,
            "callback": attempt.flow.callback,
            "error": attempt.error,
        }

    @property
    def timeout(self) -> float:
        return self.agent.settings.signin_timeout if self.agent is not None else 600.0

    async def begin(self, username: str) -> dict:
        if self.attempt is not None and self.attempt.state != "failed":
            return self.describe()  # another host's click: the same flow
        flow = self.agent.login_flow() if self.agent is not None else None
        if flow is None:
            raise Conflict(NOT_DEMO, code="not_in_demo_mode")
        attempt = self.attempt = Attempt(username, flow)
        try:
            attempt.url = await flow.begin()
        except Exception as err:
            attempt.error = f"The runtime could not begin signing in: {err}"
            log.warning("Copilot room: %s could not begin signing in: %s", username, err)
            return self.describe()
        log.info("Copilot room: %s began signing the room in to GitHub Copilot", username)
        attempt.task = asyncio.create_task(self._finish(attempt))
        attempt.expiry = asyncio.get_running_loop().call_later(self.timeout, self._expire, attempt)
        return self.describe()

    async def deliver(self, landed: str) -> dict:
        attempt = self.attempt
        if attempt is None or attempt.state != "waiting":
            raise Conflict("No sign-in is waiting for its return.", code="no_signin")
        await attempt.flow.deliver(landed)
        if attempt.task is not None:  # the flow ends (or fails) soon after the return
            await asyncio.wait([attempt.task], timeout=30)
        return self.describe()

    async def allow(self, username: str) -> dict:
        """A host lets the runtime keep the login in plain text in the room's state directory."""
        attempt = self.attempt
        if attempt is None or attempt.state != "consent":
            raise Conflict("No sign-in is waiting for consent.", code="no_signin_consent")
        attempt.consent = False
        log.info(
            "Copilot room: %s allowed the runtime to keep the Copilot login in plain text",
            username,
        )
        attempt.task = asyncio.create_task(self._finish(attempt, attempt.flow.allow))
        await asyncio.wait([attempt.task], timeout=30)
        return self.describe()

    async def cancel(self, username: str) -> dict:
        attempt, self.attempt = self.attempt, None
        if attempt is not None:
            attempt.end()
            await attempt.flow.cancel()
            log.info("Copilot room: %s cancelled signing in", username)
        return self.describe()

    async def stop(self) -> None:
        """The server stops: an open flow ends before the runtime does, so no wait on the
        runtime is left for its reader thread to fail once the loop has closed."""
        attempt = self.attempt
        if attempt is not None:
            attempt.end("The server stopped during the sign-in.")  # cancels its task
        if self.restart is not None:
            self.restart.cancel()
        tasks = [t for t in (self.restart, attempt.task if attempt else None) if t is not None]
        await asyncio.gather(*tasks, return_exceptions=True)

    def _expire(self, attempt: Attempt) -> None:
        if self.attempt is not attempt or attempt.state == "failed":
            return
        left = duration(self.timeout)
        attempt.end(
            f"The sign-in was left open for {left}, so the room cancelled it. Sign in again "
            "when you are ready."
        )
        attempt.task = asyncio.ensure_future(attempt.flow.cancel())
        log.info("Copilot room: the sign-in %s began was cancelled after %s", attempt.by, left)

    async def _finish(self, attempt: Attempt, step: Callable[[], Any] | None = None) -> None:
        try:
            login = await (step or attempt.flow.finish)()
        except ConsentNeeded:
            attempt.consent = True
            log.info("Copilot room: the runtime asks before keeping the login in plain text")
            return
        except SignInFailed as err:
            attempt.end(str(err))
            log.warning("Copilot room: signing in for %s failed: %s", attempt.by, err)
            return
        attempt.end()
        self.commit("copilot.signed_in", attempt.by, CopilotSeat(login=login))
        if self.attempt is attempt:
            self.attempt = None
        self.restart = asyncio.create_task(self._use_login())

    async def _use_login(self) -> None:
        await self.idle()  # the turn in flight ends with the demo model
        assert self.agent is not None
        await self.agent.use_login()

    async def sign_out(self, username: str) -> bool:
        if self.restart is not None:  # the agent is starting with a login just made: that one
            await self.restart
        if self.agent is None or not await self.agent.sign_out():
            return False
        self.commit("copilot.signed_out", username, CopilotSeat())
        return True


def duration(seconds: float) -> str:
    """'10 minutes', '1 minute', '5 seconds'."""
    amount, unit = (seconds / 60, "minute") if seconds >= 60 else (seconds, "second")
    return f"{amount:g} {unit}{'' if amount == 1 else 's'}"
