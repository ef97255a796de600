"""The room's record read back: the transcript (whole, a page by seq, or exported as a
notebook, Markdown or JSONL file) and the history evicted from the live document. Pages are
bounded, so a room kept for months is read a page at a time rather than all at once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from jupyter_server.auth.decorator import authorized
from tornado import web

from .. import export
from ..errors import InvalidRequest
from .base import RoomAPIHandler

#: Paging (`?before=SEQ&limit=N`): how many records or entries a page holds by default, at most.
PAGE_LIMIT, MAX_PAGE_LIMIT = 100, 1000


class PagedHandler(RoomAPIHandler):
    async def stream(self, chunks: AsyncIterator[bytes]) -> None:
        """A whole transcript as JSONL, each chunk sent as it is read."""
        self.set_header("Content-Type", "application/jsonl; charset=utf-8")
        async for chunk in chunks:
            self.write(chunk)
            await self.flush()
        self.finish()

    def page_arguments(self) -> tuple[int, int]:
        """`before` (a seq: the page ends just before it; default after the last) and
        `limit`; a clear 400 if either is not a whole number from 1 (`limit` up to 1000)."""
        before = self._positive("before", 2**62)
        limit = self._positive("limit", PAGE_LIMIT)
        if limit > MAX_PAGE_LIMIT:
            raise InvalidRequest(
                f"limit is at most {MAX_PAGE_LIMIT}, not {limit}.", code="invalid_page"
            )
        return before, limit

    def _positive(self, name: str, default: int) -> int:
        raw = self.get_query_argument(name, None)
        if raw is None:
            return default
        if not raw.isascii() or not raw.isdigit() or len(raw) > 18 or int(raw) < 1:
            raise InvalidRequest(
                f"{name} must be a whole number of at least 1, not {raw[:40]!r}.",
                code="invalid_page",
            )
        return int(raw)


class TranscriptHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        """The whole transcript, or with `before`/`limit` one page of its records; with
        `format=ipynb|md|jsonl` the whole of it as a file to download (`export.py`), its times in
        the time zone `tz` names (UTC without one)."""
        fmt = self.get_query_argument("format", None)
        if fmt is not None:
            if {"before", "limit"} & set(self.request.query_arguments):
                raise InvalidRequest(
                    "An export is the whole transcript: format cannot go with before or limit.",
                    code="invalid_format",
                )
            await self._export(fmt)
            return
        if not self.request.query_arguments:  # streamed: the client reads as it comes
            await self.stream(self.room.transcript_chunks(self.identity))
            return
        before, limit = self.page_arguments()
        lines = await self.room.transcript_page(self.identity, before, limit)
        self.set_header("Content-Type", "application/jsonl; charset=utf-8")
        self.finish(b"".join(line + b"\n" for line in lines))

    async def _export(self, fmt: str) -> None:
        if fmt not in export.FORMATS:
            raise InvalidRequest(
                f"format is one of {', '.join(export.FORMATS)}, not {fmt[:40]!r}.",
                code="invalid_format",
            )
        try:  # the reader's zone, as the panel shows times (`Intl`'s IANA name)
            tz = export.zone(self.get_query_argument("tz", None))
        except ValueError as error:
            raise InvalidRequest(
                f"{error}: tz is an IANA name such as Europe/Paris.", code="invalid_time_zone"
            ) from None
        text = await self.room.export_transcript(self.identity, fmt, tz)
        name = export.filename(fmt, time.time(), tz)
        self.set_header("Content-Disposition", f'attachment; filename="{name}"')
        # APIHandler.finish would say application/json
        self.finish(text, set_content_type=export.MEDIA_TYPES[fmt])


class HistoryHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        """Entries evicted from the live document, as it showed them, newest page first."""
        before, limit = self.page_arguments()
        await self.reply(await self.room.history_page(self.identity, before, limit))
