"""A room's start and stop: replay the transcript once (from a snapshot where one matches), settle
what it left open, then serve; stop what was started.

The replay rebuilds the state in place, so it runs at most once per room, and one that fails or is
cancelled midway refuses every later start until the server restarts; what follows it is safe to
repeat, so a start a full disk refused is tried again by the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from functools import partial

from ..access.identity import HostClaim
from ..agent.seam import Agent
from ..errors import Unavailable
from ..settings import SettingsStore
from .budgets.budget_caps import Budgets
from .copilot_signin import SignIn
from .people.participants import People
from .persistence.replay import Replayed, heap_frozen, replay
from .record_keeping import RoomRecords
from .room_spec import MAIN, RoomSpec
from .turns.turns import Turns

log = logging.getLogger(__name__)


INTERRUPTED = (
    "The server restarted during this turn, so it was stopped; it was not re-run. "
    "Submit it again if it is still needed."
)


class RoomStartup:
    """A room's start (the replay, then serving) and stop, and whether it has started."""

    def __init__(
        self,
        spec: RoomSpec,
        *,
        records: RoomRecords,
        people: People,
        turns: Turns,
        settings: SettingsStore,
        budgets: Budgets,
        signin: SignIn,
        agent: Agent | None,
        claim: HostClaim | None,
        restore_model: Callable[[str | None], Awaitable[None]],
    ):
        self.name = spec.name
        self.records = records
        self.people = people
        self.turns = turns
        self.settings = settings
        self.budgets = budgets
        self.signin = signin
        self.agent = agent
        self.claim = claim
        self.restore_model = restore_model
        self.started = False
        self._stopping = False
        self._replayed: Replayed | None = None  # what the replay left, once it has run
        self._refused: Exception | None = None  # why every start is refused: see ensure_started
        self._start_lock = asyncio.Lock()
        self._on_started: list[Callable[[], None]] = []

    async def ensure_started(self) -> None:
        """Start the room, once: replay the transcript into the room's state, then settle what
        it left open and start serving.

        The replay rebuilds the state in place, so it runs at most once per Room: one that fails
        or is cancelled midway leaves the room half rebuilt, and every later start is refused
        with the same error until the server restarts. What follows the replay records (a full
        disk refuses that): a start that fails or is cancelled there is tried again by the next,
        without a second replay, each of its steps being safe to repeat."""
        if self._stopping:
            raise self._stopped()
        async with self._start_lock:
            if self._refused is not None:
                raise self._refused.with_traceback(None)
            if self.started:
                return
            if self._replayed is None:
                self._replayed = await self._replay_once()
            if not self._stopping:
                await self._start(self._replayed)
                self.started = True
            if self._stopping:  # the server stopped meanwhile: nothing of the room runs on
                await self.stop()
                raise self._stopped()
            started, self._on_started = self._on_started, []
            for callback in started:
                callback()

    @property
    def start_refused(self) -> bool:
        """Whether every start is refused until the server restarts (see `ensure_started`); a
        start refused otherwise (a full disk) is tried again by the next request."""
        return self._refused is not None

    def when_started(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the room has started: at once if it has, else when a start
        succeeds, also a request's after the server's start was refused (the host claim is
        printed then, not before)."""
        if self.started:
            callback()
        else:
            self._on_started.append(callback)

    async def _replay_once(self) -> Replayed:
        try:
            return await self._replay()
        except Exception as err:
            self._refused = err  # e.g. a record the chain refuses: `transcript_tampered`
            raise
        except BaseException:  # cancelled (the server stopping)
            self._refused = Unavailable(
                f"The room {self.name!r} was interrupted while it rebuilt itself from its "
                "transcript, so it is only half rebuilt: restart the server to start it.",
                code="start_interrupted",
            )
            raise

    async def _start(self, replayed: Replayed) -> None:
        """Settle the replayed room, then serve it. Until the services start, each step is safe
        to repeat (the caches and the meta are written again, a settled request is forgotten,
        an interrupted prompt finished leaves the queue); nothing after them can fail."""
        self.people.save_decisions()
        self.settings.save()
        self.people.apply_policies(self.settings.current)
        if self.people.book.claimed_hosts and self.claim is not None:
            self.claim.retire()  # the room has its host: no claim link
        document = self.records.document
        document.set_meta(turn_owner=None, turn_prompt=None, kernel_state=None)
        if self.budgets.per_person or self.budgets.room:
            document.set_meta(budgets=self.budgets.model_dump())  # the caps, for the panel
        self.turns.settle_interrupted(replayed.open_requests, INTERRUPTED)
        await self.restore_model(replayed.model)
        await self.records.serve()
        self.turns.start()
        # The runtime takes a second or two to start: the room serves meanwhile, and the
        # agent's status says when it can take the first turn.
        # main's panel shows a ready agent at once, as in 0.1; the others wake at their first prompt
        self.turns.life.bring_up(at_once=self.name == MAIN, last_ready=replayed.last_ready)

    def _stopped(self) -> Unavailable:
        return Unavailable(
            f"The server is stopping, so the room {self.name!r} does not start.",
            code="server_stopping",
        )

    async def stop(self) -> None:
        """Stop serving. A start under way (a request's, during a long replay) sees this when
        its replay ends and stops too, and every later start is refused: the server stops."""
        self._stopping = True
        if not self.started:  # a refused start may have opened the files
            await self.records.close(self.name, served=False)
            return
        await self.turns.stop()
        if self.turns.notebooks is not None:
            await self.turns.notebooks.stop()
        await self.signin.stop()
        if self.agent is not None:
            await self.agent.stop()
        self.turns.life.leave_slots()
        self.people.door.close()
        await self.records.close(self.name, served=True)
        self.started = False

    async def _replay(self) -> Replayed:
        """Rebuild the room from the snapshot and the records after it if the snapshot matches,
        else from the whole transcript (rewriting the archive of evicted entries)."""
        records = self.records
        run = partial(
            replay,
            queue=self.turns.queue,
            people=self.people,
            streams=records.streams,
            settings=self.settings,
            live=records.live,
        )
        with heap_frozen():
            resumed = await records.resume()
            if resumed is None:
                replayed, chunks = Replayed(), records.transcript.load()
            else:
                snap, prefix = resumed
                replayed = await run(snap.live_records(), document=None)
                chunks = records.transcript.load(resume=snap.position, prefix=prefix)
            count = 0
            async with contextlib.aclosing(chunks):
                async for records_read in chunks:  # a chunk at a time, never the whole transcript
                    await run(records_read, document=records.document, replayed=replayed)
                    count += len(records_read)
        records.replayed(count)
        return replayed
