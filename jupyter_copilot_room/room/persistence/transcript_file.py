"""`state_dir/transcript.jsonl`: the room's source of truth and its audit trail.

One JSON record a line (`seq`, `ts`, `kind`, `actor`, `payload`, `chain`), appended and fsynced
before the action is acknowledged, never rewritten. On start the room replays it to rebuild its
state. A crash can tear the last line; loading reports that line and skips it, keeps everything
before it, and the next append starts on a fresh line so the torn bytes stay as evidence.

Each record carries a hash chain (`chain`: the previous record's chain and this record, hashed),
so a transcript changed behind the room's back (a record edited, removed, or written by hand) is
refused with a message saying where, instead of being replayed as if it were the room's.
Transcripts from before the chain load as they are; the chain starts with their next record.

A load may resume after a snapshot (`Position`: the last record it covers, the byte offset after
it, the chain value there): only the records after it are read, and the chain is checked from
there on. The transcript keeps a running sha256 of its bytes, so a snapshot can name the prefix
it covers at no cost; `pages.SeqIndex` serves it page by page.
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import json
import logging
import mmap
import os
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import ValidationError

from ...errors import Unavailable
from ...events import RECORD_PAYLOADS, Record, Strict
from .seq_index import SeqIndex
from .storage import no_space

log = logging.getLogger(__name__)

#: Bytes read and parsed at a time while loading (about 400 records of the room's usual size).
LOAD_CHUNK = 1 << 18


@dataclass(frozen=True)
class Position:
    """Where the transcript stood after record `seq`: its line, the byte offset after it, the
    chain value there, and the sha256 of the bytes before `offset`."""

    seq: int
    line: int
    offset: int
    chain: str | None
    sha256: str


def hash_prefix(path: Path, size: int) -> Any:
    """A sha256 of the file's first `size` bytes (None if the file is shorter); run it in a
    thread: hashlib releases the GIL on large inputs. One buffer is read into again and again:
    a new 4 MB `bytes` a read left 8 MB in the worker thread's malloc arena after hashing a
    70 MB transcript, which `malloc_trim` did not give back."""
    hasher = hashlib.sha256()
    view = memoryview(bytearray(1 << 18))
    with open(path, "rb", buffering=0) as f:
        remaining = size
        while remaining > 0:
            read = f.readinto(view[: min(remaining, len(view))])
            if not read:
                return None
            hasher.update(view[:read])
            remaining -= read
    return hasher


def records_with_id(path: Path, size: int, item_id: str) -> list[tuple[Record, Strict]]:
    """The records in the file's first `size` bytes whose payload `id` is `item_id`, in order:
    only whole lines holding the id (as JSON writes it) are parsed. The file is mapped, not
    read: the search copies nothing, and no buffer of the file's size stays behind in the
    worker thread's malloc arena."""
    needle = json.dumps(item_id, ensure_ascii=False).encode()
    found: list[tuple[Record, Strict]] = []
    with open(path, "rb") as f:
        size = min(size, os.fstat(f.fileno()).st_size)
        if size == 0:
            return found  # an empty file cannot be mapped
        with mmap.mmap(f.fileno(), size, access=mmap.ACCESS_READ) as view:
            at = view.find(needle)
            while at >= 0 and (end := view.find(b"\n", at)) >= 0:
                start = view.rfind(b"\n", 0, at) + 1
                try:
                    record = Record.model_validate_json(view[start:end])
                    if record.payload.get("id") == item_id:
                        found.append((record, record.parsed()))
                except (ValidationError, ValueError):
                    pass  # a torn line: `load` reports those
                at = view.find(needle, end)
    return found


