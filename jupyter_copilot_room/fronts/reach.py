"""How every front reaches its outside service (Slack, Teams, GitHub): one family of failures its
client raises instead of the service's own errors, and one loop that calls until it answers.

`ServiceWaiting`: the service cannot answer now (unreachable, a rate limit, a 5xx): ask again
after its Retry-After, or back off. `ServiceRefusal`: it answered no (a bad token, a channel the
bot is not in, a 404): asking again changes nothing, so the caller says so."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class ServiceTrouble(Exception):
    """A service did not do what it was asked; `reason` says why, in the log's words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class ServiceWaiting(ServiceTrouble):
    """Try again after `retry_after` seconds, when the service says (a rate limit); None: the
    caller backs off."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.retry_after = retry_after


class ServiceRefusal(ServiceTrouble):
    """The service refused: a bad token (`token`); the channel, which the bot is not in or which
    is gone (`channel`: a mirror's lines wait until it may post there); else this one call (a
    text it will not take, a 404: `status`, the HTTP status where there is one)."""

    def __init__(
        self, reason: str, *, token: bool = False, channel: bool = False, status: int | None = None
    ):
        super().__init__(reason)
        self.token = token
        self.channel = channel
        self.status = status


def retry_seconds(retry_after: str | None) -> float:
    """A 429's Retry-After header in seconds (a date, or none at all: one)."""
    try:
        return max(float(retry_after or 1), 0.0)
    except ValueError:
        return 1.0


async def reach(
    call: Callable[[], Awaitable[T]],
    waited: Callable[[ServiceWaiting, float], None],
    answered: Callable[[], None] = lambda: None,
    *,
    first: float = 1.0,
    cap: float = 60.0,
    floor: float = 0.0,
) -> T:
    """`call()`'s answer, asked until the service gives one: each `ServiceWaiting` waits the
    service's Retry-After, else twice the last backoff (`first`, then doubling up to `cap`),
    never less than `floor`; `waited(waiting, seconds)` is told before each wait (the header
    says so), `answered()` once it answers after a wait. A `ServiceRefusal` goes to the caller."""
    failures = 0
    while True:
        try:
            answer = await call()
        except ServiceWaiting as waiting:
            failures += 1
            backoff = min(first * 2 ** (failures - 1), cap)
            wait = max(backoff if waiting.retry_after is None else waiting.retry_after, floor)
            waited(waiting, wait)
            await asyncio.sleep(wait)
            continue
        if failures:
            answered()
        return answer
