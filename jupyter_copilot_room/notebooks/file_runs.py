"""Runs into a notebook nobody has open: the outputs go into the loaded file, which is saved
when the run ends, however it ends. An aborted turn cancels the run; a save cut short mid-write
would leave an empty file, so the save is shielded, and the room's stop waits for it."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class FileRuns:
    def __init__(self) -> None:
        self._runs: set[asyncio.Task] = set()
        self._saving: set[asyncio.Future] = set()

    async def run(self, work: Awaitable[T], save: Callable[[], Awaitable[None]]) -> T:
        """`work`, then `save()` whether it finished, failed or was cancelled."""
        self._runs.add(run := asyncio.current_task())  # type: ignore[arg-type]
        try:
            return await work
        finally:
            self._runs.discard(run)
            saving = asyncio.ensure_future(save())
            self._saving.add(saving)
            saving.add_done_callback(self._saving.discard)
            await asyncio.shield(saving)

    async def stop(self) -> None:
        """The server stops: the runs still going end now, and their files are written when
        this returns (nothing is left for the loop's end)."""
        for run in self._runs:
            run.cancel()
        await asyncio.gather(*self._runs, return_exceptions=True)
        await asyncio.gather(*self._saving, return_exceptions=True)
