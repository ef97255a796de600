"""One Copilot runtime process for every room of a server: each room's `Connection` leases it
and opens its own session in it (its working directory, permission and question handlers and
event stream are the session's, so rooms stay apart inside one process).

The process starts with the first lease and stops with the last (every room's agent asleep or
stopped). A runtime found dead or hung by any room is discarded once: the generation it had
ends, and every room still on it finds its connection gone at its next probe, fails the turn it
had and leases the next generation, which the first of them started. Rooms share the runtime's
own state directory (its saved sessions, its login), `main`'s `state_dir/copilot`.

Servers are keyed by that directory, so two servers in one process (tests) never share one.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from copilot import CopilotClient, RuntimeConnection

from ...errors import Conflict
from .runtime_process import runtime_pid

#: Seconds a polite stop may take before the runtime is killed.
STOP_TIMEOUT = 5.0

OTHER_ROOMS_BUSY = (
    "Another room's agent is running a turn on the Copilot runtime this sign-out must restart. "
    "Sign out once that turn has ended."
)


class Lease(Protocol):
    """What the runtime knows of a room holding it: whether a turn runs there now."""

    def busy(self) -> bool: ...


def in_own_session(runtime_path: str) -> RuntimeConnection:
    """The runtime, started by `setsid` (which execs it: the process is the runtime's), so a
    Ctrl-C in the server's terminal, sent to the terminal's process group, does not reach it."""
    setsid = shutil.which("setsid")
    if setsid is None:
        return RuntimeConnection.for_stdio(path=runtime_path)
    node = ["node"] if runtime_path.endswith(".js") else []  # as the SDK runs a script
    return RuntimeConnection.for_stdio(path=setsid, args=[*node, runtime_path])


class SharedRuntime:
    def __init__(self, base: Path, runtime_path: str, env: Mapping[str, str], logged_in: bool):
        self.base = base
        self._client_options: dict[str, Any] = {
            "connection": in_own_session(runtime_path),
            "working_directory": str(base),  # each session names its own
            "base_directory": str(base),
            "env": dict(env),
            "use_logged_in_user": logged_in,
            "log_level": "error",
        }
        self.client: CopilotClient | None = None
        self.generation = 0  # counts the processes started: a lease on an older one is gone
        self.logins = 0  # counts sign-ins and sign-outs: access chosen before one is stale
        self._leases: set[Lease] = set()
        self._lock = asyncio.Lock()

    @property
    def pid(self) -> int | None:
        """The runtime process's id."""
        return runtime_pid(self.client)

    async def lease(self, holder: Lease) -> tuple[CopilotClient, int]:
        """The running runtime (started if none runs) and its generation."""
        async with self._lock:
            if self.client is None:
                client = CopilotClient(**self._client_options)
                try:
                    await client.start()
                except BaseException:
                    with contextlib.suppress(Exception):
                        await client.force_stop()
                    raise
                self.client = client
                self.generation += 1
            self._leases.add(holder)
            return self.client, self.generation

    async def release(self, holder: Lease, *, keep: bool = False) -> None:
        """`holder` is done; the last holder stops the runtime, unless it will lease again
        (`keep`: a room reconnecting)."""
        async with self._lock:
            self._leases.discard(holder)
            if not keep and not self._leases:
                await self._stop()

    def stops_with(self, holder: Lease) -> bool:
        """Whether `holder` giving the runtime back stops it: no other room holds it."""
        return self._leases <= {holder}

    async def discard(self, generation: int) -> None:
        """The runtime of `generation` stopped answering: kill it (SIGKILL: a stopped process
        hears nothing politer), once, however many rooms found it."""
        async with self._lock:
            if self.client is not None and self.generation == generation:
                client, self.client = self.client, None
                with contextlib.suppress(Exception):
                    await client.force_stop()

    async def stopped_for(self, holder: Lease, change: Callable[[], None]) -> None:
        """Run `change` with the runtime stopped (it writes its login file back from memory),
        for every room: refused while another room runs a turn, which it would cut."""
        async with self._lock:
            if any(other.busy() for other in self._leases if other is not holder):
                raise Conflict(OTHER_ROOMS_BUSY, code="runtime_busy")
            await self._stop()
            change()
            self.logins += 1

    async def _stop(self) -> None:
        client, self.client = self.client, None
        if client is None:
            return
        try:
            await asyncio.wait_for(client.stop(), STOP_TIMEOUT)
        except Exception:
            with contextlib.suppress(Exception):
                await client.force_stop()


_RUNTIMES: dict[tuple, SharedRuntime] = {}


def shared_runtime(
    base: Path, runtime_path: str, env: Mapping[str, str], logged_in: bool
) -> SharedRuntime:
    """The runtime of the server whose runtime state is `base`, for rooms started the same way:
    rooms started otherwise (another binary, environment or login choice) get one of their own."""
    key = (base.resolve(), runtime_path, tuple(sorted(env.items())), logged_in)
    runtime = _RUNTIMES.get(key)
    if runtime is None:
        runtime = _RUNTIMES[key] = SharedRuntime(base, runtime_path, env, logged_in)
    return runtime
