"""The files of a room's folder as an ACP agent's client serves them (`client_gate.py` decides
whether a read or write may happen): a path outside the folder, through a symlink too, is
refused, and nothing outside is read or written; a missing file is ACP's resource-not-found,
which agents take as a file to create."""

from __future__ import annotations

import asyncio
from pathlib import Path

import acp
from acp import schema


def shown(file: Path, folder: Path) -> str:
    """`file` as the room's cards name it: from the room's folder."""
    return file.relative_to(folder).as_posix()


class RoomFiles:
    def __init__(self, folder: Path):
        self.folder = folder.resolve()

    def inside(self, path: str) -> Path:
        """`path` (absolute, as ACP names files) resolved, or a RequestError when it is outside
        the room's folder (its link target counted, not its name)."""
        resolved = Path(path).resolve()
        if not Path(path).is_absolute() or not resolved.is_relative_to(self.folder):
            why = f"{path} is outside the room's folder, {self.folder}"
            raise acp.RequestError(-32602, why, {"path": why})
        return resolved

    def current(self, file: Path) -> str | None:
        """What `file` holds now (None: it does not exist), for a write's card."""
        try:
            return file.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return None
        except OSError as err:
            raise _failed(file, err) from None

    async def read(
        self, file: Path, line: int | None = None, limit: int | None = None
    ) -> schema.ReadTextFileResponse:
        try:
            text = await asyncio.to_thread(file.read_text, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise acp.RequestError.resource_not_found(str(file)) from None
        except OSError as err:
            raise _failed(file, err) from None
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        chosen = lines[start : start + limit] if limit is not None else lines[start:]
        return schema.ReadTextFileResponse(content="".join(chosen))

    async def write(self, file: Path, content: str) -> schema.WriteTextFileResponse:
        try:
            await asyncio.to_thread(_write, file, content)
        except OSError as err:
            raise _failed(file, err) from None
        return schema.WriteTextFileResponse()


def _write(file: Path, content: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)  # inside the folder: `file` is
    file.write_text(content, encoding="utf-8")


def _failed(file: Path, err: OSError) -> acp.RequestError:
    why = f"{file}: {err.strerror}"
    return acp.RequestError(-32602, why, {"path": why})
