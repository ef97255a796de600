"""One process per configured ACP agent, serving every room's session in it: a room's `AcpAgent`
leases the process, opens its own session there, and releases it when it stops; the process
starts with the first lease and stops with the last. What the agent sends is routed by its
session id to the room it belongs to (its updates, its permission requests, its file reads and
writes inside that room's folder); a session no room holds is answered `cancelled` or refused.

A process that exits by itself is gone for every room that leased it: each is told (its turn
fails in words) and leases the next process when it restarts, which the first of them starts.
Its `HOME` and error log are the server's (`<state_dir>/agents/<name>/`), shared by its rooms.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from pathlib import Path
from typing import Any, Protocol, cast

import acp
from acp import schema

from .agent_profiles import Start
from .agent_spec import AcpAgentSpec
from .client_gate import ClientGate
from .permission_asks import cancelled

#: Seconds the agent has to answer `initialize`.
START_TIMEOUT = 60.0
#: Seconds a stopped agent has to exit on SIGTERM before it is killed.
EXIT_GRACE = 5.0


def capabilities(reads: bool) -> schema.ClientCapabilities:
    """What the room offers as the agent's client: each room's folder's files (`room_files.py`;
    `reads`: its reads too) and terminals."""
    files = schema.FileSystemCapabilities(read_text_file=reads, write_text_file=True)
    return schema.ClientCapabilities(fs=files, terminal=True)


class SessionOwner(Protocol):
    """A room's side of its session in the process (`AcpAgent`)."""

    gate: ClientGate

    async def heard(self, session_id: str, update: Any) -> None: ...

    async def asked(
        self, session_id: str, tool_call: schema.ToolCallUpdate, options: list
    ) -> schema.RequestPermissionResponse: ...

    async def process_exited(self, code: int) -> None: ...


class AgentProcess:
    """One run of an agent's command, its ACP connection and the sessions rooms hold in it."""

    def __init__(self, spec: AcpAgentSpec, folder: Path, cwd: Path):
        self.spec, self.folder, self.cwd = spec, folder, cwd
        self.owners: set[SessionOwner] = set()  # the rooms that lease it
        self.sessions: dict[str, SessionOwner] = {}  # session id -> its room
        self.conn: Any = None
        self.capabilities = schema.AgentCapabilities()
        self.auth_methods: list[str] = []  # the ids of the authentication methods it announced
        self._process: asyncio.subprocess.Process | None = None
        self._watch: asyncio.Task | None = None
        self._stopping = False

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self) -> None:
        home = self.folder / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = self.spec.environment(os.environ, home)
        profile = self.spec.profile
        start = profile.start(home, env) if profile is not None else Start()
        with open(self.folder / "stderr.log", "ab") as stderr:  # the child keeps its own copy
            self._process = await asyncio.create_subprocess_exec(
                *self.spec.command,
                *start.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=self.cwd,
                env={**env, **start.env},
                start_new_session=True,
                limit=16 * 2**20,
            )
        assert self._process.stdin is not None and self._process.stdout is not None
        # A client of the methods it announced: the others answer "method not found".
        client = cast(acp.Client, ProcessClient(self))
        self.conn = acp.connect_to_agent(client, self._process.stdin, self._process.stdout)
        self._watch = asyncio.create_task(self._watch_exit(self._process))
        async with asyncio.timeout(START_TIMEOUT):
            init = await self.conn.initialize(
                protocol_version=acp.PROTOCOL_VERSION,
                client_capabilities=capabilities(profile is None or profile.room_reads),
            )
            self.capabilities = init.agent_capabilities
            self.auth_methods = [method.id for method in init.auth_methods or ()]
            offered = set(self.auth_methods)
            if profile is not None and profile.auth_method in offered:  # its key, from env
                await self.conn.authenticate(method_id=profile.auth_method)

    async def exit_code(self, within: float) -> int | None:
        """The process's exit code once it exited, within `within` seconds (None: it runs on)."""
        if self._process is None:
            return None
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(self._process.wait(), within)
        return None

    async def _watch_exit(self, process: asyncio.subprocess.Process) -> None:
        code = await process.wait()
        if not self._stopping:
            for owner in list(self.owners):
                await owner.process_exited(code)

    async def stop(self) -> None:
        self._stopping = True
        if self._watch is not None and not self._watch.done():
            self._watch.cancel()
            with contextlib.suppress(BaseException):
                await self._watch
        if self.conn is not None:
            with contextlib.suppress(Exception):
                await self.conn.close()
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), EXIT_GRACE)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()


