"""The disk the room records on: whether it is full, and noticing when space returns.

A record the transcript cannot write for lack of space raises `InsufficientStorage` (HTTP 507)
with the file left as it was, so the command is refused and nothing changes. From then on the
watch looks at the state directory's free space every `interval` seconds; once there is some
again it tells its listeners, and the room carries on by itself: waiting prompts start, and a
turn the full disk cut short is recorded as failed. Nothing is written blindly in between: the
next command simply tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

from ...errors import InsufficientStorage

log = logging.getLogger(__name__)

#: Free bytes that count as "space again": a few records' worth (most are under 1 KiB).
HEADROOM = 64 * 1024


def no_space(directory: Path) -> InsufficientStorage:
    """The refusal of a command the full disk holding `directory` keeps the room from recording
    (or, for an abort, from carrying out)."""
    return InsufficientStorage(
        f"The disk that holds the room's state ({directory}) is full, so the room could not "
        "record this and changed nothing. Free some space there (or ask whoever runs the server "
        "to); the room carries on by itself once there is room again."
    )


class StorageWatch:
    def __init__(self, path: Path, interval: float = 1.0, headroom: int = HEADROOM):
        self.path = path
        self.interval = interval
        self.headroom = headroom
        self.full = False
        #: Records that could not be written for lack of space, since the server started.
        self.refusals = 0
        self._listeners: list[Callable[[], None]] = []
        self._poll: asyncio.Task | None = None

    def on_space(self, listener: Callable[[], None]) -> None:
        """`listener()` runs when space returns after the disk was full."""
        self._listeners.append(listener)

    def ran_out(self) -> None:
        """A record could not be written: watch for space from now on."""
        self.refusals += 1
        if not self.full:
            log.error(
                "Copilot room: the disk holding %s is full; commands are refused (507) until "
                "there is space again.",
                self.path,
            )
        self.full = True
        if self._poll is None or self._poll.done():
            with contextlib.suppress(RuntimeError):  # no loop: the next write finds out
                self._poll = asyncio.get_running_loop().create_task(self._wait_for_space())

    def wrote(self) -> None:
        """A record was written: the disk is not full (whatever the watch last saw)."""
        if self.full:
            self._space_back()

    def free_bytes(self) -> int:
        stats = os.statvfs(self.path)
        return stats.f_bavail * stats.f_frsize

    async def _wait_for_space(self) -> None:
        while self.full:
            await asyncio.sleep(self.interval)
            try:
                if self.free_bytes() >= self.headroom:
                    self._space_back()
            except OSError:
                log.debug("Could not read the free space of %s", self.path, exc_info=True)

    def _space_back(self) -> None:
        self.full = False
        log.warning("Copilot room: there is space again on the disk holding %s.", self.path)
        for listener in self._listeners:
            try:
                listener()
            except Exception:
                log.exception("A listener of the room's storage failed")

    async def stop(self) -> None:
        if self._poll is not None:
            self._poll.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poll
