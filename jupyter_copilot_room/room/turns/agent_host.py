"""What the agent is given at start: a way to report events and to ask people for things.

The agent never sees the room. It publishes events (each declared once in `events.py`), which
this host maps to the running turn: deltas stream into the document, recorded events are stamped
with their prompt and recorded, the end of a turn and the agent's status go to `Turns`. Its
permission requests and questions go to the open requests (`open_requests.py`), only while a turn
runs and is not being stopped; the approval policy (a room setting) settles some at once by rule,
names the rule on the card, or wants two approvers; a kind hosts let through (notebook edits) is
approved by the room's settings. What the room cannot record because the disk is full stops the
turn (`Turns.storage_failed`): the agent hears a refusal, and the turn fails once space returns.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from ...agent.seam import Answer, PermissionAsk, QuestionAsk
from ...errors import InsufficientStorage
from ...events import (
    RECORDED_EVENTS,
    AgentEvent,
    AgentStatus,
    AssistantMessage,
    MessageDelta,
    ReplyRetried,
    Strict,
    SubagentEnded,
    ToolCompleted,
    ToolStarted,
    TurnEnded,
    TurnUsage,
)
from ...settings import SettingsStore
from ..budgets.spending import Spending
from ..cards.open_requests import OpenRequests
from ..cards.readable_asks import as_people_read, relative
from ..live.document import RoomDocument
from ..live.streams import Streams
from ..persistence.recorder import Recorder
from .running_turn import RunningTurn

if TYPE_CHECKING:
    from .turns import Turns

log = logging.getLogger(__name__)

#: The permission kinds that run code, which may change any file (`checkpoints/file_share.py`).
CODE_KINDS = frozenset({"shell", "execute"})

NOTHING_RUNNING = "No prompt is running in the room, so this was rejected."
PROTECTED = (
    "Rejected by the room: that is the room's own state (its transcript, admissions and "
    "settings), which the agent may never read or change."
)
OUTSIDE_THE_ROOM = (
    "Rejected by the room: {path} is outside this room's folder, and a room's agent reads and "
    "writes only inside it (other rooms' files are theirs)."
)
NO_SPACE = "The server's disk is full, so the room could not record this; it was rejected."


class RoomAgentHost:
    def __init__(
        self,
        turns: Turns,
        open_requests: OpenRequests,
        streams: Streams,
        recorder: Recorder,
        document: RoomDocument,
        settings: SettingsStore,
        spending: Spending,
        repository: Path,
        state_dir: Path,
        confined: bool = False,
    ):
        self.turns = turns
        self.open_requests = open_requests
        self.streams = streams
        self.recorder = recorder
        self.document = document
        self.settings = settings
        self.repository = repository
        self.state_dir = state_dir.resolve()
        self.confined = confined  # reads and writes stay inside `repository` (not main's)
        self.spending = spending

    def credits_left(self) -> float | None:
        running = self.turns.running
        return self.spending.credits_left(running.prompt.author if running else None)

    async def publish(self, event: AgentEvent) -> None:
        try:
            self._publish(event)
        except InsufficientStorage:
            self.turns.storage_failed()

    def _publish(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStatus):
            self.turns.life.status_changed(event)
            return
        turn = self.turns.running
        if turn is None:
            log.debug("Ignored %s outside a turn", type(event).__name__)
            return
        match event:
            case TurnEnded():
                self.turns.end(event.error)
            case MessageDelta():
                self.streams.delta(turn.prompt.id, event)
            case ReplyRetried():
                self.streams.close_all(retried=True)
            case AssistantMessage():
                self.streams.finish(turn.prompt.id, event)
            case _ if type(event) in RECORDED_EVENTS:
                self._record(turn, event)
            case _:
                log.debug("Ignored an agent event the room does not know: %r", event)

    def _record(self, turn: RunningTurn, event: Strict) -> None:
        """An event recorded as it is, stamped with the turn it belongs to."""
        if isinstance(event, ToolCompleted | SubagentEnded) and not self.document.has_entry(
            event.call_id
        ):
            log.debug("Ignored the end of %s, whose start the room never saw", event.call_id)
            return
        context = {"prompt_id": turn.prompt.id, "author": turn.prompt.author}
        if isinstance(event, ToolStarted):  # a tool's path, as the cards name it
            context["summary"] = relative(event.summary, self.repository)
        fields = type(event).model_fields
        stamped = event.model_copy(update={k: v for k, v in context.items() if k in fields})
        self.recorder.commit(RECORDED_EVENTS[type(event)], None, stamped)
        if isinstance(stamped, TurnUsage):
            self.spending.booked(stamped)

    async def request_permission(self, ask: PermissionAsk) -> Answer:
        answer = await self._refused_when_disk_full(self._request_permission(ask))
        await self.turns.worktree_read()  # the turn's checkpoint has the worktree before this
        if answer.approved and (turn := self.turns.running) is not None:
            if ask.kind == "write":
                paths = [change.path for change in ask.changes] or [ask.summary]
                turn.wrote.update(relative(path, self.repository) for path in paths)
            elif ask.kind in CODE_KINDS:
                turn.ran_code = True
        return answer

    async def _request_permission(self, ask: PermissionAsk) -> Answer:
        turn, refusal = self._turn_taking_requests()
        if turn is None:
            return refusal
        settings = self.settings.current
        ask = as_people_read(ask, self.repository)
        if self._touches_the_rooms_state(ask):
            return self.open_requests.settle_by_room(turn.prompt, ask, approve=False, why=PROTECTED)
        if self._outside_the_room(ask):
            why = OUTSIDE_THE_ROOM.format(path=ask.summary)
            return self.open_requests.settle_by_room(turn.prompt, ask, approve=False, why=why)
        return await self.open_requests.under_policy(
            turn.prompt, ask, settings.approval_policy, settings.permission_timeout
        )

    async def ask_question(self, ask: QuestionAsk) -> Answer:
        return await self._refused_when_disk_full(self._ask_question(ask))

    async def _refused_when_disk_full(self, answering: Awaitable[Answer]) -> Answer:
        """A request the room cannot record is refused, and the turn stops for want of space."""
        try:
            return await answering
        except InsufficientStorage:
            self.turns.storage_failed()
            return Answer(False, NO_SPACE)

    async def _ask_question(self, ask: QuestionAsk) -> Answer:
        turn, refusal = self._turn_taking_requests()
        if turn is None:
            return refusal
        return await self.open_requests.ask(
            turn.prompt,
            "question",
            ask.question,
            self.settings.current.question_timeout,
            choices=ask.choices,
            allow_freeform=ask.allow_freeform,
        )

    def _touches_the_rooms_state(self, ask: PermissionAsk) -> bool:
        """Whether the agent asks to read, write or run something in the room's own state
        directory (its transcript, admissions, settings): never allowed, whoever would answer.
        For a shell command this is a plain text match, which an obfuscated command evades: the
        state directory lives outside the repository by default for that reason."""
        state = self.state_dir
        if ask.kind in ("read", "write"):
            path = (self.repository / ask.summary).resolve()
            return path == state or path.is_relative_to(state)
        return ask.kind == "shell" and (str(state) in ask.summary or ".copilot-room" in ask.summary)

    def _outside_the_room(self, ask: PermissionAsk) -> bool:
        """Whether a confined room's agent asks to read or write outside the room's folder (a
        room on a subfolder must not reach the files of the room beside it). Shell commands run
        in the folder but are not confined: people approve them."""
        if not self.confined or ask.kind not in ("read", "write"):
            return False
        folder = self.repository.resolve()
        return not (folder / ask.summary).resolve().is_relative_to(folder)

    def _turn_taking_requests(self) -> tuple[RunningTurn | None, Answer]:
        """The running turn, unless there is none or it is being stopped (then, why not)."""
        turn = self.turns.running
        if turn is None:
            return None, Answer(False, NOTHING_RUNNING)
        if turn.stop is not None:
            return None, Answer(False, f"{turn.stop.reason} So this was rejected.")
        return turn, Answer(True)
