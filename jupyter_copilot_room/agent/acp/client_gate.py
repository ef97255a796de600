"""What an ACP agent does through its client, decided by the room: `fs/read_text_file`,
`fs/write_text_file` and `terminal/create` are each the room's card (routed, decided by policy,
answered before the deadline like any card) unless the agent's own permission request for that
very read, write or command was approved in this turn, which lets it through once. Nothing goes
through outside one of the room's turns, nor outside the room's folder (`room_files.py`); a
refusal is an error whose message is the room's reason, which the agent passes to its model.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable
from pathlib import Path

import acp
from acp import schema

from ..seam import AgentHost, FileChange, PermissionAsk
from .room_files import RoomFiles, shown
from .room_terminals import RoomTerminals

#: Shells whose `-c` (or `-lc`) runs the command line that follows it.
SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
#: Why nothing goes through between the room's turns.
NO_TURN = "The room runs none of this agent's turns now: it reads, writes and runs nothing."


def said_by(command: str, args: list[str]) -> set[str]:
    """The command lines a terminal's command and arguments are: as they are joined, and the
    line a shell runs for `sh -c <line>`, as an agent's permission request names it."""
    lines = {shlex.join([command, *args])}
    if Path(command).name in SHELLS and len(args) >= 2 and args[-2] in ("-c", "-lc"):
        lines.add(args[-1])
    return lines


def refused(why: str, subject: str = "path") -> acp.RequestError:
    """The room's refusal, its reason as the error's message (what agents show their model)."""
    return acp.RequestError(-32602, why, {subject: why})


class ClientGate:
    """One session's client requests: its folder's files and terminals, the host that decides,
    and what this turn's approvals let through (a write or command once, a file's reads for the
    rest of the turn)."""

    def __init__(self, folder: Path, host: Callable[[], AgentHost | None]):
        self.files = RoomFiles(folder)
        self.terminals = RoomTerminals(self.files)
        self._host = host
        self._in_turn = False
        self._commands: list[str] = []  # approved command lines, each to run once
        self._writes: list[tuple[Path, str]] = []  # approved (file, content), each to write once
        self._reads: set[Path] = set()  # files this turn may read (approved reads and writes)

    def begin_turn(self) -> None:
        self._in_turn = True

    async def end_turn(self) -> None:
        """The turn ended: what it approved is spent, its terminals are killed."""
        self._in_turn = False
        self._commands.clear()
        self._writes.clear()
        self._reads.clear()
        await self.terminals.close()

    def approved(self, ask: PermissionAsk) -> None:
        """The agent's own permission request `ask` was approved: the write or command it names
        may go through the client once, the files it names be read this turn."""
        folder = self.files.folder
        if ask.kind == "shell":
            self._commands.append(ask.summary)
        elif ask.kind == "write":
            for change in ask.changes:
                file = (folder / change.path).resolve()
                self._reads.add(file)  # an agent reads what it changes again before it writes
                if change.after is not None:
                    self._writes.append((file, change.after))
        elif ask.kind == "read":
            self._reads.update((folder / path.strip()).resolve() for path in ask.summary.split(","))

    def _host_in_turn(self, subject: str) -> AgentHost:
        host = self._host()
        if host is None or not self._in_turn:
            raise refused(NO_TURN, subject)
        return host

    async def _decided(self, host: AgentHost, ask: PermissionAsk, subject: str) -> None:
        answer = await host.request_permission(ask)
        if not answer.approved:
            raise refused(answer.text or "The room did not approve this.", subject)
        if not self._in_turn:  # the turn ended while the card was open
            raise refused(NO_TURN, subject)

    async def read(
        self, path: str, line: int | None, limit: int | None
    ) -> schema.ReadTextFileResponse:
        """A file read under the policy's `read` kind; a missing file is resource-not-found
        (agents take that as "create it"), asked of no one."""
        host = self._host_in_turn("path")
        file = self.files.inside(path)
        if not file.is_file():
            raise acp.RequestError.resource_not_found(path)
        if file not in self._reads:
            name = shown(file, self.files.folder)
            ask = PermissionAsk("read", name, {"intention": f"read {name} through the room"})
            await self._decided(host, ask, "path")
            self._reads.add(file)
        return await self.files.read(file, line, limit)

    async def write(self, path: str, content: str) -> schema.WriteTextFileResponse:
        """A file write: the room's write card with the change against the file as it is now
        (a notebook's cell by cell), unless the agent's approved request named this content."""
        host = self._host_in_turn("path")
        file = self.files.inside(path)
        if (file, content) in self._writes:
            self._writes.remove((file, content))
        else:
            before = await asyncio.to_thread(self.files.current, file)
            name = shown(file, self.files.folder)
            change = FileChange(name, before, content)
            intention = f"write {name} through the room"
            ask = PermissionAsk("write", name, {"intention": intention}, (change,))
            await self._decided(host, ask, "path")
        return await self.files.write(file, content)

    async def terminal(
        self, command: str, args: list[str], env: list, cwd: str | None, limit: int | None
    ) -> schema.CreateTerminalResponse:
        """A command run through the room: one the agent's request got approved for in this
        turn, or else the room's card for it first."""
        host = self._host_in_turn("command")
        folder = self.terminals.where(cwd)  # refused before anyone is asked
        said = said_by(command, args)
        approved = next((c for c in self._commands if c in said), None)
        if approved is not None:
            self._commands.remove(approved)
        else:
            line = shlex.join([command, *args])
            ask = PermissionAsk("shell", line, {"intention": "in a terminal of the room's"})
            await self._decided(host, ask, "command")
        return await self.terminals.create(command, args, env, folder, limit)
