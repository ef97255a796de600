"""`fs/read_text_file` and `fs/write_text_file` for the agents that use their client's files
(Copilot, Claude Code and Codex never do; the room announces them for those that do): served
inside the room's folder only. A path outside it, through a symlink too, is refused with
ACP's invalid-params error, which the agent hears as such; nothing outside is read or written.
A write was asked of the room's people first: the agent's permission request came before it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
from acp import schema


class RoomFiles:
    def __init__(self, folder: Path):
        self.folder = folder.resolve()

    def inside(self, path: str) -> Path:
        """`path` (absolute, as ACP names files) resolved, or a RequestError when it is outside
        the room's folder (its link target counted, not its name)."""
        resolved = Path(path).resolve()
        if not Path(path).is_absolute() or not resolved.is_relative_to(self.folder):
            raise acp.RequestError.invalid_params(
                {"path": f"{path} is outside the room's folder, {self.folder}"}
            )
        return resolved

    async def read(
        self, path: str, line: int | None = None, limit: int | None = None
    ) -> schema.ReadTextFileResponse:
        file = self.inside(path)
        try:
            text = await asyncio.to_thread(file.read_text, encoding="utf-8", errors="replace")
        except OSError as err:
            raise acp.RequestError.invalid_params({"path": f"{path}: {err.strerror}"}) from None
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        chosen = lines[start : start + limit] if limit is not None else lines[start:]
        return schema.ReadTextFileResponse(content="".join(chosen))

    async def write(self, path: str, content: str) -> schema.WriteTextFileResponse:
        file = self.inside(path)
        try:
            await asyncio.to_thread(file.write_text, content, encoding="utf-8")
        except OSError as err:
            raise acp.RequestError.invalid_params({"path": f"{path}: {err.strerror}"}) from None
        return schema.WriteTextFileResponse()
