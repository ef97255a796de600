"""Paging a JSONL file by `seq`: the transcript (`GET transcript?before=`) and the archive of
entries evicted from the live document (`GET history?before=`).

Each file gets an index of (seq, byte offset) per line, so a page is a bisect and one read of
the bytes it covers, never a read of the whole file. The index is built the first time a page is
asked for, by scanning the file's lines in a worker thread; lines appended meanwhile (and after)
are added as they are written. Unreadable lines (a torn write) have no seq and are skipped.
"""

from __future__ import annotations

import asyncio
import json
import re
from array import array
from bisect import bisect_left
from pathlib import Path

_SEQ = re.compile(rb'\{\s*"seq"\s*:\s*(\d+)\s*[,}]')


def line_seq(line: bytes) -> int | None:
    """The `seq` of a JSONL line (written with `seq` first, so usually without parsing it)."""
    if match := _SEQ.match(line):
        return int(match.group(1))
    try:
        value = json.loads(line)
    except ValueError:
        return None
    seq = value.get("seq") if isinstance(value, dict) else None
    return int(seq) if isinstance(seq, int | float) else None


def scan(path: Path, start: int, end: int) -> tuple[array, array]:
    """(seqs, offsets) of the readable lines in bytes [start, end) of the file."""
    seqs, offsets = array("q"), array("q")
    with open(path, "rb") as f:
        f.seek(start)
        offset = start
        for line in f.read(end - start).split(b"\n"):
            if (seq := line_seq(line)) is not None:
                seqs.append(seq)
                offsets.append(offset)
            offset += len(line) + 1
    return seqs, offsets


class SeqIndex:
    """(seq, offset) of each line of a JSONL file whose lines are in seq order."""

    def __init__(self, path: Path):
        self.path = path
        self._seqs = array("q")
        self._offsets = array("q")
        self._built = False
        self._building: asyncio.Future[None] | None = None
        self._pending: list[tuple[int, int]] = []

    def added(self, seq: int, offset: int) -> None:
        """A line was appended (and flushed) at `offset`."""
        if self._built:
            self._seqs.append(seq)
            self._offsets.append(offset)
        elif self._building is not None:
            self._pending.append((seq, offset))
        # else: the scan, when it comes, reads it from the file

    def reset(self) -> None:
        """The file was truncated or rewritten: scan it again when next asked."""
        self._seqs, self._offsets = array("q"), array("q")
        self._built, self._building, self._pending = False, None, []

    async def ready(self, size: int) -> None:
        """Build the index of the file's first `size` bytes (what was written so far) once."""
        if self._built:
            return
        if self._building is None:
            self._building = asyncio.get_running_loop().create_future()
            building = self._building
            try:
                seqs, offsets = await asyncio.to_thread(scan, self.path, 0, size)
            except BaseException as err:
                self._building = None
                building.set_exception(err)
                building.exception()  # retrieved: the waiters below re-raise it
                raise
            if self._building is not building:  # reset while scanning
                building.set_result(None)
                return await self.ready(size)
            for seq, offset in self._pending:
                if offset >= size:
                    seqs.append(seq)
                    offsets.append(offset)
            self._seqs, self._offsets = seqs, offsets
            self._built, self._building, self._pending = True, None, []
            building.set_result(None)
        else:
            await asyncio.shield(self._building)

    def span(self, before: int, limit: int) -> tuple[int, int, int, bool]:
        """The page of the `limit` last lines with seq < `before`: (first seq, start offset,
        line count, whether earlier lines exist)."""
        end = bisect_left(self._seqs, before)
        start = max(0, end - limit)
        if start == end:
            return 0, 0, 0, start > 0
        return self._seqs[start], self._offsets[start], end - start, start > 0

    async def page(self, size: int, before: int, limit: int) -> tuple[list[bytes], bool]:
        """The lines of that page (ascending) and whether earlier ones exist."""
        await self.ready(size)
        first, offset, count, more = self.span(before, limit)
        if count == 0:
            return [], more
        lines = await asyncio.to_thread(_read_lines, self.path, offset, count, first, before)
        return lines, more


def _read_lines(path: Path, offset: int, count: int, first: int, before: int) -> list[bytes]:
    """`count` readable lines from `offset` whose seq is in [first, before)."""
    lines: list[bytes] = []
    with open(path, "rb") as f:
        f.seek(offset)
        for line in f:
            seq = line_seq(line)
            if seq is None:
                continue
            if seq >= before or len(lines) >= count:
                break
            if seq >= first:
                lines.append(line.rstrip(b"\n"))
    return lines
