"""`state_dir/transcript.jsonl`: the room's source of truth and its audit trail.

One JSON record a line (`seq`, `ts`, `kind`, `actor`, `payload`, `chain`), appended and fsynced
before the action is acknowledged, never rewritten. On start the room replays it to rebuild its
state. A crash can tear the last line; loading reports that line and skips it, keeps everything
before it, and the next append starts on a fresh line so the torn bytes stay as evidence.

Each record carries a hash chain (`chain`: the previous record's chain and this record, hashed),
so a transcript changed behind the room's back (a record edited, removed, or written by hand) is
refused with a message saying where, instead of being replayed as if it were the room's.
Transcripts from before the chain load as they are; the chain starts with their next record.
"""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from ..errors import InsufficientStorage, Unavailable
from ..events import RECORD_PAYLOADS, Record, Strict

log = logging.getLogger(__name__)


class Transcript:
    def __init__(self, path: Path):
        self.path = path
        self._file: BinaryIO | None = None
        self._next_seq = 1
        self._chain: str | None = None

    def load(self) -> list[tuple[Record, Strict]]:
        """Read every valid record with its parsed payload; bad lines are logged and skipped,
        never fatal."""
        records: list[tuple[Record, Strict]] = []
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        lines = raw.split(b"\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            torn = number == len(lines)  # the file did not end with a newline: a torn write
            try:
                record = Record.model_validate_json(line)
                payload = record.parsed()
            except (ValidationError, ValueError) as err:
                what = "torn last line (a crash mid-write?)" if torn else "unreadable line"
                log.warning("%s:%d: skipping %s: %s", self.path, number, what, err)
                continue
            self._check_link(record, number)
            records.append((record, payload))
        if records:
            self._next_seq = records[-1][0].seq + 1
        self._open(terminate_torn_line=bool(raw) and not raw.endswith(b"\n"))
        return records

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

    def append(self, kind: str, actor: str | None, payload: Strict, ts: float) -> Record:
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
        )
        record.chain = record.linked_to(self._chain)
        line = record.model_dump_json().encode() + b"\n"
        self._write_whole(line)  # raises, with the file as it was, when it cannot be written
        self._next_seq += 1
        self._chain = record.chain
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
            os.fsync(fd)
        except OSError as err:
            os.ftruncate(fd, good)
            if err.errno in (errno.ENOSPC, errno.EDQUOT):
                raise InsufficientStorage(
                    f"The disk that holds the room's state ({self.path.parent}) is full, so the "
                    "room could not record this and changed nothing. Free some space there (or "
                    "ask whoever runs the server to); the room carries on by itself once there "
                    "is room again."
                ) from err
            raise

    def _sync(self) -> None:
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())

    def read_text(self) -> str:
        return self.path.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
