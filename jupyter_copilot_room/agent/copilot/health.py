"""Two hangs the runtime does not report, noticed here. A runtime that died, or lives but no
longer answers (stopped, hung), would leave its turn waiting forever: a periodic probe pings it,
and one that does not answer is reported as lost (the room fails the turn it had and calls
`restart`, the only restart there is). A model endpoint that goes silent mid-call is waited on
by the runtime forever too: every runtime event while a model call is open re-arms a timer of
`model_timeout` seconds, and when it runs out the turn fails with that reason rather than at the
turn's deadline. The agent says what each means to the room; this module only notices.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from .connection import Connection
from .translate import EventTranslator


class Watchdog:
    """`connection()` is the runtime to probe (None while it (re)connects); `lost()` runs when
    it stops answering, `silent()` when an open model call of a running turn went quiet."""

    #: Seconds between health probes (pings) of the runtime.
    probe_interval = 2.0
    #: Seconds a probe waits for the runtime's answer before calling it dead.
    probe_timeout = 3.0

    def __init__(
        self,
        model_timeout: float,
        translator: EventTranslator,
        *,
        connection: Callable[[], Connection | None],
        lost: Callable[[], Awaitable[None]],
        silent: Callable[[], Awaitable[None]],
    ):
        self.model_timeout = model_timeout
        self._translator = translator  # read only: whether a turn runs
        self._connection, self._lost, self._silent = connection, lost, silent
        self._model_calls = 0  # model calls started and not finished in this turn
        self._silence: asyncio.TimerHandle | None = None  # fails a turn whose model went quiet
        self._tasks: list[asyncio.Task] = []

    async def probe(self) -> None:
        """Probe the runtime; when it is gone, say so (the room restarts it)."""
        while True:
            await asyncio.sleep(self.probe_interval)
            connection = self._connection()
            if connection is None:
                continue
            if await connection.alive(self.probe_timeout):
                continue
            await self._lost()

    def begin_turn(self) -> None:
        self._model_calls = 0

    def saw(self, name: str) -> None:
        """While a model call is open, every runtime event re-arms the silence timer."""
        if name == "model.call_start":
            self._model_calls += 1
        elif name == "model.call_finished":
            self._model_calls = max(0, self._model_calls - 1)
        if self._silence is not None:
            self._silence.cancel()
            self._silence = None
        if self._model_calls and self._translator.busy:
            self._silence = asyncio.get_running_loop().call_later(
                self.model_timeout,
                lambda: self._tasks.append(asyncio.create_task(self._went_silent())),
            )

    async def _went_silent(self) -> None:
        self._silence = None
        if not self._translator.busy:
            return
        await self._silent()

    def cancel(self) -> None:
        """The agent stops: a silence being reported is not reported any more."""
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
