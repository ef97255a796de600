"""A host signs the room's runtime in to GitHub Copilot from the panel (demo mode only).

The flow is the runtime's own (see `agent/copilot/signin.py`); the room only runs it, one at a
time. Its address is for hosts: it lives here, served by `GET signin` to hosts, never in the
shared document, the transcript or the log. What the room records is who signed it in and as
whom (`copilot.signed_in`), then the agent starts afresh with the login.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..agent.base import Agent, LoginFlow, SignInFailed
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

    @property
    def state(self) -> str:
        return "failed" if self.error else "waiting"


class SignIn:
    def __init__(
        self,
        agent: Agent | None,
        commit: Callable[[str, str, CopilotSeat], Any],
        idle: Callable[[], bool],
    ):
        self.agent = agent
        self.commit = commit  # records a `copilot.*` record by its actor
        self.idle = idle  # no turn in flight: the agent may start afresh
        self.attempt: Attempt | None = None

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

    async def begin(self, username: str) -> dict:
        if self.attempt is not None and self.attempt.state == "waiting":
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
        return self.describe()

    async def deliver(self, landed: str) -> dict:
        attempt = self.attempt
        if attempt is None or attempt.state != "waiting":
            raise Conflict("No sign-in is waiting for its return.", code="no_signin")
        await attempt.flow.deliver(landed)
        if attempt.task is not None:  # the flow ends (or fails) soon after the return
            await asyncio.wait([attempt.task], timeout=30)
        return self.describe()

    async def cancel(self, username: str) -> dict:
        attempt, self.attempt = self.attempt, None
        if attempt is not None:
            if attempt.task is not None:
                attempt.task.cancel()
            await attempt.flow.cancel()
            log.info("Copilot room: %s cancelled signing in", username)
        return self.describe()

    async def _finish(self, attempt: Attempt) -> None:
        try:
            login = await attempt.flow.finish()
        except SignInFailed as err:
            attempt.error = str(err)
            log.warning("Copilot room: signing in for %s failed: %s", attempt.by, err)
            return
        self.commit("copilot.signed_in", attempt.by, CopilotSeat(login=login))
        if self.attempt is attempt:
            self.attempt = None
        while not self.idle():  # the turn in flight ends with the demo model
            await asyncio.sleep(0.5)
        assert self.agent is not None
        await self.agent.use_login()

    async def sign_out(self, username: str) -> bool:
        if self.agent is None or not await self.agent.sign_out():
            return False
        self.commit("copilot.signed_out", username, CopilotSeat())
        return True
