"""One run's own connection to a notebook's kernel, and the rules of talking to it safely. The
kernel is shared with the people in the notebook, so the link waits for their execution rather
than interleaving with it, opens a client under a session of its own (a borrowed one would steal
a person's replies), keeps asking until the kernel is really heard, and checks between messages
that the kernel is still alive and the same process: a kernel that dies or restarts mid-run is a
clear failure, a cell past the room's execution timeout is interrupted, and a stopped turn ends
the wait at once. `execution.py` decides which kernel and when; this module owns the talking.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import time
from collections.abc import Awaitable, Callable
from typing import Any

from jupyter_client.session import Session

from .cell_sink import RunningCell
from .tools import NotebookToolError

#: Seconds between checks of the kernel (alive, same process, abort asked) while a cell runs.
POLL = 0.2


class KernelGone(NotebookToolError):
    """The kernel died or restarted: the run cannot go on."""


class KernelLink:
    """The kernel `km` of the notebook at `path`, for one run: `stop` is set when the turn is
    stopped, `report(state)` tells the room the kernel's state, `interrupt()` interrupts it,
    `timeout()` is the room's execution timeout now."""

    def __init__(
        self,
        path: str,
        km: Any,
        stop: asyncio.Event,
        *,
        report: Callable[[str], None],
        interrupt: Callable[[], Awaitable[None]],
        timeout: Callable[[], float],
    ):
        self.path, self.km, self.stop = path, km, stop
        self._report, self._interrupt, self._timeout = report, interrupt, timeout
        self.client: Any = None

    def open(self) -> None:
        """A client of our own, its channels started."""
        self.client = self.km.client(session=_own_session(self.km))
        self.client.start_channels()

    def close(self) -> None:
        if self.client is not None:
            self.client.stop_channels()

    async def execute(self, cell: RunningCell) -> None:
        """One cell: its iopub messages into the sink until the kernel is idle again."""
        pid = _pid(self.km)
        timeout = self._timeout()
        deadline = time.monotonic() + timeout
        while not cell.done:
            if self.stop.is_set():  # `interrupt` has interrupted the kernel
                await self.drain(cell)
                raise NotebookToolError(
                    "The turn was stopped, so the kernel was interrupted mid-cell."
                )
            if time.monotonic() > deadline:
                await self._interrupt()
                await self.drain(cell)
                raise NotebookToolError(
                    f"The cell ran longer than {timeout:.0f} s (the room's execution timeout), "
                    "so the kernel was interrupted."
                )
            try:
                cell.take(await self.client.get_iopub_msg(timeout=POLL))
            except queue.Empty:
                await self._check_alive(pid)

    async def drain(self, cell: RunningCell, seconds: float = 1.5) -> None:
        """After an interrupt: the cell's last outputs (its KeyboardInterrupt) until idle."""
        until = time.monotonic() + seconds
        with contextlib.suppress(Exception):
            while not cell.done and time.monotonic() < until:
                with contextlib.suppress(queue.Empty):
                    cell.take(await self.client.get_iopub_msg(timeout=POLL))

    async def reply(self, msg_id: str) -> dict:
        """The shell reply to our request, within the room's execution timeout."""
        pid = _pid(self.km)
        timeout = self._timeout()
        deadline = time.monotonic() + timeout
        while True:
            if self.stop.is_set():
                raise NotebookToolError("The turn was stopped, so the kernel was interrupted.")
            if time.monotonic() > deadline:
                await self._interrupt()
                raise NotebookToolError(
                    f"The kernel took longer than {timeout:.0f} s (the room's execution timeout) "
                    "to answer, so it was interrupted."
                )
            try:
                msg = await self.client.get_shell_msg(timeout=POLL)
            except queue.Empty:
                await self._check_alive(pid)
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg["content"]

    async def connect(self) -> None:
        """Until a kernel_info request's status comes back on iopub, the new iopub subscription
        may miss messages (ZeroMQ's slow joiner): ask until it does."""
        deadline = time.monotonic() + 30
        pid = _pid(self.km)
        while time.monotonic() < deadline and not self.stop.is_set():
            msg_id = self.client.kernel_info()
            until = time.monotonic() + 1.0
            while time.monotonic() < until:
                try:
                    msg = await self.client.get_iopub_msg(timeout=0.1)
                except queue.Empty:
                    await self._check_alive(pid)
                    continue
                if msg["parent_header"].get("msg_id") == msg_id:
                    return
        raise KernelGone(f"The kernel of {self.path} did not answer; nothing was run.")

    async def wait_for_idle(self) -> None:
        """A person's execution is running: wait for it rather than interleave."""
        pid = _pid(self.km)
        while self.km.execution_state == "busy" and not self.stop.is_set():
            self._report("waiting")
            await asyncio.sleep(POLL / 2)
            await self._check_alive(pid)
        if self.stop.is_set():
            raise NotebookToolError("The turn was stopped before the cell ran.")

    async def _check_alive(self, pid) -> None:
        if not await self.km.is_alive():
            raise KernelGone(
                f"The kernel of {self.path} died; the cell did not finish. Someone must restart "
                "the kernel before cells can run again."
            )
        if _pid(self.km) != pid:
            raise KernelGone(
                f"The kernel of {self.path} was restarted mid-run: its variables are gone and "
                "the cell did not finish. Run the cells it needs again if that is wanted."
            )


def _own_session(km) -> Session:
    """A session of our own for the kernel's key. The manager's session id is also the shell
    socket's identity: a second client with it takes the replies meant for the first one (a
    person's client opened in the server, e.g. by another extension, went deaf after our run)."""
    return Session(key=km.session.key, signature_scheme=km.session.signature_scheme)


def _pid(km) -> Any:
    """The kernel process's id: a restart starts a new process."""
    return getattr(getattr(km, "provisioner", None), "pid", None)
