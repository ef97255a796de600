"""The room: its parts, built and wired once, and the objects that work on them.

Every room has the same parts (transcript, document, people, queue, turns, open requests, sync,
snapshots, checkpoints, attachments, sign-in). `Room` builds them and wires their listeners (a
record updates the agent's shown state, the live records a snapshot keeps, the seat's quota after
a turn; a compaction serves the new document), then composes the objects that work on them, each
given only the parts it uses: its start and stop (`startup.py`) and its commands by resource
(`people_commands.py`, `prompt_commands.py`, `agent_commands.py`, `history_commands.py`), which
the in-process API (`api/`) calls. The agent never sees it: it is given a `RoomAgentHost`.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pycrdt import Doc

from ..access import rules
from ..access.admissions import AdmissionBook
from ..access.identity import HostClaim
from ..access.roles import Role
from ..agent.seam import COPILOT, Agent
from ..attachments import AttachmentStore
from ..catalog import Catalog
from ..checkpoints.turn_checkpoints import Checkpoints
from ..events import (
    Record,
)
from ..events.consumers import reads
from ..notebooks import NotebookEditor
from ..settings import SettingsStore
from ..statefiles import TRANSCRIPT_FILE
from .budgets.budget_caps import Budgets
from .budgets.spending import Spending
from .cards.open_requests import OpenRequests
from .commands.agent_commands import AgentCommands
from .commands.history_commands import HistoryCommands
from .commands.people_commands import PeopleCommands
from .commands.prompt_commands import PromptCommands
from .copilot_signin import SignIn
from .live.document import DEFAULT_WINDOW, RoomDocument
from .live.streams import Streams
from .live.sync import CLIENT_BUFFER_BYTES, RoomSync
from .people.participants import People
from .persistence.history import History
from .persistence.recorder import Recorder
from .persistence.redaction import Redactor
from .persistence.snapshot import LiveRecords, Snapshot, Snapshots
from .persistence.storage import StorageWatch
from .persistence.transcript_file import Transcript
from .startup import MAIN, RoomStartup
from .turns.agent_host import RoomAgentHost
from .turns.agent_slots import AgentSlots
from .turns.queue import PromptQueue, TaskState
from .turns.turns import Turns

#: A finished turn may have used premium requests: the seat's quota is read again
#: (`events/consumers.py`).
RECORDS = reads(
    "seat_quota",
    handles=["prompt.finished"],
    ignores=[
        "prompt.submitted",
        "prompt.withdrawn",
        "prompt.started",
        "assistant.started",
        "assistant.message",
        "tool.started",
        "tool.completed",
        "plan.updated",
        "subagent.started",
        "subagent.ended",
        "usage",
        "agent.error",
        "agent.ready",
        "request.opened",
        "request.settled",
        "request.approval",
        "abort",
        "person.seen",
        "admission.decided",
        "role.changed",
        "person.removed",
        "host.claimed",
        "settings.changed",
        "system",
        "chat.message",
        "prompt.steered",
        "model.changed",
        "budget.lifted",
        "turn.checkpointed",
        "turn.reverted",
        "copilot.signed_in",
        "copilot.signed_out",
        "room.created",
    ],
)


@dataclass(frozen=True)
class Readings:
    """What a room says of itself now, for a scrape: all the metrics read of it."""

    waiting: int  # prompts in its queue, not counting the running one
    agent_state: str
    connected: Counter[str]  # people with the room open, by role
    transcript_bytes: int
    storage_full: bool
    storage_refusals: int
    slow_client_disconnects: int
    restarts: Counter[str]  # of its agent, by reason


class Room:
    """One room: built here, started by `ensure_started`, driven through `api/`."""

    def __init__(
        self,
        *,
        state_dir: Path,
        book: AdmissionBook,
        repository: Path | None = None,
        settings: SettingsStore,
        agent: Agent | None = None,
        catalog: Catalog | None = None,
        notebooks: NotebookEditor | None = None,
        claim: HostClaim | None = None,
        clock: Callable[[], float] = time.time,
        client_buffer_bytes: int = CLIENT_BUFFER_BYTES,
        document_window: int = DEFAULT_WINDOW,
        budgets: Budgets | None = None,
        name: str = MAIN,
        slots: AgentSlots | None = None,
        idle_timeout: float = 0.0,
        redactor: Redactor | None = None,
    ):
        self.name = name
        self.settings = settings
        self.budgets = budgets or Budgets()
        self.clock = clock
        self.agent = agent
        self.catalog = catalog
        self.claim = claim
        self.state_dir = state_dir
        self.transcript = Transcript(state_dir / TRANSCRIPT_FILE)
        self.history = History(state_dir / "history.jsonl")
        self.document = RoomDocument(
            document_window, on_evict=self.history.append, on_compacted=self._compacted
        )
        self.live = LiveRecords()
        self.snapshots = Snapshots(state_dir, self._capture, self.history.sync)
        self.sync = RoomSync(self.document.ydoc, client_buffer_bytes=client_buffer_bytes)
        self.storage = StorageWatch(state_dir)
        self.recorder = Recorder(self.transcript, self.document, clock, self.storage, redactor)
        self.spending = Spending(self.budgets, self.document, self.recorder, clock)
        self.people = People(
            book,
            state_dir / "admissions.json",
            self.document,
            self.recorder,
            self.sync.connected,
            self.terms,
        )
        self.queue = PromptQueue()
        self.attachments = AttachmentStore(state_dir / "attachments")
        self.checkpoints = Checkpoints(
            repository or Path.cwd(), state_dir, notebooks.live if notebooks else None
        )

        def speaker() -> str | None:
            """The title of the agent that speaks now, when not the room's own Copilot."""
            return None if agent is None or agent.name == COPILOT else agent.title

        self.open_requests = OpenRequests(self.recorder, clock, speaker)
        self.streams = Streams(self.recorder, self.document, speaker)
        self.turns = Turns(
            queue=self.queue,
            recorder=self.recorder,
            document=self.document,
            open_requests=self.open_requests,
            streams=self.streams,
            settings=settings,
            agent=agent,
            catalog=catalog,
            notebooks=notebooks,
            attachments=self.attachments,
            checkpoints=self.checkpoints,
            name=name,
            slots=slots,
            idle_timeout=idle_timeout,
        )
        self.open_requests.on_waiting = self.turns.set_waiting
        self.storage.on_space(self.turns.space_returned)
        self.recorder.listen(lambda record: self.turns.life.show_state())
        self.recorder.listen(self._recorded)
        self.agent_host = RoomAgentHost(
            self.turns,
            self.open_requests,
            self.streams,
            self.recorder,
            self.document,
            settings,
            repository=repository or Path.cwd(),
            state_dir=state_dir,
            confined=name != MAIN,  # main's folder is the server's root, which holds the others
            spending=self.spending,
        )
        self.turns.life.host = self.agent_host
        self.turns.life.on_ready = self._read_seat_quota
        self.signin = SignIn(
            agent,
            lambda kind, actor, payload: self.recorder.commit(kind, actor, payload),
            lambda: self.queue.in_flight is None,
        )
        #: Called when the room may have become quiet (its agent asleep, a connection closed):
        #: the server's registry then unloads it once it has stayed so (`room_registry.py`).
        self.on_quiet: Callable[[], None] = lambda: None
        self.turns.life.on_asleep = lambda: self.on_quiet()
        self.people_commands = PeopleCommands(
            people=self.people,
            document=self.document,
            queue=self.queue,
            turns=self.turns,
            sync=self.sync,
            recorder=self.recorder,
            settings=settings,
            catalog=catalog,
            claim=claim,
            terms=self.terms,
            maybe_quiet=lambda: self.on_quiet(),
        )
        self.prompt_commands = PromptCommands(
            people=self.people,
            queue=self.queue,
            turns=self.turns,
            open_requests=self.open_requests,
            recorder=self.recorder,
            transcript=self.transcript,
            settings=settings,
            attachments=self.attachments,
            spending=self.spending,
            catalog=catalog,
            agent=agent,
            terms=self.terms,
        )
        self.agent_commands = AgentCommands(
            people=self.people,
            agent=agent,
            document=self.document,
            recorder=self.recorder,
            signin=self.signin,
            budgets=self.budgets,
            spending=self.spending,
        )
        self.history_commands = HistoryCommands(
            people=self.people,
            transcript=self.transcript,
            history=self.history,
            document=self.document,
            checkpoints=self.checkpoints,
            turns=self.turns,
            recorder=self.recorder,
            terms=self.terms,
        )
        self.startup = RoomStartup(
            name=name,
            state_dir=state_dir,
            transcript=self.transcript,
            history=self.history,
            document=self.document,
            live=self.live,
            snapshots=self.snapshots,
            sync=self.sync,
            storage=self.storage,
            people=self.people,
            queue=self.queue,
            streams=self.streams,
            turns=self.turns,
            settings=settings,
            budgets=self.budgets,
            signin=self.signin,
            agent=agent,
            claim=claim,
            restore_model=self.agent_commands.restore_model,
        )

    async def ensure_started(self) -> None:
        """Start the room, once (`RoomStartup.ensure_started`)."""
        await self.startup.ensure_started()

    async def stop(self) -> None:
        await self.startup.stop()

    def _recorded(self, record: Record) -> None:
        self.live.add(record)
        self.snapshots.recorded()
        if record.kind == "prompt.finished":
            self._read_seat_quota()  # the turn may have used premium requests

    def _read_seat_quota(self) -> None:
        """Show what the Copilot seat has left (header), read after the agent got ready (a
        sign-in changes the seat) and after each turn; None where no seat answers."""
        agent = self.agent
        if agent is None:
            return

        async def read() -> None:
            quota = await agent.seat_quota()
            self.document.set_meta(copilot_quota=dataclasses.asdict(quota) if quota else None)

        self.turns.spawn(read())

    def _compacted(self, ydoc: Doc) -> None:
        """The document was rebuilt without its evicted entries: serve it, and snapshot it."""
        self.sync.replace_document(ydoc)
        self.snapshots.request()

    def _capture(self) -> tuple[Snapshot, bytes] | None:
        """The snapshot of the room now; None while a reply streams (its deltas are in the
        document but in no record) or after an archive write failed."""
        if self.streams.streaming or not self.history.intact:
            return None
        snap = Snapshot(
            window=self.document.window,
            position=self.transcript.position(),
            ydoc_sha256="",
            archive_bytes=self.history.size,
            live=[record.model_dump(mode="json") for record in self.live.records()],
        )
        return snap, self.document.ydoc.get_update()

    def terms(self) -> rules.Terms:
        """What of the room's settings and state the rules of `access/rules.py` depend on."""
        settings = self.settings.current
        return rules.Terms(
            viewers_can_chat=settings.viewers_can_chat,
            authors_can_revert=settings.authors_can_revert,
            claimable=self.claim is not None and self.claim.secret is not None,
        )

    @property
    def quiet(self) -> bool:
        """Nothing would notice the room unloaded: started, its agent asleep, nobody connected,
        no prompt queued or running, nobody waiting at the door."""
        return (
            self.startup.started
            and (self.agent is None or self.turns.life.agent_status == "sleeping")
            and not self.sync.connected()
            and self.queue.in_flight is None
            and self.queue.next_up() is None
            and not any(rules.at_the_door(Role(p["role"])) for p in self.people.listing())
        )

    def listen(self, listener: Callable[[Record], None]) -> None:
        """Hear every record the room commits, after the document shows it (`metrics.py`)."""
        self.recorder.listen(listener)

    def readings(self) -> Readings:
        """What the room says of itself now (the metrics read it at each scrape)."""
        try:
            transcript_bytes = os.stat(self.transcript.path).st_size
        except OSError:
            transcript_bytes = 0
        return Readings(
            waiting=sum(1 for p in self.queue.open() if p.state is TaskState.SUBMITTED),
            agent_state=self.turns.life.state().value,
            connected=Counter(self.people.role_of(name).value for name in self.sync.connected()),
            transcript_bytes=transcript_bytes,
            storage_full=self.storage.full,
            storage_refusals=self.storage.refusals,
            slow_client_disconnects=self.sync.fell_behind,
            restarts=Counter(self.turns.life.restarts),
        )

    async def durable(self) -> None:
        """Once every record written so far is on disk: a command is acknowledged after this
        (the transcript's group commit: one fsync, in a worker thread, for a tick's records)."""
        await self.transcript.durable()
