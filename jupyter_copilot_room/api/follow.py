"""A room's transcript as it grows: the records already written after a point, then each new
one as it is committed, with no gap and no repeat between the two."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator

from ..events import Record
from ..room.persistence.recorder import Recorder
from ..room.persistence.transcript_file import Transcript


async def follow(recorder: Recorder, transcript: Transcript, after: int) -> AsyncGenerator[dict]:
    """Every record with `seq > after`, as `transcript.jsonl` holds it, first from the file
    (read in worker threads), then live. The listener is in place before the file is read, so a
    record committed meanwhile comes once, from whichever saw it first."""
    live: asyncio.Queue[Record] = asyncio.Queue()
    recorder.listen(live.put_nowait)
    try:
        last = after
        pending = b""
        async for chunk in transcript.chunks():
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                record = json.loads(line)
                if record["seq"] > last:
                    last = record["seq"]
                    yield record
        while True:
            record = await live.get()
            if record.seq > last:
                last = record.seq
                yield json.loads(record.line())
    finally:
        recorder.unlisten(live.put_nowait)
