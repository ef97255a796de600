"""What a read of the transcript answers with: its media type, the headers that go with it (an
export's file name) and its bytes, read a chunk at a time in worker threads."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from .. import export
from ..request_bodies import TranscriptQuery

JSONL = "application/jsonl; charset=utf-8"


@dataclass(frozen=True)
class Download:
    media_type: str
    chunks: AsyncIterator[bytes]
    headers: dict[str, str] = field(default_factory=dict)


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data


def lines(records: list[bytes]) -> Download:
    """A page of records, one JSONL line each."""
    return Download(JSONL, _once(b"".join(line + b"\n" for line in records)))


def whole(chunks: AsyncIterator[bytes]) -> Download:
    return Download(JSONL, chunks)


def exported(text: str, query: TranscriptQuery) -> Download:
    """An export as a file to save: its name in the reader's zone."""
    assert query.format is not None
    name = export.filename(query.format, time.time(), query.tz)
    return Download(
        export.MEDIA_TYPES[query.format],
        _once(text.encode()),
        {"Content-Disposition": f'attachment; filename="{name}"'},
    )
