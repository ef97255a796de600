"""The threads of one room (`RoomThreads`), and of every room of the server (`ThreadRegistry`).

Every command checks the caller against the room first (its own roles: a viewer sees that
threads exist and by whom, never what they hold), then against the thread: its owner and the
people they added (while members of the room) use it; the room's hosts see and answer in it.
The room's transcript gets one line when a thread opens, is promoted and closes; everything else
a thread does is in its own transcript.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from ..access import rules
from ..access.identity import Identity
from ..access.roles import Action, Role
from ..access.thread_admissions import ThreadAdmissions
from ..agent.seam import ForkFailed
from ..errors import Conflict, InvalidRequest, NotAllowed
from ..events import literal
from ..room.room import Room
from ..room.turns.running_turn import RunningTurn
from . import promotion, worktree
from .fork_point import fork_point
from .room_side import RoomSide
from .thread_records import Thread, ThreadRecords

log = logging.getLogger(__name__)

#: Builds a thread's room: (the room, the thread, its folder, its state_dir, its admissions).
ThreadFactory = Callable[[Room, Thread, Path, Path, ThreadAdmissions], Room]


class RoomThreads:
    def __init__(self, room: Room, build: ThreadFactory):
        self.room = RoomSide(room)  # as loaded now (`ThreadRegistry.of` keeps it current)
        self.build = build
        self.records = ThreadRecords(room.state_dir / "threads")
        self._rooms: dict[str, RoomSide] = {}
        self._lock = asyncio.Lock()  # one thread opens or closes at a time
        self._resuming: set[asyncio.Task] = set()

    # -- who may do what ---------------------------------------------------------------------------

    def _role_in_room(self, username: str) -> Role:
        return self.room.role_of(username)

    def _may_see(self, identity: Identity, thread: Thread) -> Role:
        role = self.room.require(identity, Action.WATCH)
        if rules.admitted(rules.thread_role(role, thread.may_use(identity.username))):
            return role
        raise NotAllowed(
            "Only the thread's owner, the people they added and the room's hosts see a thread.",
            code="not_in_thread",
        )

    def _owner_or_host(self, identity: Identity, thread: Thread) -> None:
        role = self._may_see(identity, thread)
        if not rules.may_manage_thread(role, identity.username, thread.owner):
            raise NotAllowed("Only the thread's owner or a host may do this.", code="not_owner")

    @staticmethod
    def _open(thread: Thread) -> None:
        if thread.state != "open":
            raise Conflict("This thread is closed.", code="thread_closed")

    # -- the commands --------------------------------------------------------------------------

    def show(self) -> None:
        """The threads in the room's document (`meta.threads`): everyone admitted sees that
        they exist and whose they are. A thread's own document says what it is
        (`meta.thread`), so its panel reads no other room's, whichever room the sidebar shows."""
        self.room.show(threads=[thread.listing() for thread in self.records])
        for thread_id, room in self._rooms.items():
            room.show(thread=self.records.get(thread_id).listing())

    def resume(self) -> None:
        """The room started: its threads are shown and its open ones load with it, so a prompt
        queued in one before a restart runs without waiting for someone to open the thread."""
        self.show()
        for thread in self.records:
            if thread.state == "open":
                task = asyncio.create_task(self._resume(thread))
                self._resuming.add(task)
                task.add_done_callback(self._resuming.discard)

    async def _resume(self, thread: Thread) -> None:
        try:
            await self._room_of(thread)
        except Exception as err:  # its own requests say so too, with the room's error
            log.warning(
                "The side thread %s of room %s did not start: %s", thread.id, self.room.name, err
            )

    def listing(self, identity: Identity) -> list[dict]:
        self.room.require(identity, Action.WATCH)
        return [thread.listing() for thread in self.records]

    async def create(self, identity: Identity, after: str | None, title: str) -> dict:
        """A thread forked after the turn of `after` (the latest finished one: None)."""
        self.room.require(identity, Action.SUBMIT)
        agent = self.room.agent
        if agent is None:
            raise Conflict("This room has no agent to fork.", code="no_agent")
        transcript = await self.room.transcript_text()
        point = await asyncio.to_thread(fork_point, transcript, after)  # parsed off the loop
        repository = self._repository()
        await worktree.toplevel(repository)  # 409 before anything is made
        thread_id = uuid.uuid4().hex[:12]
        async with self._lock:
            await self.room.agent_ready()
            started = await worktree.start(repository, self.records.worktree(thread_id), thread_id)
            try:
                await agent.fork(
                    point.later, self.records.state_dir(thread_id), f"{self.room.name}: {title}"
                )
            except BaseException as err:
                await worktree.remove(repository, self.records.worktree(thread_id), thread_id)
                if isinstance(err, (ForkFailed, NotImplementedError)):
                    raise Conflict(
                        f"The agent's session cannot be forked: {err}", code="fork_failed"
                    ) from None
                raise
            thread = Thread(
                id=thread_id,
                title=title,
                owner=identity.username,
                forked_after=point.after,
                base=started.base,
                folder=started.folder,
                created_at=time.time(),
            )
            self.records.add(thread)
        self._note(identity, f"opened the side thread “{title}”.")
        self.show()
        await self._say_where_it_forked(identity, thread, point.asked)
        return thread.listing()

    async def _say_where_it_forked(
        self, identity: Identity, thread: Thread, asked: tuple[str, str] | None
    ) -> None:
        """The thread's first line: what its agent remembers, and where its files are."""
        room = await self._room_of(thread)
        people = [identity.username]
        if asked is None:
            where = "before the room's first turn"
        else:
            author, text = asked
            first = text.strip().splitlines()[0] if text.strip() else ""
            short = first if len(first) <= 80 else first[:79] + "…"
            people.append(author)
            where = f"after {{1}}'s turn “{literal(short)}”"
        note = (
            f"{{0}} forked this side thread from the room {literal(self.room.name)} {where}: the "
            "agent remembers the room's conversation up to there, and works on a copy of its "
            f"files (branch {worktree.BRANCH.format(thread.id)}); the room sees none of it."
        )
        room.note(identity.username, note, *people)

    async def thread_room(self, identity: Identity, thread_id: str) -> Room:
        """The thread's room, started, for someone who may see it."""
        thread = self.records.get(thread_id)
        self._may_see(identity, thread)
        return (await self._room_of(thread)).room

    async def _room_of(self, thread: Thread) -> RoomSide:
        room = self._rooms.get(thread.id)
        if room is None:
            book = ThreadAdmissions(thread=thread, room_role=self._role_in_room)
            folder = self.records.worktree(thread.id) / thread.folder
            state_dir = self.records.state_dir(thread.id)
            room = RoomSide(self.build(self.room.room, thread, folder, state_dir, book))
            self._rooms[thread.id] = room
        await room.ensure_started()
        room.show(thread=thread.listing())
        return room

    def add_person(self, identity: Identity, thread_id: str, username: str) -> dict:
        thread = self.records.get(thread_id)
        self._owner_or_host(identity, thread)
        self._open(thread)
        if not rules.may_join_thread(self._role_in_room(username)):
            raise InvalidRequest(
                f"{self.room.display_name(username)} is not a member of this room: only members "
                "join a thread.",
                code="not_a_member",
            )
        if not thread.may_use(username):
            thread.people.append(username)
            self.records.save()
            self.show()
        return thread.listing()

    async def submit(self, identity: Identity, thread_id: str, text: str) -> tuple[str, int]:
        thread = self.records.get(thread_id)
        self._may_see(identity, thread)
        if not thread.may_use(identity.username):
            raise NotAllowed(
                "Only the thread's owner and the people they added prompt in it.",
                code="not_in_thread",
            )
        self._open(thread)
        room = await self._room_of(thread)
        return room.submit(identity, text)

    async def changes(self, identity: Identity, thread_id: str) -> dict:
        """What promoting as a diff would bring: the diff against the fork, the files, named
        from the room's repository as its cards name them."""
        thread = self.records.get(thread_id)
        self._may_see(identity, thread)
        self._open(thread)
        where = self.records.worktree(thread.id)
        diff, files = await worktree.changes(where, thread.base, thread.folder)
        return {"diff": diff, "files": files}

    async def promote_as_prompt(self, identity: Identity, thread_id: str, text: str) -> dict:
        """A prompt in the room's queue by the owner: `text`, then the thread's last reply."""
        thread = self.records.get(thread_id)
        self._may_see(identity, thread)
        if identity.username != thread.owner:
            raise NotAllowed("Only the thread's owner promotes it.", code="not_owner")
        room = await self._room_of(thread)
        reply = promotion.last_reply(await room.transcript_text())
        if reply is None:
            raise Conflict("The thread has no reply to bring back yet.", code="nothing_to_promote")
        said = f"{text}\n\n{reply}" if text.strip() else reply
        prompt_id, position = self.room.submit(identity, said, thread=thread.id)
        self._note(identity, f"brought the side thread “{thread.title}” back as a prompt.")
        return {"id": prompt_id, "position": position}

    async def promote_as_diff(self, identity: Identity, thread_id: str) -> dict:
        """A turn of the room, by the owner, that shows the thread's changes on a card and, once
        approved, applies them to the shared working tree (`apply_changes`)."""
        thread = self.records.get(thread_id)
        self._may_see(identity, thread)
        if identity.username != thread.owner:
            raise NotAllowed("Only the thread's owner promotes it.", code="not_owner")
        self._open(thread)
        _, files = await worktree.changes(self.records.worktree(thread.id), thread.base)
        if not files:
            raise Conflict("The thread has changed no file yet.", code="nothing_to_promote")
        count = f"{len(files)} file{'s' if len(files) != 1 else ''}"
        said = f"Bring back the changes of the side thread “{thread.title}” ({count})"
        prompt_id, position = self.room.submit(identity, said, thread=thread.id, applies=True)
        self._note(identity, f"brought the side thread “{thread.title}” back as a diff.")
        return {"id": prompt_id, "position": position}

    async def apply_changes(self, turn: RunningTurn) -> str | None:
        """The promote turn (`promotion.apply_changes`): the turn's error, or None."""
        assert turn.prompt.applies_thread is not None
        thread = self.records.get(turn.prompt.applies_thread)
        if thread.state != "open":
            return "The thread was closed before its changes came back."
        worktree_dir = self.records.worktree(thread.id)
        return await promotion.apply_changes(
            self.room, thread, worktree_dir, self._repository(), turn
        )

    def _repository(self) -> Path:
        assert self.room.agent is not None
        return self.room.agent.settings.repository

    async def close(self, identity: Identity, thread_id: str) -> None:
        """The worktree and branch go; the transcript stays, and the thread is listed closed."""
        thread = self.records.get(thread_id)
        self._owner_or_host(identity, thread)
        self._open(thread)
        async with self._lock:
            if (room := self._rooms.pop(thread.id, None)) is not None:
                await room.stop()
            await worktree.remove(self._repository(), self.records.worktree(thread.id), thread.id)
            thread.state = "closed"
            self.records.save()
            self.show()
        self._note(identity, f"closed the side thread “{thread.title}”.")

    def _note(self, identity: Identity, what: str) -> None:
        self.room.note(identity.username, "{0} " + literal(what), identity.username)

    def room_holding(self, request_id: str) -> Room | None:
        """The thread's room where the card `request_id` is open (answered by the room's
        routes), if any."""
        return next((r.room for r in self._rooms.values() if r.holds_card(request_id)), None)

    async def stop(self) -> None:
        for task in list(self._resuming):
            task.cancel()
        await asyncio.gather(*self._resuming, return_exceptions=True)
        rooms, self._rooms = list(self._rooms.values()), {}
        for room in rooms:
            try:
                await room.stop()
            except Exception:
                log.exception("A side thread of room %s did not stop cleanly", self.room.name)


class ThreadRegistry:
    """Every room's threads, by room name; a room unloaded and loaded again keeps its threads."""

    def __init__(self, build: ThreadFactory):
        self.build = build
        self._of: dict[str, RoomThreads] = {}

    def of(self, room: Room) -> RoomThreads:
        threads = self._of.get(room.name)
        if threads is None:
            threads = self._of[room.name] = RoomThreads(room, self.build)
        threads.room = RoomSide(room)
        return threads

    async def apply_changes(self, room_name: str, turn: RunningTurn) -> str | None:
        """The promote turn of the room `room_name` (`RoomThreads.apply_changes`), given to the
        room at its construction by name: its threads are known once it has started."""
        threads = self._of.get(room_name)
        return "No thread applies." if threads is None else await threads.apply_changes(turn)

    def room_holding(self, room: Room, request_id: str) -> Room:
        """Where the card `request_id` is: a thread's room, or else `room`."""
        threads = self._of.get(room.name)
        return (threads.room_holding(request_id) if threads else None) or room

    async def stop(self) -> None:
        """The server stops: every thread's room stops, and what is known of threads is read
        from disk again by the next start."""
        of, self._of = list(self._of.values()), {}
        for threads in of:
            await threads.stop()
