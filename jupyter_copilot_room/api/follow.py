"""A room's transcript as it grows: the records already written after a point, then each new
one as it is committed, with no gap and no repeat between the two.

A follower that reads slower than the room writes (a front waiting on a slow service) holds at
most `LIVE_LIMIT` records in memory: past that it is told it fell behind (logged), lets the
records it held go, and reads on from the transcript file, which has every one of them."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncGenerator

from ..events import Record
from ..room.persistence.recorder import Recorder
from ..room.persistence.transcript_file import Transcript

log = logging.getLogger(__name__)

#: Records one follower holds in memory before it reads on from the file instead.
LIVE_LIMIT = 1000


class _Live:
    """The records committed since a follower last read, up to `limit`; past it, none and
    `behind` (the file has them all)."""

    def __init__(self, limit: int):
        self.queue: asyncio.Queue[Record] = asyncio.Queue(limit)
        self.behind = False

    def put(self, record: Record) -> None:
        try:
            self.queue.put_nowait(record)
        except asyncio.QueueFull:
            self.behind = True
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(record)  # wakes a reader waiting on an empty queue


async def follow(recorder: Recorder, transcript: Transcript, after: int) -> AsyncGenerator[dict]:
    """Every record with `seq > after`, as `transcript.jsonl` holds it, first from the file
    (read in worker threads), then live. The listener is in place before the file is read, so a
    record committed meanwhile comes once, from whichever saw it first."""
    limit = LIVE_LIMIT
    live = _Live(limit)
    recorder.listen(live.put)
    try:
        last = after
        while True:
            live.behind = False  # before the file is read: what comes meanwhile is held
            async for written in _written(transcript, last):
                last = written["seq"]
                yield written
            while not live.behind:
                record = await live.queue.get()
                if live.behind:
                    break
                if record.seq > last:
                    last = record.seq
                    yield json.loads(record.line())
            log.warning(
                "A follower of the transcript fell more than %d records behind; it reads on "
                "from the file, after record %d.",
                limit,
                last,
            )
    finally:
        recorder.unlisten(live.put)


async def _written(transcript: Transcript, after: int) -> AsyncGenerator[dict]:
    """The records the file holds now with `seq > after`."""
    pending = b""
    async for chunk in transcript.chunks():
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            record = json.loads(line)
            if record["seq"] > after:
                yield record
