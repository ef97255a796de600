"""The room: who is here, what they may do, and the one agent they share.

Every command arrives with the caller's `Identity` (from `current_user`), is checked against the
role table, validated by the pure state machines (queue, permission router, admissions), recorded
durably in the transcript, and only then shown in the live document. A single task starts turns,
so at most one prompt is ever in flight and the agent is sent a prompt only when it is idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from pydantic import BaseModel

from ..access.admissions import AdmissionBook, Decision, Policy, save_decisions
from ..access.identity import HostClaim, Identity
from ..access.roles import ADMITTED, Action, Role, actions_of, can
from ..access.settings import SettingsPatch, SettingsStore
from ..agent import base as agent_events
from ..agent.base import Agent, Answer, PermissionAsk, QuestionAsk, Turn
from ..agent.catalog import Catalog
from ..agent.permissions import Outcome, PermissionRouter, Request
from ..agent.queue import PromptQueue, QueuedPrompt, Target, TaskState
from ..errors import Conflict, InvalidRequest, NotAllowed, NotFound, RoomError, TooLarge
from ..protocol import (
    AdmissionDecided,
    AgentError,
    AgentReady,
    AssistantMessage,
    AssistantStarted,
    PersonRef,
    PersonSeen,
    PromptBody,
    PromptFinished,
    PromptRef,
    PromptSubmitted,
    Record,
    RequestOpened,
    RequestSettled,
    RoleChanged,
    SettingsChanged,
    SubagentEnded,
    SubagentStarted,
    ToolCompleted,
    ToolStarted,
    TurnUsage,
)
from .document import RoomDocument
from .sync import ClientChannel, RoomSync
from .transcript import Transcript

log = logging.getLogger(__name__)

#: Agent events recorded as they are: their fields are the record's payload.
_EVENT_RECORDS: dict[type, tuple[str, type[BaseModel]]] = {
    agent_events.ToolStarted: ("tool.started", ToolStarted),
    agent_events.ToolCompleted: ("tool.completed", ToolCompleted),
    agent_events.SubagentStarted: ("subagent.started", SubagentStarted),
    agent_events.SubagentEnded: ("subagent.ended", SubagentEnded),
    agent_events.Usage: ("usage", TurnUsage),
    agent_events.AgentError: ("agent.error", AgentError),
}

#: How long an aborted turn may take to end before the room stops trusting the agent.
ABORT_GRACE = 2.0

_REFUSALS = {
    Role.PENDING: ("not_admitted", "You are waiting for a host to let you into the room."),
    Role.REFUSED: ("refused", "You are not admitted to this room; ask a host to let you in."),
    Role.VIEWER: ("forbidden", "Viewers can watch the room but not act in it."),
    Role.MEMBER: ("forbidden", "Only a host can do that."),
}


class Room:
    def __init__(
        self,
        *,
        state_dir: Path,
        book: AdmissionBook,
        settings: SettingsStore,
        agent: Agent | None = None,
        catalog: Catalog | None = None,
        claim: HostClaim | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.state_dir = state_dir
        self.book = book
        self.settings = settings
        self.agent = agent
        self.catalog = catalog
        self.claim = claim
        self.clock = clock
        self.transcript = Transcript(state_dir / "transcript.jsonl")
        self.document = RoomDocument()
        self.sync = RoomSync(self.document.ydoc)
        self.queue = PromptQueue()
        self.router = PermissionRouter()
        self.people: dict[str, Identity] = {}
        self._answers: dict[str, asyncio.Future[Answer]] = {}
        self._streams: dict[str, AssistantStarted] = {}  # messages still streaming
        self._turn_ended = asyncio.Event()
        self._turn_timer: asyncio.TimerHandle | None = None
        self._aborted_by: str | None = None
        self._fail_reason: str | None = None
        self._agent_status = "starting"
        self._last_ready: AgentReady | None = None
        self._degraded = False
        self._background: set[asyncio.Task] = set()
        self._wakeup = asyncio.Event()
        self._runner: asyncio.Task | None = None
        self._start_lock = asyncio.Lock()
        self._started = False

    # -- lifecycle -------------------------------------------------------------------------------

    async def ensure_started(self) -> None:
        async with self._start_lock:
            if self._started:
                return
            self._rebuild()
            await self.sync.start()
            self._runner = asyncio.create_task(self._run_queue())
            self._started = True
            if self.agent is not None:
                # The runtime takes a second or two to start: the room serves meanwhile, and the
                # agent's AgentStatus says when it can take the first turn.
                self._spawn(self.agent.start(self))

    def _rebuild(self) -> None:
        """Replay the transcript into the queue and the document, then settle what a stop cut."""
        opened: dict[str, Record] = {}
        for record in self.transcript.load():
            try:
                self._replay(record, opened)
                self.document.apply(record)
            except (RoomError, RuntimeError, KeyError, ValueError) as err:
                # A record that contradicts the ones before it (a hand edit, a lost line) is
                # reported and skipped: the room still starts with everything else.
                log.warning(
                    "transcript seq %d (%s) cannot be replayed, skipped: %r",
                    record.seq,
                    record.kind,
                    err,
                )
        self.document.set_meta(turn_owner=None, turn_prompt=None)
        for person in self.people.values():
            self._show_person(person)
        self._settle_interrupted(
            "The server restarted during this turn, so it was stopped; it was not re-run. "
            "Submit it again if it is still needed.",
            opened,
        )

    def _replay(self, record: Record, opened: dict[str, Record]) -> None:
        p = record.payload
        match record.kind:
            case "prompt.submitted":
                target = Target(**p["target"]) if p.get("target") else None
                self.queue.submit(p["id"], record.actor, p["text"], target, record.ts)
            case "prompt.withdrawn":
                self.queue.withdraw(p["id"], record.actor, may_withdraw_any=True, now=record.ts)
            case "prompt.started":
                started = self.queue.start_next(record.ts)
                if started is None or started.id != p["id"]:
                    raise RuntimeError(f"transcript out of order at seq {record.seq}")
            case "prompt.finished":
                self.queue.finish(p["id"], TaskState(p["state"]), record.ts)
            case "assistant.started":
                self._streams[p["entry_id"]] = AssistantStarted(**p)
            case "assistant.message":
                self._streams.pop(p["entry_id"], None)
            case "request.opened":
                opened[p["id"]] = record
            case "request.settled":
                opened.pop(p["id"], None)
            case "person.seen":
                gate = Role(p["gate"]) if p.get("gate") else None
                self.people[p["username"]] = Identity(**{**p, "gate": gate})
            case "agent.ready":
                self._last_ready = AgentReady(**p)

    def _settle_interrupted(self, reason: str, opened: dict[str, Record]) -> None:
        """Close, truthfully, whatever was in flight when the previous server stopped."""
        for request_id in opened:
            self._commit("request.settled", None, RequestSettled(id=request_id, outcome="aborted"))
        self._close_streams()
        if (prompt := self.queue.in_flight) is not None:
            self._finish(prompt, TaskState.FAILED, reason)

    async def stop(self) -> None:
        if not self._started:
            return
        for task in [self._runner, *self._background]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for request in self.router.abort():
            self._settled(request, "The server stopped.")
        if (prompt := self.queue.in_flight) is not None:
            self._close_streams()
            self._finish(
                prompt, TaskState.FAILED, "The server stopped during this turn; it was not re-run."
            )
        if self.agent is not None:
            await self.agent.stop()
        await self.sync.stop()
        self.transcript.close()
        self._started = False

    # -- people ----------------------------------------------------------------------------------

    def enter(self, identity: Identity) -> Role:
        """Register the caller (first visit, or a changed name) and return their current role."""
        known = self.people.get(identity.username)
        if known != identity:
            self.people[identity.username] = identity
            self._commit("person.seen", identity.username, PersonSeen(**vars(identity)))
        return self._show_person(identity)

    def role_of(self, username: str) -> Role:
        person = self.people.get(username)
        if person is None:
            return self.book.role_of(username, verified=False)
        return self.book.role_of(username, verified=person.verified, gate=person.gate)

    def _show_person(self, person: Identity) -> Role:
        role = self.role_of(person.username)
        self.document.put_participant(
            person.username,
            display_name=person.display_name,
            role=role.value,
            verified=person.verified,
            avatar_url=person.avatar_url,
            color=person.color,
            online=person.username in self.sync.connected(),
        )
        return role

    def _require(self, identity: Identity, action: Action) -> Role:
        role = self.enter(identity)
        if not can(role, action):
            code, message = _REFUSALS.get(role, ("forbidden", "Not allowed."))
            raise NotAllowed(message, code=code)
        return role

    def describe(self, identity: Identity) -> dict:
        """`GET room`: who I am and what I may do; the room's state only for those admitted."""
        role = self.enter(identity)
        me = {
            "username": identity.username,
            "display_name": identity.display_name,
            "role": role.value,
            "verified": identity.verified,
            "avatar_url": identity.avatar_url,
            "color": identity.color,
            "can": actions_of(role),
        }
        if role not in ADMITTED:
            return {"me": me}
        snapshot = self.document.snapshot()
        return {
            "me": me,
            "agent": snapshot["meta"],
            "queue": snapshot["queue"],
            "approvals": snapshot["approvals"],
            "participants": self._participants(snapshot["participants"]),
            "settings": self.settings.current.model_dump(),
        }

    def list_people(self, identity: Identity) -> list[dict]:
        self._require(identity, Action.WATCH)
        return self._participants(self.document.participants.to_py())

    @staticmethod
    def _participants(people: dict) -> list[dict]:
        return [{"username": name, **fields} for name, fields in sorted(people.items())]

    async def connect(self, channel: ClientChannel, identity: Identity) -> None:
        """Serve the live document to an admitted person until they disconnect."""
        if not can(self.enter(identity), Action.WATCH):  # lost admission since the upgrade
            channel.close(4403, "You are not admitted to this room.")
            return
        await self.sync.serve(channel, identity.username, on_presence=self._presence_changed)

    def _presence_changed(self, username: str) -> None:
        if username in self.people:
            self._show_person(self.people[username])

    def set_role(self, identity: Identity, username: str, role: str) -> None:
        self._require(identity, Action.MANAGE_PEOPLE)
        current = self._known_target(username)
        if current not in (Role.MEMBER, Role.VIEWER):
            raise Conflict(
                f"{username} is {current.value}; admit them first (POST admissions/{username}).",
                code="not_a_participant",
            )
        self._decide(username, Decision(role))
        self._commit("role.changed", identity.username, RoleChanged(username=username, role=role))
        self._after_decision(username, identity)

    def remove(self, identity: Identity, username: str) -> None:
        self._require(identity, Action.MANAGE_PEOPLE)
        self._known_target(username)
        self._decide(username, Decision.REJECT)
        self._commit("person.removed", identity.username, PersonRef(username=username))
        self._after_decision(username, identity)

    def admit(self, identity: Identity, username: str, decision: str) -> None:
        self._require(identity, Action.MANAGE_PEOPLE)
        self._decide(username, Decision(decision))
        self._commit(
            "admission.decided",
            identity.username,
            AdmissionDecided(username=username, decision=decision),
        )
        self._after_decision(username, identity)

    def claim_host(self, identity: Identity, secret: str) -> None:
        if self.claim is None or not self.claim.redeem(secret):
            raise NotAllowed(
                "This host-claim link is not valid (it works once).", code="invalid_claim"
            )
        self.enter(identity)
        self.book.claim_host(identity.username)
        save_decisions(self.state_dir / "admissions.json", self.book)
        self._commit("host.claimed", identity.username, PersonRef(username=identity.username))
        self._show_person(identity)

    def _known_target(self, username: str) -> Role:
        self.book.ensure_decidable(username)
        if username not in self.people:
            raise NotFound(f"{username} has never been in this room.", code="unknown_person")
        return self.role_of(username)

    def _decide(self, username: str, decision: Decision) -> None:
        self.book.decide(username, decision)
        save_decisions(self.state_dir / "admissions.json", self.book)

    def _after_decision(self, username: str, host: Identity) -> None:
        """Show the new role; someone no longer admitted loses their connections and prompts."""
        if username in self.people:
            self._show_person(self.people[username])
        if self.role_of(username) in ADMITTED:
            return
        self.sync.disconnect(username, "You are no longer admitted to this room.")
        for prompt in list(self.queue.open()):
            if prompt.author == username and prompt.state is TaskState.SUBMITTED:
                self.queue.withdraw(
                    prompt.id, host.username, may_withdraw_any=True, now=self.clock()
                )
                self._commit("prompt.withdrawn", host.username, PromptRef(id=prompt.id))

    # -- settings and transcript -----------------------------------------------------------------

    def get_settings(self, identity: Identity) -> dict:
        self._require(identity, Action.WATCH)
        return self.settings.current.model_dump()

    def patch_settings(self, identity: Identity, patch: SettingsPatch) -> dict:
        self._require(identity, Action.EDIT_SETTINGS)
        changes = self.settings.apply(patch)
        if changes:
            self.book.policy = Policy(self.settings.current.admission)
            self.book.guest_policy = Policy(self.settings.current.guest_admission)
            self._commit("settings.changed", identity.username, SettingsChanged(changes=changes))
            for person in self.people.values():
                self._show_person(person)
        return self.settings.current.model_dump()

    def describe_catalog(self, identity: Identity) -> dict:
        """The repository's skills and custom agents, read afresh (the files may have changed)."""
        self._require(identity, Action.WATCH)
        if self.catalog is None:
            return {"skills": [], "agents": [], "problems": []}
        return self.catalog.refresh().to_json()

    def read_transcript(self, identity: Identity) -> str:
        self._require(identity, Action.READ_TRANSCRIPT)
        return self.transcript.read_text()

    # -- prompts ---------------------------------------------------------------------------------

    def submit(self, identity: Identity, body: PromptBody) -> tuple[str, int]:
        self._require(identity, Action.SUBMIT)
        if not body.text.strip():
            raise InvalidRequest("The prompt is empty.", code="empty_prompt")
        limit = self.settings.current.max_prompt_chars
        if len(body.text) > limit:
            raise TooLarge(
                f"The prompt has {len(body.text)} characters; the room takes at most {limit}.",
                code="prompt_too_long",
            )
        prompt_id = uuid.uuid4().hex
        target = Target(body.target.kind, body.target.name) if body.target else None
        self.queue.submit(prompt_id, identity.username, body.text, target, self.clock())
        self._commit(
            "prompt.submitted",
            identity.username,
            PromptSubmitted(id=prompt_id, text=body.text, target=body.target),
        )
        position = self.queue.position(prompt_id)
        self._wakeup.set()
        return prompt_id, position

    def withdraw(self, identity: Identity, prompt_id: str) -> None:
        role = self._require(identity, Action.WITHDRAW_OWN)
        self.queue.withdraw(
            prompt_id,
            identity.username,
            may_withdraw_any=can(role, Action.WITHDRAW_ANY),
            now=self.clock(),
        )
        self._commit("prompt.withdrawn", identity.username, PromptRef(id=prompt_id))

    async def abort(self, identity: Identity) -> None:
        self._require(identity, Action.ABORT)
        prompt = self.queue.in_flight
        if prompt is None:
            raise Conflict("No turn is running.", code="nothing_running")
        if self._aborted_by is not None or self._fail_reason is not None:
            raise Conflict("This turn is already being stopped.", code="already_aborting")
        self._aborted_by = identity.username
        self._commit("abort", identity.username, PromptRef(id=prompt.id))
        await self._stop_turn(prompt, f"{identity.username} aborted the turn.")

    async def _overdue(self, prompt_id: str) -> None:
        prompt = self.queue.in_flight
        if prompt is None or prompt.id != prompt_id or self._aborted_by or self._fail_reason:
            return
        limit = self.settings.current.turn_timeout
        self._fail_reason = f"The turn took longer than {limit:.0f} s, so the room stopped it."
        await self._stop_turn(prompt, self._fail_reason)

    async def _stop_turn(self, prompt: QueuedPrompt, why: str) -> None:
        """Reject what is outstanding, ask the agent to stop, and never let it overrun."""
        for request in self.router.abort(prompt.id):
            self._settled(request, why)
        if self.agent is None:
            return
        self._turn_ended.clear()
        await self.agent.abort()
        try:
            await asyncio.wait_for(self._turn_ended.wait(), ABORT_GRACE)
        except TimeoutError:
            self._degrade(prompt)

    def _degrade(self, prompt: QueuedPrompt) -> None:
        """The agent ignored an abort: end the turn here and restart the agent before the next."""
        self._degraded = True
        self._close_streams()
        reason = (
            f"The agent did not stop within {ABORT_GRACE:.0f} s, so the room ended this "
            "turn and is restarting the agent; no new turn starts until it is back."
        )
        outcome = TaskState.CANCELED if self._aborted_by else TaskState.FAILED
        self._finish(prompt, outcome, reason)
        self._spawn(self._recover())

    async def _recover(self) -> None:
        try:
            await self.agent.restart()
        except Exception as err:
            log.exception("Restarting the agent failed")
            self.document.set_meta(agent_detail=f"Restarting the agent failed: {err}")
            return
        self._degraded = False
        self._show_state()
        self._wakeup.set()

    async def _run_queue(self) -> None:
        """The only place turns start: one at a time, and only while the agent is idle."""
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            if not self._can_start_turn():
                continue
            prompt = self.queue.start_next(self.clock())
            if prompt is None:
                continue
            self._aborted_by = self._fail_reason = None
            self._turn_ended.clear()
            self._commit("prompt.started", prompt.author, PromptRef(id=prompt.id))
            loop = asyncio.get_running_loop()
            self._turn_timer = loop.call_later(
                self.settings.current.turn_timeout,
                lambda prompt_id=prompt.id: self._spawn(self._overdue(prompt_id)),
            )
            try:
                text = self._expand(prompt)
                await self.agent.send(Turn(prompt.id, prompt.author, text, prompt.target))
            except Exception as err:
                log.warning("The agent did not take prompt %s: %s", prompt.id, err)
                self._end_turn(error=f"The agent could not take this prompt: {err}")

    def _can_start_turn(self) -> bool:
        return (
            self.agent is not None
            and self._agent_status == "ready"
            and not self._degraded
            and self.queue.in_flight is None
        )

    def _expand(self, prompt: QueuedPrompt) -> str:
        """A targeted prompt is expanded from the catalog as it is now, when its turn starts."""
        if prompt.target is None or self.catalog is None:
            return prompt.text
        return self.catalog.refresh().expand(prompt.target.kind, prompt.target.name, prompt.text)

    def _spawn(self, coroutine) -> asyncio.Task:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # -- the agent's side (AgentHost) ------------------------------------------------------------

    async def publish(self, event: agent_events.AgentEvent) -> None:
        if isinstance(event, agent_events.AgentStatus):
            self._agent_status = event.state
            self.document.set_meta(agent=event.label, agent_detail=event.detail)
            ready = AgentReady(label=event.label, detail=event.detail)
            if event.ready and ready != self._last_ready:  # say so when what answers changes
                self._last_ready = ready
                self._commit("agent.ready", None, ready)
            self._show_state()
            self._wakeup.set()
            return
        prompt = self.queue.in_flight
        if prompt is None:
            log.debug("Ignored %s outside a turn", type(event).__name__)
            return
        match event:
            case agent_events.MessageDelta() | agent_events.ReasoningDelta():
                self._stream(prompt, event)
            case agent_events.Message() | agent_events.Reasoning():
                kind = "assistant" if isinstance(event, agent_events.Message) else "reasoning"
                self._streams.pop(event.entry_id, None)
                self._commit(
                    "assistant.message",
                    None,
                    AssistantMessage(
                        entry_id=event.entry_id, prompt_id=prompt.id, text=event.text, kind=kind
                    ),
                )
            case agent_events.TurnEnded():
                self._end_turn(event.error)
            case _ if type(event) in _EVENT_RECORDS:
                self._record_event(prompt, event)
            case _:
                log.debug("Ignored an agent event the room does not know: %r", event)

    def _record_event(self, prompt: QueuedPrompt, event) -> None:
        """Events whose fields are their record's payload, plus the prompt they belong to."""
        kind, model = _EVENT_RECORDS[type(event)]
        if kind in ("tool.completed", "subagent.ended") and not self.document.has_entry(
            event.call_id
        ):
            log.debug("Ignored the end of %s, whose start the room never saw", event.call_id)
            return
        fields = {**asdict(event), "prompt_id": prompt.id, "author": prompt.author}
        self._commit(kind, None, model(**{k: fields[k] for k in model.model_fields if k in fields}))

    def _stream(self, prompt: QueuedPrompt, event) -> None:
        """Deltas go to the document only; one record fixes where the entry stands."""
        if event.entry_id not in self._streams:
            kind = "assistant" if isinstance(event, agent_events.MessageDelta) else "reasoning"
            started = AssistantStarted(entry_id=event.entry_id, prompt_id=prompt.id, kind=kind)
            self._streams[event.entry_id] = started
            self._commit("assistant.started", None, started)
        self.document.stream(event.entry_id, event.text)

    def _end_turn(self, error: str | None) -> None:
        prompt = self.queue.in_flight
        if prompt is None:
            return
        for request in self.router.abort(prompt.id):
            self._settled(request, "The turn ended before this was answered.")
        self._close_streams()
        if self._aborted_by is not None:
            self._finish(prompt, TaskState.CANCELED, f"{self._aborted_by} aborted this turn.")
        elif self._fail_reason is not None:
            self._finish(prompt, TaskState.FAILED, self._fail_reason)
        elif error is not None:
            self._finish(prompt, TaskState.FAILED, error)
        else:
            self._finish(prompt, TaskState.COMPLETED, None)
        self._turn_ended.set()
        self._wakeup.set()

    async def request_permission(self, ask: PermissionAsk) -> Answer:
        timeout = self.settings.current.permission_timeout
        if ask.kind == "notebook" and self.settings.current.auto_approve_notebook_edits:
            return self._auto_approve(ask, timeout)
        return await self._ask(ask.kind, ask.summary, timeout, details=ask.details)

    def _auto_approve(self, ask: PermissionAsk, timeout: float) -> Answer:
        """Hosts let notebook edits through: still a card in the transcript, settled at once."""
        prompt = self.queue.in_flight
        if prompt is None:
            return Answer(False, "No prompt is running in the room, so this was rejected.")
        request = self._open_request(prompt, ask.kind, ask.summary, timeout, details=ask.details)
        self._commit(
            "request.settled",
            None,
            RequestSettled(
                id=request.id, outcome="approved", feedback="approved by the room's settings"
            ),
        )
        return Answer(True, "Approved by the room's settings for notebook edits.")

    def _open_request(
        self, prompt: QueuedPrompt, kind: str, summary: str, timeout: float, **extra
    ) -> Request:
        """A new request for the running prompt's author, recorded (and so shown) as opened."""
        now = self.clock()
        request = Request(
            id=uuid.uuid4().hex,
            kind=kind,
            prompt_id=prompt.id,
            author=prompt.author,
            summary=summary,
            opened_at=now,
            deadline=now + timeout,
            **extra,
        )
        self._commit(
            "request.opened",
            None,
            RequestOpened(
                id=request.id,
                prompt_id=prompt.id,
                author=prompt.author,
                kind=kind,
                summary=summary,
                details=request.details,
                choices=list(request.choices),
                allow_freeform=request.allow_freeform,
                deadline=request.deadline,
            ),
        )
        return request

    async def ask_question(self, ask: QuestionAsk) -> Answer:
        timeout = self.settings.current.question_timeout
        return await self._ask(
            "question",
            ask.question,
            timeout,
            choices=ask.choices,
            allow_freeform=ask.allow_freeform,
        )

    async def _ask(self, kind: str, summary: str, timeout: float, **extra) -> Answer:
        prompt = self.queue.in_flight
        if prompt is None or self._aborted_by is not None:
            return Answer(False, "No prompt is running in the room, so this was rejected.")
        request = self.router.open(self._open_request(prompt, kind, summary, timeout, **extra))
        if prompt.state is TaskState.WORKING:
            self.queue.need_input(prompt.id)
            self.document.set_prompt_state(prompt.id, TaskState.INPUT_REQUIRED.value)
            self._show_state()
        answer = self._answers[request.id] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_later(timeout, self._expire_due)
        return await answer

    def answer_permission(
        self, identity: Identity, request_id: str, approve: bool, feedback: str | None
    ) -> None:
        role = self._require(identity, Action.ANSWER_OWN)
        self._expire_due()
        request = self.router.answer_permission(
            request_id,
            identity.username,
            is_host=can(role, Action.ANSWER_ANY),
            approve=approve,
            now=self.clock(),
        )
        if approve:
            said = f"Approved by {identity.username}."
        else:
            said = f"Rejected by {identity.username}" + (f": {feedback}" if feedback else ".")
        self._settled(request, said, feedback=feedback)

    def answer_question(self, identity: Identity, request_id: str, answer: str) -> None:
        role = self._require(identity, Action.ANSWER_OWN)
        self._expire_due()
        request = self.router.answer_question(
            request_id,
            identity.username,
            is_host=can(role, Action.ANSWER_ANY),
            answer=answer,
            now=self.clock(),
        )
        self._settled(request, answer)

    def _expire_due(self) -> None:
        for request in self.router.expire(self.clock()):
            waited = request.deadline - request.opened_at
            self._settled(
                request,
                f"Nobody answered within {waited:.0f} s, so this was "
                "rejected. Do not retry it unless asked.",
            )

    def _settled(self, request: Request, said: str, feedback: str | None = None) -> None:
        """Record a settled request, hand the answer to the waiting agent, resume the turn."""
        self._commit(
            "request.settled",
            request.answered_by,
            RequestSettled(
                id=request.id,
                outcome=request.outcome.value,
                feedback=feedback,
                answer=request.answer,
            ),
        )
        if (waiter := self._answers.pop(request.id, None)) is not None and not waiter.done():
            waiter.set_result(Answer(request.outcome in (Outcome.APPROVED, Outcome.ANSWERED), said))
        prompt = self.queue.in_flight
        if (
            prompt is not None
            and prompt.state is TaskState.INPUT_REQUIRED
            and not self.router.outstanding(prompt.id)
        ):
            self.queue.resume(prompt.id)
            self.document.set_prompt_state(prompt.id, TaskState.WORKING.value)
            self._show_state()

    # -- recording -------------------------------------------------------------------------------

    def _commit(self, kind: str, actor: str | None, payload: BaseModel) -> Record:
        """Durably record a fact, then show it: the document never runs ahead of the file."""
        record = self.transcript.append(kind, actor, payload, self.clock())
        self.document.apply(record)
        self._show_state()
        return record

    def _show_state(self) -> None:
        self.document.set_meta(state=self._state())

    def _state(self) -> str:
        """The agent state people see: no-agent, starting, unavailable, idle, running, waiting,
        aborting or degraded."""
        prompt = self.queue.in_flight
        if self.agent is None:
            return "no-agent"
        if self._degraded:
            return "degraded"
        if prompt is not None:
            if self._aborted_by or self._fail_reason:
                return "aborting"
            return "waiting" if prompt.state is TaskState.INPUT_REQUIRED else "running"
        return "idle" if self._agent_status == "ready" else self._agent_status

    def _finish(self, prompt: QueuedPrompt, outcome: TaskState, reason: str | None) -> None:
        if self._turn_timer is not None:
            self._turn_timer.cancel()
            self._turn_timer = None
        self.queue.finish(prompt.id, outcome, self.clock())
        self._commit(
            "prompt.finished",
            None,
            PromptFinished(id=prompt.id, state=outcome.value, reason=reason),
        )

    def _close_streams(self) -> None:
        """Keep what streamed of unfinished messages, marked partial (deltas are not on disk)."""
        for started in list(self._streams.values()):
            self._commit(
                "assistant.message",
                None,
                AssistantMessage(
                    entry_id=started.entry_id,
                    prompt_id=started.prompt_id,
                    kind=started.kind,
                    partial=True,
                    text=self.document.streamed_text(started.entry_id),
                ),
            )
        self._streams.clear()
