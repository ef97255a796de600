"""A room's side threads as fronts drive them: open one forked from the conversation, list them,
add people, prompt in one, bring it back, close it. `threads/` decides who may do what."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Literal

from ..access.identity import Identity
from ..request_bodies import TranscriptQuery
from ..room.room import Room
from ..threads import RoomThreads
from .download import Download
from .person import Caller, acting

if TYPE_CHECKING:
    from .room_api import RoomAPI


class ThreadsAPI:
    def __init__(
        self,
        threads: RoomThreads,
        wrap: Callable[[Room], RoomAPI],
        known: Callable[[str], Identity | None],
    ):
        self._threads = threads
        self._wrap = wrap  # a thread's room as the API shows it
        self._known = known  # the room's last sight of a username

    def _acting(self, caller: Caller) -> AbstractContextManager[Identity]:
        return acting(caller, self._known)

    def listing(self, caller: Caller) -> list[dict]:
        with self._acting(caller) as identity:
            return self._threads.listing(identity)

    async def create(self, caller: Caller, after: str | None, title: str) -> dict:
        """A thread forked after the turn of the prompt `after` (the latest finished: None)."""
        with self._acting(caller) as identity:
            return await self._threads.create(identity, after, title.strip() or "Side thread")

    async def open(self, caller: Caller, thread_id: str) -> RoomAPI:
        """The thread as a room of its own, for the people who may see it."""
        with self._acting(caller) as identity:
            return self._wrap(await self._threads.thread_room(identity, thread_id))

    async def transcript(self, caller: Caller, thread_id: str) -> Download:
        """The thread's whole transcript, as JSONL (like the room's)."""
        thread = await self.open(caller, thread_id)
        return await thread.read_transcript(caller, TranscriptQuery())

    def add_person(self, caller: Caller, thread_id: str, username: str) -> dict:
        with self._acting(caller) as identity:
            return self._threads.add_person(identity, thread_id, username)

    async def submit(self, caller: Caller, thread_id: str, text: str) -> dict:
        with self._acting(caller) as identity:
            prompt_id, position = await self._threads.submit(identity, thread_id, text)
            return {"id": prompt_id, "position": position}

    async def changes(self, caller: Caller, thread_id: str) -> dict:
        with self._acting(caller) as identity:
            return await self._threads.changes(identity, thread_id)

    async def promote(
        self, caller: Caller, thread_id: str, as_: Literal["diff", "prompt"], text: str = ""
    ) -> dict:
        """Bring the thread back: its last reply as a prompt of the room, or its changes as a
        card, then a turn of the room."""
        with self._acting(caller) as identity:
            if as_ == "prompt":
                return await self._threads.promote_as_prompt(identity, thread_id, text)
            return await self._threads.promote_as_diff(identity, thread_id)

    async def close(self, caller: Caller, thread_id: str) -> None:
        with self._acting(caller) as identity:
            await self._threads.close(identity, thread_id)
