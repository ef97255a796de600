"""The agent's life, as a room needs it: started on use, asleep when idle, restarted, and the
state people see.

The agent is one runtime process, so it runs only while its room uses it. It holds one of the
server's `AgentSlots` (`room/turns/agent_slots.py`) while it runs; after `idle_timeout` s with
nothing to do (or when a room waiting for a slot takes it) it stops and the room is `sleeping`;
the next prompt starts it again, resuming its session. `Turns` has an `AgentLife`: the turns
decide when the agent is needed and when it must be restarted (it ignored an abort, its runtime
was lost), this object how it comes, goes and comes back (`restart`, the one place; a host's
`retry`), what it says of itself (`status_changed`) and what `meta.state` says (`AgentState`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections import Counter
from collections.abc import Callable, Coroutine
from enum import StrEnum
from typing import Any

from ...agent.seam import Agent, AgentHost
from ...errors import Conflict
from ...events import AgentReady, AgentStatus, Record
from ...events.consumers import reads
from ..live.document import RoomDocument
from ..persistence.recorder import Recorder
from .agent_slots import AgentSlots, Order
from .queue import PromptQueue, TaskState
from .running_turn import RunningTurn

log = logging.getLogger(__name__)


class AgentState(StrEnum):
    """What the agent is doing, as people see it (`meta.state`; `GET rooms`' `state`)."""

    NO_AGENT = "no-agent"
    SLEEPING = "sleeping"  # stopped after `room_idle_timeout`: the next prompt wakes it
    HELD = "held"  # waits for one of the server's `max_active_rooms` slots
    STARTING = "starting"
    UNAVAILABLE = "unavailable"
    IDLE = "idle"
    RUNNING = "running"
    WAITING = "waiting"  # on people: a card
    ABORTING = "aborting"
    DEGRADED = "degraded"  # ignored an abort: restarting
    NEW = "new"  # a room never started (`GET rooms`): it starts when someone opens it


#: A finished turn may have used premium requests: the seat's quota is read again
#: (`events/consumers.py`).
RECORDS = reads("seat_quota", handles=["prompt.finished"])

SLEEPING = (
    "The agent is asleep while nobody prompts: the next prompt wakes it (a few seconds), with "
    "the room's conversation so far."
)


class AgentLife:
    """The agent's status (`agent_status`: the agent's own word, or the room's `sleeping` and
    `stopping`), its slot and its idle timer. The turns give it the turn that runs (`running`),
    how to wake their runner (`wake`), where its work runs (`spawn`) and what the agent reports
    to (`host`); `asleep` is called when the agent has fallen asleep (the room may then be
    unloaded). It also shows what the Copilot seat has left, read when the agent gets ready and
    after each turn."""

    def __init__(
        self,
        *,
        agent: Agent | None,
        document: RoomDocument,
        queue: PromptQueue,
        name: str,
        slots: AgentSlots | None,
        idle_timeout: float,
        recorder: Recorder,
        host: AgentHost,
        running: Callable[[], RunningTurn | None],
        lost: Callable[[AgentStatus], None],
        wake: Callable[[], None],
        spawn: Callable[[Coroutine[Any, Any, None]], None],
        asleep: Callable[[], None],
    ):
        self.agent = agent
        self.document = document
        self.queue = queue
        self.name = name  # the room's, in the server's `slots`
        self.slots = slots or AgentSlots()  # a room alone: no limit
        self.idle_timeout = idle_timeout  # seconds without a prompt before it sleeps (0: never)
        self.host = host  # what the agent reports to (the room's)
        self.recorder = recorder
        self.running = running
        self.lost = lost  # the runtime died: the turn it had fails
        self.wake = wake
        self.spawn = spawn
        self.asleep = asleep
        self._status_waiters: list[asyncio.Future[None]] = []  # see `settled`
        self._agent_status = "starting"
        self.restarting = False  # the agent ignored an abort; no turn starts until it is back
        #: Why the agent was restarted, counted (`degraded`, `lost`, `retry`): for the metrics.
        self.restarts: Counter[str] = Counter()
        self._quiet = False  # the agent is up with nothing to do (told to the slots)
        self._idle_timer: asyncio.TimerHandle | None = None
        self.last_ready: AgentReady | None = None  # what answers, as the transcript last said
        recorder.listen(self._recorded)

    def _recorded(self, record: Record) -> None:
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

        self.spawn(read())

    @property
    def agent_status(self) -> str:
        """The agent's own word (starting, ready or unavailable), or the room's: sleeping (not
        running), stopping (going to sleep)."""
        return self._agent_status

    @agent_status.setter
    def agent_status(self, status: str) -> None:
        self._agent_status = status
        waiters, self._status_waiters = self._status_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def settled(self) -> str:
        """The agent's status once it is `ready` or `unavailable`: woken by each change of
        status, never a poll (a side thread forks the agent's session once it is up)."""
        while self.agent_status not in ("ready", "unavailable"):
            changed = asyncio.get_running_loop().create_future()
            self._status_waiters.append(changed)
            await changed
        return self.agent_status

    def status_changed(self, status: AgentStatus) -> None:
        """What the agent says of itself: shown, and `agent.ready` recorded when what answers
        changes; a lost runtime fails its turn and is restarted."""
        if self.agent_status in ("stopping", "sleeping"):
            return  # the room stopped it: nothing it says now is about a running agent
        self.document.set_meta(
            agent=status.label,
            # which agent it is (`GET room`'s agent): after a host chose another, the new one's
            name=self.agent.name if self.agent else None,
            title=self.agent.title if self.agent else None,
            agents=[{"name": n, "title": t} for n, t in self.agent.offered().items()]
            if self.agent
            else [],
            agent_detail=status.detail,
            agent_error=status.error,
            model=status.model or None,
            ai_credits_apply=status.ai_credits,
            agent_source=status.source or None,
        )
        if status.state == "lost":
            # The runtime died: the turn it had fails (it is never re-run) and it is restarted.
            self.agent_status = "starting"
            self.lost(status)
            self.spawn(self.restart("lost"))
        else:
            self.agent_status = status.state
        ready = AgentReady(label=status.label, detail=status.detail)
        if status.ready and ready != self.last_ready:  # say so when what answers changes
            self.recorder.commit("agent.ready", None, ready)
            self.last_ready = ready
        if status.ready:
            self._read_seat_quota()
        self.show_state()
        self.wake()

    def show_state(self) -> None:
        state = self.state()
        if state is AgentState.HELD:
            detail = self.slots.held_detail(self.name)
            self.document.set_meta(state=state.value, agent_detail=detail)
        else:
            self.document.set_meta(state=state.value)
        self._watch_idle()

    def state(self) -> AgentState:
        """The agent state people see (`meta.state`)."""
        if self.agent is None:
            return AgentState.NO_AGENT
        if self.agent_status in ("sleeping", "stopping"):
            return AgentState.HELD if self.slots.is_waiting(self.name) else AgentState.SLEEPING
        if self.restarting:
            return AgentState.DEGRADED
        if (prompt := self.queue.in_flight) is not None:
            if (turn := self.running()) is not None and turn.stop is not None:
                return AgentState.ABORTING
            if prompt.state is TaskState.INPUT_REQUIRED:
                return AgentState.WAITING
            return AgentState.RUNNING
        if self.agent_status == "ready":
            return AgentState.IDLE
        return AgentState(self.agent_status)  # starting, unavailable

    def bring_up(self, at_once: bool, last_ready: AgentReady | None) -> None:
        """At the room's start: the agent starts now (the room `main`, as in 0.1), or sleeps
        until the first prompt (or a host's `agent/start`). `last_ready`: what answered, as the
        replayed transcript last said."""
        self.last_ready = last_ready
        self.slots.join(self.name, self._ordered)
        if self.agent is None:
            return
        if at_once:
            self.need_agent()
            return
        self.agent_status = "sleeping"
        self.document.set_meta(agent_detail=SLEEPING)
        self.show_state()
        self.wake()  # prompts the transcript left queued ask for the agent

    def need_agent(self) -> None:
        """Ask the server's slots for the agent: it starts at once when one is free, else the
        room is `held` until one is."""
        self.slots.need(self.name)
        self.show_state()

    def retry(self, by: str) -> None:
        """A host's retry of an agent that could not start: the runtime is looked for again, so
        one installed since is found without restarting the server. Prompts waiting meanwhile
        start once it is ready."""
        if self.agent is None:
            raise Conflict("This room has no agent to start.", code="no_agent")
        if self.agent_status == "sleeping":
            self.need_agent()
            return
        if self.agent_status != "unavailable" or self.restarting:
            raise Conflict(
                f"The agent is {self.state()}, not unavailable: there is nothing to retry.",
                code="agent_not_unavailable",
            )
        log.info("Copilot room: %s asked to start the agent again", by)
        self.agent_status = "starting"
        self.show_state()
        self.spawn(self.restart("retry"))

    async def restart(self, reason: str) -> None:
        """The only place the agent is restarted; `reason` is counted for the metrics."""
        assert self.agent is not None
        self.restarts[reason] += 1
        try:
            await self.agent.restart()
        except Exception as err:
            log.exception("Restarting the agent failed")
            self.document.set_meta(agent_detail=f"Restarting the agent failed: {err}")
            return
        self.restarting = False
        self.show_state()
        self.wake()

    def leave_slots(self) -> None:
        """The room stopped with its agent: its slot (or place in line) passes on."""
        self.stop_idle_timer()
        self.slots.leave(self.name)

    def _ordered(self, order: Order) -> None:
        """The slots' word. Called inside their change, so it only sets the agent's status (no
        turn starts meanwhile) and spawns the work."""
        if order.action == "start":
            self.agent_status = "starting"
            self.spawn(self._start_agent())
        else:
            self._go_to_sleep()

    async def _start_agent(self) -> None:
        assert self.agent is not None
        self.document.set_meta(agent_detail="Starting the agent…", agent_error=None)
        self.show_state()
        await self.agent.start(self.host)  # reports ready (or unavailable) by its status

    def _go_to_sleep(self) -> None:
        self.agent_status = "stopping"
        self.stop_idle_timer()
        self.spawn(self._stop_agent())

    async def _stop_agent(self) -> None:
        assert self.agent is not None
        self.document.set_meta(agent_detail=SLEEPING, agent_error=None)
        self.show_state()
        try:
            await self.agent.stop()  # the runtime process ends; the session id stays on disk
        except Exception:
            log.exception("The idle agent of room %s did not stop cleanly", self.name)
        self.agent_status = "sleeping"
        self.slots.stopped(self.name)  # its slot passes on (back here, if a prompt came)
        self.show_state()
        self.wake()
        self.asleep()

    def _watch_idle(self) -> None:
        """Tell the slots when the agent has nothing to do (a room in line may take its slot)
        and when it has again; arm the idle timeout meanwhile."""
        if self.agent_status in ("sleeping", "stopping"):
            self._quiet = False
            self.stop_idle_timer()
            return
        quiet = (
            self.agent_status in ("ready", "unavailable")
            and not self.restarting
            and self.queue.in_flight is None
            and self.queue.next_up() is None
        )
        if quiet == self._quiet:
            return
        self._quiet = quiet
        if not quiet:
            self.stop_idle_timer()
            self.slots.busy(self.name)
            return
        if self.idle_timeout > 0:
            self._idle_timer = asyncio.get_running_loop().call_later(
                self.idle_timeout, self._idle_expired
            )
        self.slots.idle(self.name)  # may order this agent to stop at once

    def _idle_expired(self) -> None:
        self._idle_timer = None
        if self._quiet and self.slots.release(self.name):
            log.info(
                "Copilot room %s: the agent sleeps after %.0f s idle", self.name, self.idle_timeout
            )
            self._go_to_sleep()

    def stop_idle_timer(self) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