class Transcript:
    def __init__(self, path: Path):
        self.path = path
        self._file: BinaryIO | None = None
        self._unsynced = False  # lines written, not yet fsynced (the group commit does)
        self._syncing: asyncio.Task[None] | None = None
        self._next_seq = 1
        self._chain: str | None = None
        self._line = 0  # the number of lines written so far
        self._size = 0
        self._hash: Any = hashlib.sha256()
        self.index = SeqIndex(path)

    async def load(
        self, resume: Position | None = None, prefix: Any = None
    ) -> AsyncGenerator[list[tuple[Record, Strict]], None]:
        """Every valid record (after `resume`, whose prefix hashes to `prefix`, a sha256 object)
        with its parsed payload, a chunk at a time: each chunk is read, hashed, parsed and its
        chain checked in a worker thread, and the next is read only once the caller has taken
        this one, so a long transcript is never held whole (a full rebuild holding every record
        as objects at once stalled the loop in Python's full garbage collections). Bad lines are
        logged and skipped, never fatal. The file is opened for appending once all is read."""
        start = 0
        self._line, self._chain, self._next_seq = 0, None, 1  # a load starts afresh
        if resume is not None:
            start, self._line = resume.offset, resume.line
            self._chain, self._next_seq = resume.chain, resume.seq + 1
        self._hash = prefix.copy() if prefix is not None else hashlib.sha256()
        self._size = start
        try:
            f = open(self.path, "rb")  # noqa: SIM115 (closed below, across awaits)
        except FileNotFoundError:
            f = None
        rest = b""  # the bytes after the last newline read so far
        try:
            if f is not None:
                f.seek(start)
                while True:
                    records, rest, done = await asyncio.to_thread(self._read_chunk, f, rest)
                    if records:
                        yield records
                    if done:
                        break
        finally:
            if f is not None:
                f.close()
        self._open(terminate_torn_line=bool(rest))

    def _read_chunk(
        self, f: BinaryIO, rest: bytes
    ) -> tuple[list[tuple[Record, Strict]], bytes, bool]:
        """(records, the bytes after the last newline, whether the file ended) of the next
        `LOAD_CHUNK` bytes after `rest`; at the end, `rest` is a torn last line. In a thread."""
        block = f.read(LOAD_CHUNK)
        self._hash.update(block)
        self._size += len(block)
        torn = not block
        if torn:
            lines = [rest]
        else:
            data = rest + block
            whole = data.rfind(b"\n") + 1
            lines, rest = data[:whole].split(b"\n")[:-1], data[whole:]
        records: list[tuple[Record, Strict]] = []
        for line in lines:
            number = self._line + 1
            if not torn:
                self._line = number  # a torn line is counted once `_open` ends it
            if not line.strip():
                continue
            try:
                record = Record.model_validate_json(line)
                payload = record.parsed()
            except (ValidationError, ValueError) as err:
                what = "torn last line (a crash mid-write?)" if torn else "unreadable line"
                log.warning("%s:%d: skipping %s: %s", self.path, number, what, err)
                continue
            self._check_link(record, number)
            self._next_seq = record.seq + 1
            records.append((record, payload))
        return records, rest, torn

    def position(self) -> Position:
        """Where the transcript stands now (after its last record)."""
        return Position(
            seq=self._next_seq - 1,
            line=self._line,
            offset=self._size,
            chain=self._chain,
            sha256=self._hash.copy().hexdigest(),
        )

    async def records_with_id(self, item_id: str) -> list[tuple[Record, Strict]]:
        """Every record about `item_id` (a prompt's submission, start, end...), read in a
        thread: for what the room no longer holds in memory."""
        return await asyncio.to_thread(records_with_id, self.path, self._size, item_id)

    async def chunks(self, size: int = 1 << 20) -> AsyncIterator[bytes]:
        """The whole file as written so far, `size` bytes at a time, each read in a worker
        thread: a 100 MB transcript is never read, nor held, on the event loop."""
        end = self._size
        with open(self.path, "rb") as f:
            offset = 0
            while offset < end:
                chunk = await asyncio.to_thread(f.read, min(size, end - offset))
                if not chunk:
                    return
                offset += len(chunk)
                yield chunk

    async def page(self, before: int, limit: int) -> list[bytes]:
        """The last `limit` records with seq < `before`, as their lines, ascending."""
        lines, _ = await self.index.page(self._size, before, limit)
        return lines

    def _check_link(self, record: Record, number: int) -> None:
        if record.chain is None and self._chain is None:
            return  # written before the chain existed
        if record.chain is None or record.chain != record.linked_to(self._chain):
            raise Unavailable(
                f"{self.path}, line {number} (seq {record.seq}): this record was not written by "
                "the room, or a record before it was changed or removed, so the room will not "
                "replay the transcript. Restore the file from a backup, or move it aside to "
                "start an empty room.",
                code="transcript_tampered",
            )
        self._chain = record.chain

    def _open(self, *, terminate_torn_line: bool) -> None:
        self._file = open(self.path, "ab")  # noqa: SIM115 (kept open for the room's lifetime)
        if terminate_torn_line:
            self._file.write(b"\n")
            self._sync()
            self._hash.update(b"\n")
            self._size += 1
            self._line += 1

    def append(
        self, kind: str, actor: str | None, payload: Strict, ts: float, source: str | None = None
    ) -> Record:
        """Write one record durably and return it; the caller acknowledges only after this."""
        if self._file is None:
            raise RuntimeError("load() the transcript before appending")
        if not isinstance(payload, RECORD_PAYLOADS.get(kind, ())):
            raise TypeError(f"a {kind!r} record cannot carry {type(payload).__name__}")
        record = Record(
            seq=self._next_seq,
            ts=ts,
            kind=kind,
            actor=actor,
            payload=payload.model_dump(mode="json", exclude_none=True),
            source=source,
        )
        record.chain = record.linked_to(self._chain)
        line = record.line()
        self._write_whole(line)  # raises, with the file as it was, when it cannot be written
        self._next_seq += 1
        self._chain = record.chain
        self._hash.update(line)
        self.index.added(record.seq, self._size)
        self._size += len(line)
        self._line += 1
        return record

    def _write_whole(self, line: bytes) -> None:
        """Write the line and fsync it, or leave the file as it was: a write cut short by a full
        disk is truncated back to the last whole line, so no torn line stays in the middle of
        the transcript once space returns (the next append would follow it)."""
        assert self._file is not None
        fd = self._file.fileno()
        good = os.fstat(fd).st_size
        try:
            written = 0
            while written < len(line):  # unbuffered: a failed write leaves nothing queued
                written += os.write(fd, line[written:])
        except OSError as err:
            os.ftruncate(fd, good)
            if err.errno in (errno.ENOSPC, errno.EDQUOT):
                raise no_space(self.path.parent) from err
            raise
        self._sync_soon()

    # -- group commit: one fsync for a tick's records, in a worker thread ------------------------

    def _sync_soon(self) -> None:
        """The line is written; fsync it, with every other line written in this loop tick, in a
        worker thread (an fsync per record on the loop stalled everyone: 1-20 ms each on a real
        disk). A command is acknowledged only after `durable`. Without a running loop (a script),
        at once."""
        self._unsynced = True
        if self._syncing is not None and not self._syncing.done():
            return  # the running group commit takes this line too (it loops while unsynced)
        try:
            self._commit_in(asyncio.get_running_loop())
        except RuntimeError:  # no running loop
            self._fsync()

    def _commit_in(self, loop: asyncio.AbstractEventLoop) -> None:
        self._syncing = loop.create_task(self._group_commit())
        self._syncing.add_done_callback(_log_failure)

    async def _group_commit(self) -> None:
        await asyncio.sleep(0)  # the rest of this tick's records join this fsync
        while self._unsynced and self._file is not None:
            self._unsynced = False
            fd = self._file.fileno()
            try:
                await asyncio.to_thread(os.fsync, fd)
            except OSError as err:
                if self._file is None:
                    return  # closed meanwhile: `close` synced what was written
                self._unsynced = True  # still not on disk: the next `durable` tries again
                if err.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise no_space(self.path.parent) from err
                raise

    async def durable(self) -> None:
        """Once every line written so far is on disk. A failed fsync raises to every command
        waiting on it, and the next `durable` tries again (its lines are still not on disk)."""
        if (
            self._unsynced
            and self._file is not None
            and (self._syncing is None or self._syncing.done())
        ):
            self._commit_in(asyncio.get_running_loop())
        if self._syncing is not None:
            await asyncio.shield(self._syncing)

    def _fsync(self) -> None:
        assert self._file is not None
        os.fsync(self._file.fileno())
        self._unsynced = False

    def _sync(self) -> None:
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())

    def read_text(self) -> str:
        return self.path.read_text(encoding="utf-8", errors="replace")

    @property
    def is_open(self) -> bool:
        """Whether the file is open for appending (a stopped or unloaded room's is not)."""
        return self._file is not None

    def close(self) -> None:
        if self._file is not None:
            if self._unsynced or (self._syncing is not None and not self._syncing.done()):
                self._fsync()  # what the group commit had not synced yet
            self._file.close()
            self._file = None


def _log_failure(task: asyncio.Task[None]) -> None:
    """A group commit that failed is said in the log, also when no command waited on it (the
    records the agent reported): their lines are synced by the next `durable`."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.warning("The transcript could not be synced to disk: %s", error)