class ProcessClient:
    """The room as the process's ACP client: each call goes to the room whose session it names
    (its files, its terminals, its cards)."""

    def __init__(self, process: AgentProcess):
        self.process = process

    def _owner(self, session_id: str) -> SessionOwner:
        owner = self.process.sessions.get(session_id)
        if owner is None:
            raise acp.RequestError.invalid_params({"sessionId": "no room holds this session"})
        return owner

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_
    ) -> schema.ReadTextFileResponse:
        return await self._owner(session_id).gate.read(path, line, limit)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **_: Any
    ) -> schema.WriteTextFileResponse:
        return await self._owner(session_id).gate.write(path, content)

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[schema.EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **_: Any,
    ) -> schema.CreateTerminalResponse:
        owner = self._owner(session_id)
        return await owner.gate.terminal(command, args or [], env or [], cwd, output_byte_limit)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> schema.TerminalOutputResponse:
        return self._owner(session_id).gate.terminals.output(terminal_id)

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **_: Any
    ) -> schema.WaitForTerminalExitResponse:
        return await self._owner(session_id).gate.terminals.wait(terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        await self._owner(session_id).gate.terminals.kill(terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str, **_: Any) -> None:
        await self._owner(session_id).gate.terminals.release(terminal_id)

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        if (owner := self.process.sessions.get(session_id)) is not None:
            await owner.heard(session_id, update)

    async def request_permission(
        self, session_id: str, tool_call: schema.ToolCallUpdate, options: list, **_: Any
    ) -> schema.RequestPermissionResponse:
        owner = self.process.sessions.get(session_id)
        return cancelled() if owner is None else await owner.asked(session_id, tool_call, options)

    def on_connect(self, conn: Any) -> None:
        pass


class AgentProcesses:
    """The server's ACP agent processes, by agent name; `folder` holds each one's HOME and log,
    `cwd` is where they start (each session names its own folder)."""

    def __init__(self, folder: Path, cwd: Path, log: logging.Logger):
        self.folder, self.cwd, self.log = folder, cwd, log
        self._running: dict[str, AgentProcess] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def lease(self, spec: AcpAgentSpec, owner: SessionOwner) -> AgentProcess:
        """The agent's running process for `owner`, started if none runs (or the last exited);
        raises what a failed start raised."""
        async with self._locks.setdefault(spec.name, asyncio.Lock()):
            process = self._running.get(spec.name)
            if process is None or not process.alive:
                if process is not None:  # exited: its rooms lease the next one
                    await process.stop()
                process = AgentProcess(spec, self.folder / spec.name, self.cwd)
                try:
                    await process.start()
                except BaseException:
                    await process.stop()
                    raise
                self._running[spec.name] = process
            process.owners.add(owner)
            return process

    async def release(self, owner: SessionOwner, process: AgentProcess) -> None:
        """`owner` is done with `process` (its sessions there forgotten); the last one out
        stops it."""
        async with self._locks.setdefault(process.spec.name, asyncio.Lock()):
            process.owners.discard(owner)
            for session_id in [s for s, o in process.sessions.items() if o is owner]:
                del process.sessions[session_id]
            if not process.owners:
                if self._running.get(process.spec.name) is process:
                    del self._running[process.spec.name]
                await process.stop()
