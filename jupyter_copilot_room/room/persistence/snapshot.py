"""Restarting from a snapshot instead of replaying the whole transcript.

`snapshot.ydoc` is the room document's state (`Doc.get_update()`), `snapshot.json` says what it
covers: the last record (`seq`), the transcript's byte offset after it and the sha256 of the bytes
before it, the chain value there, the window, the sha256 of `snapshot.ydoc`, how many bytes of
`history.jsonl` it covers, and the live records: the few records still needed to rebuild the
state that is not in the document (the queue, people and hosts' decisions, settings, open
requests and streams, the agent's last status), which `LiveRecords` keeps up to date as records
are written and replayed.

A start loads the snapshot only if every one of those matches (the transcript's prefix is hashed
again); otherwise it is discarded and the room replays the whole transcript, as before. Like the
other files beside the transcript it is a cache: the transcript stays the source of truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ...events import Record, Strict
from ...events.consumers import rebuilds
from ...statefiles import read_json, write_json_atomically
from .transcript_file import Position

#: The live records a start from a snapshot replays again (`events/consumers.py`).
RECORDS = rebuilds(
    "snapshot",
    handles=[
        "prompt.submitted",
        "prompt.withdrawn",
        "prompt.started",
        "prompt.finished",
        "assistant.started",
        "assistant.message",
        "agent.ready",
        "request.opened",
        "request.settled",
        "request.approval",
        "person.seen",
        "admission.decided",
        "role.changed",
        "person.removed",
        "host.claimed",
        "settings.changed",
        "model.changed",
    ],
    ignores=[
        "tool.started",
        "tool.completed",
        "plan.updated",
        "subagent.started",
        "subagent.ended",
        "usage",
        "agent.error",
        "abort",
        "system",
        "chat.message",
        "prompt.steered",
        "budget.lifted",
        "turn.checkpointed",
        "turn.reverted",
        "copilot.signed_in",
        "copilot.signed_out",
        "room.created",
    ],
)

log = logging.getLogger(__name__)

FORMAT = 1
RETRY_SECONDS = 1.0
YDOC_FILE, META_FILE = "snapshot.ydoc", "snapshot.json"

#: Record kinds that change people, hosts' decisions or settings: all kept (they are few).
_DECISIONS = frozenset(
    {
        "admission.decided",
        "role.changed",
        "person.removed",
        "host.claimed",
        "settings.changed",
        "model.changed",
    }
)


class LiveRecords:
    """The records a restart needs besides the document, kept small as the room runs: every
    decision and settings change, the last `person.seen` per person, the submission of each
    prompt still queued, the start of the running one, open requests (with the last approval of
    one that needs two) and streams, and the last `agent.ready`. Replaying them alone rebuilds
    what replaying every record would. Pure: fed each record in order, no I/O."""

    def __init__(self) -> None:
        self._seen: dict[str, Record] = {}
        self._decisions: list[Record] = []
        self._queued: dict[str, Record] = {}
        self._started: Record | None = None
        self._requests: dict[str, Record] = {}
        self._approvals: dict[str, Record] = {}
        self._streams: dict[str, Record] = {}
        self._ready: Record | None = None

    def add(self, record: Record) -> None:
        p = record.payload
        kind = record.kind
        if kind == "person.seen":
            self._seen.pop(p.get("username", ""), None)  # re-inserted last: dict order is seq
            self._seen[p.get("username", "")] = record
        elif kind in _DECISIONS:
            self._decisions.append(record)
        elif kind == "prompt.submitted":
            self._queued[p["id"]] = record
        elif kind == "prompt.withdrawn":
            self._queued.pop(p["id"], None)
        elif kind == "prompt.started":
            self._started = record
        elif kind == "prompt.finished":
            self._queued.pop(p["id"], None)
            if self._started is not None and self._started.payload.get("id") == p["id"]:
                self._started = None
        elif kind == "request.opened":
            self._requests[p["id"]] = record
        elif kind == "request.settled":
            self._requests.pop(p["id"], None)
            self._approvals.pop(p["id"], None)
        elif kind == "request.approval":
            self._approvals[p["id"]] = record
        elif kind == "assistant.started":
            self._streams[p["entry_id"]] = record
        elif kind == "assistant.message":
            self._streams.pop(p["entry_id"], None)
        elif kind == "agent.ready":
            self._ready = record

    def records(self) -> list[Record]:
        """The live records, in transcript order."""
        kept = [
            *self._seen.values(),
            *self._decisions,
            *self._queued.values(),
            *self._requests.values(),
            *self._approvals.values(),
            *self._streams.values(),
        ]
        kept += [r for r in (self._started, self._ready) if r is not None]
        return sorted(kept, key=lambda record: record.seq)


@dataclass(frozen=True)
class Snapshot:
    """What `snapshot.json` holds (with `snapshot.ydoc`'s bytes beside it)."""

    window: int
    position: Position
    ydoc_sha256: str
    archive_bytes: int
    live: list[dict[str, Any]]
    format: int = FORMAT

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["position"] = asdict(self.position)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        """Raises KeyError/TypeError/ValueError for anything but a snapshot of this format."""
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, not {FORMAT}")
        return cls(
            window=int(data["window"]),
            position=Position(**data["position"]),
            ydoc_sha256=str(data["ydoc_sha256"]),
            archive_bytes=int(data["archive_bytes"]),
            live=list(data["live"]),
        )

    def live_records(self) -> list[tuple[Record, Strict]]:
        """The live records, parsed (raises ValueError if one is not a record)."""
        parsed = []
        for data in self.live:
            record = Record.model_validate(data)
            parsed.append((record, record.parsed()))
        return parsed


def read(state_dir: Path) -> tuple[Snapshot, bytes] | None:
    """The snapshot and its document bytes, or None if there is none (run in a thread). Raises
    ValueError (or KeyError, TypeError) for an unreadable one."""
    data = read_json(state_dir / META_FILE)
    if data is None:
        return None
    snapshot = Snapshot.from_json(data)
    update = (state_dir / YDOC_FILE).read_bytes()
    if hashlib.sha256(update).hexdigest() != snapshot.ydoc_sha256:
        raise ValueError(f"{YDOC_FILE} is not the document {META_FILE} describes")
    return snapshot, update


def write(state_dir: Path, snapshot: Snapshot, update: bytes) -> None:
    """Write both files atomically, the document first (run in a thread): a crash between the
    two leaves a description that no longer matches its document, which a start discards."""
    fd, tmp = tempfile.mkstemp(dir=state_dir, prefix=f".{YDOC_FILE}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(update)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, state_dir / YDOC_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    write_json_atomically(state_dir / META_FILE, snapshot.to_json())


def discard(state_dir: Path) -> None:
    for name in (META_FILE, YDOC_FILE):
        (state_dir / name).unlink(missing_ok=True)


class Snapshots:
    """Writes snapshots one at a time, the files and hashing in a worker thread: when asked
    (a compaction), after `every_records` records, `every_seconds` after a change, and at stop.
    `capture` takes the state on the loop (None while it cannot: a reply is streaming). A failed
    write (a full disk) is logged and changes nothing else."""

    def __init__(
        self,
        state_dir: Path,
        capture: Callable[[], tuple[Snapshot, bytes] | None],
        before_write: Callable[[], None] = lambda: None,
        *,
        every_records: int = 1000,
        every_seconds: float = 60.0,
    ):
        self.state_dir = state_dir
        self.capture = capture
        self.before_write = before_write  # in the thread, first: fsync what the snapshot names
        self.every_records = every_records
        self.every_seconds = every_seconds
        self.changed = 0  # records since the last snapshot
        self.written = 0  # snapshots written (for tests and benchmarks)
        self._wanted = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._stopping = False
        self._deferred = False  # wanted, but a reply was streaming

    def recorded(self) -> None:
        self.changed += 1
        if self.changed >= self.every_records:
            self._wanted.set()

    def request(self) -> None:
        self._wanted.set()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while not self._stopping:
            # A snapshot wanted while it could not be taken is tried again shortly.
            wait = RETRY_SECONDS if self._deferred else self.every_seconds
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wanted.wait(), wait)
            if not self._stopping and (self._wanted.is_set() or self._deferred or self.changed):
                await self.write()

    async def write(self) -> bool:
        """Write a snapshot now if the state can be captured; whether one was written."""
        self._wanted.clear()
        captured = self.capture()
        self._deferred = captured is None
        if captured is None:
            return False
        changed, self.changed = self.changed, 0
        snapshot, update = captured
        try:
            await asyncio.to_thread(self._write, snapshot, update)
        except Exception as err:  # a cache: the room goes on without it
            self.changed += changed
            log.warning("Could not write the room snapshot in %s: %s", self.state_dir, err)
            return False
        self.written += 1
        return True

    def _write(self, snapshot: Snapshot, update: bytes) -> None:
        self.before_write()
        digest = hashlib.sha256(update).hexdigest()
        write(self.state_dir, replace(snapshot, ydoc_sha256=digest), update)

    async def stop(self) -> None:
        """Stop the periodic writes and write the last snapshot."""
        if self._task is not None:
            self._stopping = True  # not cancelled: a write in its thread finishes first
            self._wanted.set()
            await self._task
            self._task = None
        if self.changed:
            await self.write()
