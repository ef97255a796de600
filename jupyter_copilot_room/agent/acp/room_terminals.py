"""`terminal/*` for the agents that run commands through their client (Copilot, Claude Code and
Codex run their own shell; the room announces terminals for those that do not): each command
runs in the room's folder or a folder inside it (a `cwd` outside, through a symlink too, is
refused with ACP's invalid-params error), with the room's allow-listed environment and the
variables the agent names, never the server's secrets. Its output (stdout and stderr, merged) is
kept up to the agent's byte limit, cut at the start. What may run is decided before this: the
room's card (`AcpAgent.create_terminal`); every terminal of a turn is killed when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import uuid
from collections.abc import Mapping
from pathlib import Path

import acp
from acp import schema

from ..environment import agent_environment
from .room_files import RoomFiles

#: Output kept when the agent names no limit.
DEFAULT_OUTPUT_LIMIT = 1_000_000


class Terminal:
    """One command's run: its process and the tail of what it printed."""

    def __init__(self, process: asyncio.subprocess.Process, limit: int):
        self.process, self.limit = process, limit
        self.output = b""
        self.truncated = False
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(65536):
            self.output += chunk
            if len(self.output) > self.limit:
                self.output, self.truncated = self.output[-self.limit :], True

    def text(self) -> str:
        """The output kept, as text (a character cut in two at the start is dropped)."""
        return self.output.decode("utf-8", errors="ignore" if self.truncated else "replace")

    def exit_status(self) -> schema.TerminalExitStatus | None:
        code = self.process.returncode
        if code is None:
            return None
        if code < 0:
            return schema.TerminalExitStatus(signal=signal.Signals(-code).name)
        return schema.TerminalExitStatus(exit_code=code)

    async def wait(self) -> schema.TerminalExitStatus:
        await self.process.wait()
        await self._reader
        status = self.exit_status()
        assert status is not None
        return status

    async def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


class RoomTerminals:
    def __init__(self, files: RoomFiles, environ: Mapping[str, str] = os.environ):
        self.files = files
        self.environ = environ
        self._running: dict[str, Terminal] = {}

    async def create(
        self,
        command: str,
        args: list[str],
        env: list[schema.EnvVariable],
        folder: Path,
        limit: int | None,
    ) -> schema.CreateTerminalResponse:
        """Run `command` in `folder` (`where` said it is inside the room's)."""
        environment = {**agent_environment(self.environ), **{v.name: v.value for v in env}}
        try:
            process = await asyncio.create_subprocess_exec(
                command,
                *args,
                cwd=folder,
                env=environment,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as err:
            raise acp.RequestError.invalid_params(
                {"command": f"{command}: {err.strerror}"}
            ) from None
        terminal_id = uuid.uuid4().hex
        self._running[terminal_id] = Terminal(process, limit or DEFAULT_OUTPUT_LIMIT)
        return schema.CreateTerminalResponse(terminal_id=terminal_id)

    def where(self, cwd: str | None) -> Path:
        """The folder a command would run in, or a RequestError when it is outside the room's."""
        return self.files.inside(cwd) if cwd else self.files.folder

    def _get(self, terminal_id: str) -> Terminal:
        if (terminal := self._running.get(terminal_id)) is None:
            raise acp.RequestError.invalid_params({"terminalId": "no such terminal"})
        return terminal

    def output(self, terminal_id: str) -> schema.TerminalOutputResponse:
        terminal = self._get(terminal_id)
        return schema.TerminalOutputResponse(
            output=terminal.text(), truncated=terminal.truncated, exit_status=terminal.exit_status()
        )

    async def wait(self, terminal_id: str) -> schema.WaitForTerminalExitResponse:
        status = await self._get(terminal_id).wait()
        return schema.WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill(self, terminal_id: str) -> None:
        await self._get(terminal_id).kill()

    async def release(self, terminal_id: str) -> None:
        await self._get(terminal_id).kill()
        del self._running[terminal_id]

    async def close(self) -> None:
        """Every terminal killed and forgotten (the turn ended, or the agent stopped)."""
        for terminal_id in list(self._running):
            await self.release(terminal_id)
