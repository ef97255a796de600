"""The room: a few parts, each built with what it uses, and the objects that work on them.

A room is its records (`record_keeping.py`: transcript, archive, document, sync, snapshots,
streams), its people (`people/`), its cards (`cards/open_requests.py`), its turns with the agent's
life and host (`turns/`), what a turn spends and is sent (`budgets/`, attachments, checkpoints),
its sign-in, its commands by resource (`people_commands.py`, `prompt_commands.py`,
`agent_commands.py`, `history_commands.py`, which the in-process API `api/` calls) and its start
and stop (`startup.py`). `Room` builds each once, in order, handing it the parts it uses; a part
that hears another (the turns hear the cards' waiting and the disk's space, the document a
kernel's state) is subscribed when it is built; nothing is assigned onto a part afterwards. The
agent never sees the room: it is given the turns' `RoomAgentHost`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..access import rules
from ..access.admissions import AdmissionBook
from ..access.identity import HostClaim
from ..access.roles import Role
from ..agent.seam import COPILOT, Agent
from ..attachments import AttachmentStore
from ..catalog import Catalog
from ..checkpoints.turn_checkpoints import Checkpoints
from ..events import Record
from ..notebooks import NotebookEditor
from ..settings import SettingsStore
from .budgets.budget_caps import Budgets
from .budgets.spending import Spending
from .cards.open_requests import OpenRequests
from .commands.agent_commands import AgentCommands
from .commands.history_commands import HistoryCommands
from .commands.people_commands import PeopleCommands
from .commands.prompt_commands import PromptCommands
from .copilot_signin import SignIn
from .live.document import RoomDocument
from .people.participants import People
from .persistence.recorder import Recorder
from .persistence.redaction import Redactor
from .persistence.transcript_file import Transcript
from .record_keeping import RoomRecords
from .room_spec import RoomSpec
from .startup import RoomStartup
from .turns.agent_slots import AgentSlots
from .turns.queue import TaskState
from .turns.running_turn import RunningTurn
from .turns.turn_inputs import TurnInputs
from .turns.turns import Turns


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
        spec: RoomSpec,
        *,
        book: AdmissionBook,
        settings: SettingsStore,
        agent: Agent | None = None,
        catalog: Catalog | None = None,
        notebooks: NotebookEditor | None = None,
        claim: HostClaim | None = None,
        budgets: Budgets | None = None,
        slots: AgentSlots | None = None,
        redactor: Redactor | None = None,
        apply_thread: Callable[[RunningTurn], Awaitable[str | None]] | None = None,
    ):
        self.name = spec.name
        self.state_dir = spec.state_dir
        self.settings = settings
        self.budgets = budgets or Budgets()
        self.agent = agent
        self.catalog = catalog
        self.claim = claim

        def speaker() -> str | None:
            """The title of the agent that speaks now, when not the room's own Copilot."""
            return None if agent is None or agent.name == COPILOT else agent.title

        clock = spec.clock
        self.records = records = RoomRecords(
            spec.state_dir,
            window=spec.document_window,
            client_buffer_bytes=spec.client_buffer_bytes,
            clock=clock,
            redactor=redactor,
            speaker=speaker,
        )
        if notebooks is not None:  # a kernel's state shows in the room's header
            notebooks.executions.on_kernel(records.document.set_kernel)
        self.people = People(
            book,
            spec.state_dir / "admissions.json",
            records.document,
            records.recorder,
            records.sync.connected,
            self.terms,
        )
        self.cards = OpenRequests(records.recorder, clock, speaker, records.document.display_name)
        self.spending = Spending(self.budgets, records.document, records.recorder, clock)
        self.attachments = AttachmentStore(spec.state_dir / "attachments")
        self.checkpoints = Checkpoints(
            spec.repository, spec.state_dir, notebooks.live if notebooks else None
        )
        inputs = TurnInputs(
            records.recorder,
            records.document,
            catalog,
            notebooks,
            self.attachments,
            self.checkpoints,
        )
        #: Called when the room may have become quiet (its agent asleep, a connection closed):
        #: the server's registry then unloads it once it has stayed so (`room_registry.py`).
        self.on_quiet: Callable[[], None] = lambda: None
        self.turns = Turns(
            spec,
            records=records,
            cards=self.cards,
            inputs=inputs,
            settings=settings,
            agent=agent,
            spending=self.spending,
            slots=slots,
            apply_thread=apply_thread,
            asleep=lambda: self.on_quiet(),
        )
        self.signin = SignIn(
            agent,
            lambda kind, actor, payload: records.recorder.commit(kind, actor, payload),
            self.turns.idle,
        )
        self.people_commands = PeopleCommands(
            people=self.people,
            document=records.document,
            queue=self.turns.queue,
            turns=self.turns,
            sync=records.sync,
            recorder=records.recorder,
            settings=settings,
            catalog=catalog,
            claim=claim,
            terms=self.terms,
            maybe_quiet=lambda: self.on_quiet(),
        )
        self.prompt_commands = PromptCommands(
            people=self.people,
            queue=self.turns.queue,
            turns=self.turns,
            open_requests=self.cards,
            recorder=records.recorder,
            transcript=records.transcript,
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
            document=records.document,
            recorder=records.recorder,
            signin=self.signin,
            budgets=self.budgets,
            spending=self.spending,
        )
        self.history_commands = HistoryCommands(
            people=self.people,
            transcript=records.transcript,
            history=records.history,
            document=records.document,
            checkpoints=self.checkpoints,
            turns=self.turns,
            recorder=records.recorder,
            terms=self.terms,
        )
        self.startup = RoomStartup(
            spec,
            records=records,
            people=self.people,
            turns=self.turns,
            settings=settings,
            budgets=self.budgets,
            signin=self.signin,
            agent=agent,
            claim=claim,
            restore_model=self.agent_commands.restore_model,
        )

    # -- what the API reads of its records -------------------------------------------------------

    @property
    def document(self) -> RoomDocument:
        return self.records.document

    @property
    def recorder(self) -> Recorder:
        return self.records.recorder

    @property
    def transcript(self) -> Transcript:
        return self.records.transcript

    async def ensure_started(self) -> None:
        """Start the room, once (`RoomStartup.ensure_started`)."""
        await self.startup.ensure_started()

    async def stop(self) -> None:
        await self.startup.stop()

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
            and not self.records.sync.connected()
            and self.turns.queue.in_flight is None
            and self.turns.queue.next_up() is None
            and not any(rules.at_the_door(Role(p["role"])) for p in self.people.listing())
        )

    def listen(self, listener: Callable[[Record], None]) -> None:
        """Hear every record the room commits, after the document shows it (`metrics.py`)."""
        self.records.recorder.listen(listener)

    def readings(self) -> Readings:
        """What the room says of itself now (the metrics read it at each scrape)."""
        records = self.records
        try:
            transcript_bytes = os.stat(records.transcript.path).st_size
        except OSError:
            transcript_bytes = 0
        return Readings(
            waiting=sum(1 for p in self.turns.queue.open() if p.state is TaskState.SUBMITTED),
            agent_state=self.turns.life.state().value,
            connected=Counter(self.people.role_of(name).value for name in records.sync.connected()),
            transcript_bytes=transcript_bytes,
            storage_full=records.storage.full,
            storage_refusals=records.storage.refusals,
            slow_client_disconnects=records.sync.fell_behind,
            restarts=Counter(self.turns.life.restarts),
        )

    async def durable(self) -> None:
        """Once every record written so far is on disk: a command is acknowledged after this
        (`RoomRecords.durable`)."""
        await self.records.durable()
