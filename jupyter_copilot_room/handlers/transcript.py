"""The room's record read back: the transcript (whole, a page by seq, or exported as a
notebook, Markdown or JSONL file) and the history evicted from the live document. Pages are
bounded, so a room kept for months is read a page at a time rather than all at once.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..api import Download
from ..request_bodies import PageQuery, TranscriptQuery
from .room_handler import RoomAPIHandler


class PagedHandler(RoomAPIHandler):
    def arguments(self) -> dict[str, str]:
        """The query's arguments, each its last value as text."""
        return {name: self.get_query_argument(name) for name in self.request.query_arguments}

    async def send(self, download: Download) -> None:
        """A transcript, a page of it or an export, each chunk sent as it is read."""
        self.set_header("Content-Type", download.media_type)
        for name, value in download.headers.items():
            self.set_header(name, value)
        async for chunk in download.chunks:
            self.write(chunk)
            await self.flush()
        self.finish()


class TranscriptHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        """The whole transcript, or with `before`/`limit` one page of its records; with
        `format=ipynb|md|jsonl` the whole of it as a file to download (`export.py`), its times in
        the time zone `tz` names (UTC without one)."""
        query = TranscriptQuery.of(self.arguments())
        await self.send(await self.room.read_transcript(self.identity, query))


class HistoryHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        """Entries evicted from the live document, as it showed them, newest page first."""
        page = PageQuery.of(self.arguments())
        await self.reply(await self.room.history_page(self.identity, page.before, page.limit))
