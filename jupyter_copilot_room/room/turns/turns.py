"""Turns: the one place prompts start, and every way a turn ends.

A single task starts turns, one at a time and only while the agent is ready, so every event the
agent reports belongs to exactly one prompt. The prompt in flight is a `RunningTurn`; how it is
being stopped (a host's abort, its deadline) is one `Stop` value on it, and whatever stops a turn
settles every request still open for it at once, with the real reason; an agent that ignores an
abort (`degraded`) or whose runtime is lost is restarted from here. The agent's life (started on
use, asleep when idle, restarted: `_restart`) is `agent_life.py`, what a turn is sent and the
checkpoint it leaves `turn_inputs.py`; a full disk stops the turn and its end is recorded once
space returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ...agent.seam import Agent
from ...errors import Conflict, InsufficientStorage, Refused
from ...events import (
    PromptFinished,
    PromptRef,
    RequestOpened,
    RequestSettled,
)
from ...settings import SettingsStore
from ..budgets.spending import Spending
from ..cards.open_requests import OpenRequests
from ..persistence.storage import no_space
from ..record_keeping import RoomRecords
from ..room_spec import RoomSpec
from .agent_host import RoomAgentHost
from .agent_life import AgentLife
from .agent_slots import AgentSlots
from .queue import PromptQueue, QueuedPrompt, TaskState
from .running_turn import DISK_FULL, RunningTurn, Stop, lost_turn
from .turn_inputs import TurnInputs

log = logging.getLogger(__name__)

#: How long an aborted turn may take to end before the room stops trusting the agent.
ABORT_GRACE = 2.0


class Turns:
    """The queue's prompts turned into the agent's turns, one at a time; the agent's own life
    is `life` (an `AgentLife`), what the agent reports to `host` (a `RoomAgentHost`).

    Built with what it uses: the room's records (it commits, shows, closes streams), its cards
    (settled when a turn ends; it hears when a prompt waits on one), what a turn is sent
    (`inputs`), and `apply_thread`, the room's own work in a promote turn (`threads/`)."""

    def __init__(
        self,
        spec: RoomSpec,
        *,
        records: RoomRecords,
        cards: OpenRequests,
        inputs: TurnInputs,
        settings: SettingsStore,
        agent: Agent | None,
        spending: Spending,
        slots: AgentSlots | None = None,
        apply_thread: Callable[[RunningTurn], Awaitable[str | None]] | None = None,
        asleep: Callable[[], None] = lambda: None,
    ):
        self.agent = agent
        self.recorder = records.recorder
        self.document = records.document
        self.streams = records.streams
        self.open_requests = cards
        self.settings = settings
        self.inputs = inputs
        self.notebooks = inputs.notebooks
        self.checkpoints = inputs.checkpoints
        #: Applies a side thread's changes in a turn of the room (`threads/`): the turn's error,
        #: or None once they are in the shared working tree.
        self.apply_thread = apply_thread
        self.queue = PromptQueue()
        self.running: RunningTurn | None = None
        self._wakeup = asyncio.Event()
        self._tasks: set[asyncio.Task] = set()
        #: A turn's end the full disk did not let the room record: recorded when space returns.
        self._unrecorded: tuple[RunningTurn, TaskState, str | None] | None = None
        self._runner: asyncio.Task | None = None
        self._idle_waiters: list[asyncio.Future[None]] = []  # see `idle`
        self.host = RoomAgentHost(
            self,
            cards,
            records.streams,
            records.recorder,
            records.document,
            settings,
            spending=spending,
            repository=spec.repository,
            state_dir=spec.state_dir,
            confined=spec.confined,
        )
        self.life = AgentLife(
            agent=agent,
            document=records.document,
            queue=self.queue,
            name=spec.name,
            slots=slots,
            idle_timeout=spec.idle_timeout,
            recorder=records.recorder,
            host=self.host,
            running=lambda: self.running,
            lost=lambda status: self.end(error=lost_turn(status)),
            wake=self.wake,
            spawn=self.spawn,
            asleep=asleep,
        )
        cards.on_waiting(self.set_waiting)
        records.storage.on_space(self.space_returned)
        records.recorder.listen(lambda record: self.life.show_state())

    def wake(self) -> None:
        """Look for the next turn to start (the agent is ready, a prompt came, space returned)."""
        self._wakeup.set()

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run work of the room's turns or agent, stopped with them (`stop`)."""
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Once no prompt is in flight: woken by the turn's end (`_finish`), never a poll."""
        while self.queue.in_flight is not None:
            ended = asyncio.get_running_loop().create_future()
            self._idle_waiters.append(ended)
            await ended

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> None:
        self._runner = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop starting turns; a turn cut by the server's stop is recorded as failed."""
        self.life.stop_idle_timer()
        # Until none is left: one may start while the stop waits (the agent ends its turn: the
        # turn's checkpoint), and would run git after the stop, with nobody to await it.
        while pending := [t for t in (self._runner, *self._tasks) if t and not t.done()]:
            for task in pending:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.checkpoints is not None:
            await self.checkpoints.stop()
        try:
            self.open_requests.settle_turn(None, "The server stopped.")
            if (prompt := self.queue.in_flight) is not None:
                self.streams.close_all()
                self._finish(
                    prompt,
                    TaskState.FAILED,
                    "The server stopped during this turn; it was not re-run.",
                )
        except InsufficientStorage:  # the next start settles what the transcript left open
            log.warning("The disk is full: the turn the stop cut is settled at the next start")

    # -- starting --------------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            try:
                await self._start_next()
            except InsufficientStorage:  # the storage watch wakes this when space returns
                log.warning("The disk is full: the next prompt starts once there is space")
            except Exception:  # one bad turn never stops the queue
                log.exception("The room could not start the next turn")

    async def _start_next(self) -> None:
        if self._can_start() and self.agent is not None and self.agent.switch_wanted():
            await self.life.restart("chosen")  # a host chose another agent: between turns
            return
        if self.life.agent_status == "sleeping" and self.queue.next_up() is not None:
            self.life.need_agent()  # it starts at once if a slot is free, else the room is held
            return
        if not self._can_start() or (waiting := self.queue.next_up()) is None:
            return
        record = self.recorder.commit("prompt.started", waiting.author, PromptRef(id=waiting.id))
        prompt = self.queue.start_next(record.ts)
        assert prompt is not None and prompt.id == waiting.id
        self.life.show_state()
        try:
            await self._begin(prompt)
        except Refused as err:  # the room's own words (its skill gone since): no traceback
            log.warning("Prompt %s could not start: %s", prompt.id, err.message)
            self.end(error=f"The agent could not take this prompt: {err.message}")
        except Exception as err:
            log.exception("Prompt %s could not start", prompt.id)
            self.end(error=f"The agent could not take this prompt: {err}")

    def _can_start(self) -> bool:
        return (
            self.agent is not None
            and self.life.agent_status == "ready"
            and not self.life.restarting
            and self.queue.in_flight is None
        )

    async def _begin(self, prompt: QueuedPrompt) -> None:
        assert self.agent is not None
        turn = self.running = RunningTurn(prompt)
        turn.timer = asyncio.get_running_loop().call_later(
            self.settings.current.turn_timeout, lambda: self.spawn(self._overdue(turn))
        )
        if self.checkpoints is not None:  # beside the send: `worktree_read` gates the writes
            self.checkpoints.turn_started(prompt.id)
        if prompt.applies_thread is not None:  # the room's own work: no agent in this turn
            self.spawn(self._apply_thread(turn))
            return
        sent = await self.inputs.turn(prompt)  # reads notebooks, files, images: it awaits
        if turn.stop is not None:  # stopped meanwhile (an abort, the deadline): never sent
            self.end()
            return
        await self.agent.send(sent)

    async def _apply_thread(self, turn: RunningTurn) -> None:
        try:
            error = await self.apply_thread(turn) if self.apply_thread else "No thread applies."
        except Exception as err:
            log.exception("A side thread's changes could not be applied")
            error = f"The thread's changes could not be applied: {err}"
        if self.running is turn:
            self.end(error)

    async def worktree_read(self) -> None:
        """Once the running turn's checkpoint has the worktree as the turn found it. The agent
        changes nothing but through a permission request (a shell command, a write, a notebook
        edit or run), and no answer leaves the room before this: a checkpoint's "before" never
        holds the turn's own changes."""
        if self.checkpoints is not None and self.running is not None:
            await self.checkpoints.started(self.running.prompt.id)

    # -- waiting on people -----------------------------------------------------------------------

    def set_waiting(self, prompt_id: str, waiting: bool) -> None:
        """The running prompt waits on a request (input-required) or no longer does."""
        prompt = self.queue.in_flight
        if prompt is None or prompt.id != prompt_id:
            return
        if waiting and prompt.state is TaskState.WORKING:
            self.queue.need_input(prompt_id)
        elif not waiting and prompt.state is TaskState.INPUT_REQUIRED:
            self.queue.resume(prompt_id)
        else:
            return
        self.document.set_prompt_state(prompt_id, self.queue.get(prompt_id).state.value)
        self.life.show_state()

    # -- stopping --------------------------------------------------------------------------------

    async def abort(self, by: str) -> None:
        turn = self.running
        if turn is None:
            raise Conflict("No turn is running.", code="nothing_running")
        storage = self.recorder.storage
        if self._unrecorded is not None or (turn.stop is not None and storage.full):
            # The turn ended, or is being stopped, and its end waits for space: refused like any
            # command, even when an abort's record would fit on the transcript's last page (the
            # end, recorded later, would follow an "aborted" line; a turn ends once).
            raise no_space(storage.path)
        if turn.stop is not None:
            raise Conflict("This turn is already being stopped.", code="already_aborting")
        self.recorder.commit("abort", by, PromptRef(id=turn.prompt.id))
        who = self.document.display_name(by)  # the reason people read: their name
        turn.stop = Stop(TaskState.CANCELED, f"{who} aborted this turn.", announced=True)
        await self._stop(turn, f"{who} aborted the turn.")

    async def _overdue(self, turn: RunningTurn) -> None:
        if self.running is not turn or turn.stop is not None:
            return
        limit = self.settings.current.turn_timeout
        turn.stop = Stop(
            TaskState.FAILED, f"The turn took longer than {limit:.0f} s, so the room stopped it."
        )
        self.life.show_state()
        await self._stop(turn, turn.stop.reason)

    async def _stop(self, turn: RunningTurn, why: str) -> None:
        """Settle what is outstanding, ask the agent to stop, and never let it overrun."""
        with contextlib.suppress(InsufficientStorage):  # then settled with the turn's end
            self.open_requests.settle_turn(turn.prompt.id, why)
        assert self.agent is not None
        await self.agent.abort()
        try:
            await asyncio.wait_for(turn.ended.wait(), ABORT_GRACE)
        except TimeoutError:
            if self._unrecorded is None:  # else it ended, and waits for space to be recorded
                self._degrade(turn)

    def _degrade(self, turn: RunningTurn) -> None:
        """The agent ignored an abort: end the turn here and restart the agent before the next."""
        self.life.restarting = True
        reason = (
            f"The agent did not stop within {ABORT_GRACE:.0f} s, so the room ended this "
            "turn and is restarting the agent; no new turn starts until it is back."
        )
        self._close(turn, turn.stop.outcome if turn.stop else TaskState.FAILED, reason)
        self.spawn(self.life.restart("degraded"))

    def end(self, error: str | None = None) -> None:
        """The agent is idle again (or could not take the turn): record how the turn ended."""
        turn = self.running
        if turn is None:
            return
        if turn.stop is not None:
            outcome = turn.stop.outcome
            reason = None if turn.stop.announced else turn.stop.reason
        elif error is not None:
            outcome, reason = TaskState.FAILED, error
        else:
            outcome, reason = TaskState.COMPLETED, None
        self._close(turn, outcome, reason)

    def _close(self, turn: RunningTurn, outcome: TaskState, reason: str | None) -> None:
        """Settle what is open, keep what streamed, record the end; with the disk full, all of
        that waits (the turn holds the queue) until `space_returned`."""
        try:
            self.open_requests.settle_turn(
                turn.prompt.id, "The turn ended before this was answered."
            )
            self.streams.close_all()
            self._finish(turn.prompt, outcome, reason)
        except InsufficientStorage:
            self._unrecorded = (turn, outcome, reason)
            log.warning(
                "The disk is full: prompt %s's end is recorded once there is space", turn.prompt.id
            )
            return
        self._unrecorded = None
        if self.checkpoints is not None:  # takes the checkpoints' lock before the next turn
            self.spawn(self.inputs.checkpoint(turn.prompt, frozenset(turn.wrote), turn.ran_code))
        if self.notebooks is not None:
            self.notebooks.leave()  # the agent's presence leaves the notebooks with the turn
        turn.ended.set()
        self.wake()

    def _finish(self, prompt: QueuedPrompt, outcome: TaskState, reason: str | None) -> None:
        record = self.recorder.commit(
            "prompt.finished",
            None,
            PromptFinished(id=prompt.id, state=outcome.value, reason=reason),  # type: ignore[arg-type]
        )
        turn, self.running = self.running, None
        if turn is not None and turn.timer is not None:
            turn.timer.cancel()
        self.queue.finish(prompt.id, outcome, record.ts)
        waiters, self._idle_waiters = self._idle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        self.life.show_state()

    # -- the disk filled up ----------------------------------------------------------------------

    def storage_failed(self) -> None:
        """The room could not record what the agent reported: the turn cannot go on truthfully
        (the document must not run ahead of the transcript), so it is stopped and fails."""
        turn = self.running
        if turn is None or turn.stop is not None:
            return
        turn.stop = Stop(TaskState.FAILED, DISK_FULL)
        self.life.show_state()
        self.spawn(self._stop(turn, DISK_FULL))

    def space_returned(self) -> None:
        """Space again: record the turn's end the full disk held back, start what waits."""
        if self._unrecorded is not None:
            self._close(*self._unrecorded)
        self.wake()

    def settle_interrupted(self, open_requests: dict[str, RequestOpened], reason: str) -> None:
        """After a restart: close, truthfully, whatever was in flight when the server stopped
        (each request forgotten once recorded, so a full disk halfway through leaves the rest
        for the start's next try)."""
        for request_id in list(open_requests):
            self.recorder.commit(
                "request.settled", None, RequestSettled(id=request_id, outcome="aborted")
            )
            del open_requests[request_id]
        self.streams.close_all()
        if (prompt := self.queue.in_flight) is not None:
            self._finish(prompt, TaskState.FAILED, reason)
