"""The requests open now: where the agent's permission requests and questions wait for a person.

Each request belongs to the running prompt and so to its author: the author and the hosts may
answer (the ledger in `requests.py` decides). This module owns what the ledger cannot: the agent's
future waiting on each answer, each request's own timer, and the whole of what its card shows
only in part (`card_content.py`; `GET approvals/<id>/details` until it settles). Deadlines and
timers run on one clock, the event loop's monotonic one, so "no answer before the deadline means
no" holds whatever the wall clock does; the wall-clock deadline in the document only drives the
people's countdown.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

from ...access.approval_policy import ApprovalPolicy
from ...access.roles import Role
from ...agent.seam import Answer, PermissionAsk
from ...errors import InsufficientStorage, NotFound
from ...events import RequestApproval, RequestOpened, RequestSettled
from ..persistence.recorder import Recorder
from ..turns.queue import QueuedPrompt
from . import card_content
from .card_content import CardContent
from .request_ledger import Outcome, Request, RequestLedger, complete


class OpenRequests:
    def __init__(
        self,
        recorder: Recorder,
        wall_clock: Callable[[], float],
        speaker: Callable[[], str | None] = lambda: None,
        name: Callable[[str], str] = str,
    ):
        """`speaker()`: the title of the agent that asks now, if not the room's own; `name`:
        how a refusal names a username."""
        self.recorder = recorder
        self.wall_clock = wall_clock
        self.speaker = speaker
        self.ledger = RequestLedger(name)
        self._waiters: dict[str, asyncio.Future[Answer]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._content: dict[str, CardContent] = {}  # each open request's card, texts whole
        self._waiting_listeners: list[Callable[[str, bool], None]] = []

    def on_waiting(self, listener: Callable[[str, bool], None]) -> None:
        """Tell `listener` when a prompt starts or stops waiting on people: (prompt id,
        waiting). The turns listen, from their construction (`turns.py`)."""
        self._waiting_listeners.append(listener)

    def _waiting(self, prompt_id: str, waiting: bool) -> None:
        for listener in self._waiting_listeners:
            listener(prompt_id, waiting)

    @staticmethod
    def now() -> float:
        return asyncio.get_running_loop().time()

    async def ask(
        self,
        prompt: QueuedPrompt,
        kind: str,
        summary: str,
        timeout: float,
        rule: str | None = None,
        **extra,
    ) -> Answer:
        """Open a request for the prompt's author and wait for an answer, or for its timer."""
        request, content = self._open(prompt, kind, summary, timeout, rule, **extra)
        self.ledger.open(request)
        self._content[request.id] = content
        loop = asyncio.get_running_loop()
        waiter = self._waiters[request.id] = loop.create_future()
        self._timers[request.id] = loop.call_later(timeout, self._time_out, request.id)
        self._waiting(prompt.id, True)
        return await waiter

    async def under_policy(
        self,
        prompt: QueuedPrompt,
        ask: PermissionAsk,
        policy: ApprovalPolicy,
        timeout: float,
        decided_as: str | None = None,
    ) -> Answer:
        """A permission card as the room's approval policy wants it: settled at once by a rule
        (auto, deny), or asked of the prompt's author and the hosts (two under `two`).
        `decided_as`: the kind the policy decides it as (a promote card, as a write)."""
        decision, rule = policy.decide(decided_as or ask.kind, ask.summary)
        if decision in ("auto", "deny"):
            approve = decision == "auto"
            why = f"{'Approved' if approve else 'Rejected'} by rule {rule}."
            return self.settle_by_room(prompt, ask, approve=approve, why=why, rule=rule)
        return await self.ask(
            prompt,
            ask.kind,
            ask.summary,
            timeout,
            rule if decision == "two" else None,
            details=ask.details,
            approvers_needed=2 if decision == "two" else 1,
            call_id=ask.call_id,
        )

    def settle_by_room(
        self,
        prompt: QueuedPrompt,
        ask: PermissionAsk,
        *,
        approve: bool,
        why: str,
        rule: str | None = None,
    ) -> Answer:
        """The room's own rules decide (the approval policy, hosts let notebook edits through,
        nothing touches the room's state): still a card in the transcript, settled at once."""
        request, _ = self._open(
            prompt, ask.kind, ask.summary, 0, rule, details=ask.details, call_id=ask.call_id
        )
        settled = RequestSettled(
            id=request.id, outcome="approved" if approve else "rejected", feedback=why, rule=rule
        )
        self.recorder.commit("request.settled", None, settled)
        return Answer(approve, why)

    def in_full(self, request_id: str) -> dict:
        """An open request's card with its cut texts whole (`card_content.CardContent.in_full`);
        a settled one keeps only what its card showed."""
        if (content := self._content.get(request_id)) is None:
            raise NotFound(
                f"There is no open request {request_id!r}: once a request is answered (or its "
                "turn ends) the room keeps only what its card showed.",
                code="request_not_open",
            )
        return {"id": request_id, **content.in_full()}

    def answer_permission(
        self, request_id: str, by: str, *, role: Role, approve: bool, feedback: str | None
    ) -> None:
        self._expire_due()
        request = self.ledger.check_permission_answer(
            request_id, by, role=role, now=self.now(), approve=approve
        )
        if approve and not complete(request, by):
            approvers = [*request.approvals, by]
            self.recorder.commit(
                "request.approval", by, RequestApproval(id=request.id, approvers=approvers)
            )
            self.ledger.add_approval(request.id, by)
            return
        if approve:
            said = f"Approved by {' and '.join([*request.approvals, by])}."
            approvers = [*request.approvals, by]
        else:
            said = f"Rejected by {by}" + (f": {feedback}" if feedback else ".")
            approvers = list(request.approvals)
        outcome = Outcome.APPROVED if approve else Outcome.REJECTED
        self._settle(request, outcome, said, by=by, feedback=feedback, approvers=approvers)

    def answer_question(self, request_id: str, by: str, *, role: Role, answer: str) -> None:
        self._expire_due()
        request = self.ledger.check_question_answer(
            request_id, by, role=role, answer=answer, now=self.now()
        )
        self._settle(request, Outcome.ANSWERED, answer, by=by, answer=answer)

    def settle_turn(self, prompt_id: str | None, why: str) -> None:
        """A turn is stopping (or the server is): every request still open settles now, as `why`."""
        for request in self.ledger.outstanding(prompt_id):
            self._settle(request, Outcome.ABORTED, why)

    def _open(
        self,
        prompt: QueuedPrompt,
        kind: str,
        summary: str,
        timeout: float,
        rule: str | None = None,
        call_id: str | None = None,
        **extra,
    ) -> tuple[Request, CardContent]:
        """A new request for the prompt's author, recorded (and so shown) as opened: its texts as
        far as a card shows them, the whole ones returned beside it."""
        content = card_content.shown(summary, extra.pop("details", None) or {})
        now = self.now()
        request = Request(
            id=uuid.uuid4().hex,
            kind=kind,
            prompt_id=prompt.id,
            author=prompt.author,
            summary=content.summary,
            opened_at=now,
            deadline=now + timeout,
            details=content.details,
            **extra,
        )
        self.recorder.commit(
            "request.opened",
            None,
            RequestOpened(
                id=request.id,
                prompt_id=prompt.id,
                author=prompt.author,
                kind=kind,
                summary=content.summary,
                details=request.details,
                choices=list(request.choices),
                allow_freeform=request.allow_freeform,
                deadline=self.wall_clock() + timeout,
                approvers_needed=request.approvers_needed,
                rule=rule,
                call_id=call_id,
                agent=self.speaker(),
            ),
        )
        return request, content

    def _time_out(self, request_id: str) -> None:
        request = self.ledger.get(request_id)
        if request.outcome is Outcome.PENDING:
            try:
                self._settle(request, Outcome.TIMED_OUT, _timed_out(request))
            except InsufficientStorage:  # try again shortly: the disk may have space by then
                loop = asyncio.get_running_loop()
                self._timers[request_id] = loop.call_later(1.0, self._time_out, request_id)

    def _expire_due(self) -> None:
        """An answer that arrives after the deadline finds the request already timed out, even if
        its timer has not run yet."""
        for request in self.ledger.due(self.now()):
            self._settle(request, Outcome.TIMED_OUT, _timed_out(request))

    def _settle(
        self,
        request: Request,
        outcome: Outcome,
        said: str,
        *,
        by: str | None = None,
        feedback: str | None = None,
        answer: str | None = None,
        approvers: list[str] | None = None,
    ) -> None:
        """Record the outcome (first: a failed write changes nothing), settle the request, hand
        the answer to the waiting agent, resume the turn."""
        self.recorder.commit(
            "request.settled",
            by,
            RequestSettled(
                id=request.id,
                outcome=outcome.value,  # type: ignore[arg-type]
                feedback=feedback,
                answer=answer,
                approvers=approvers or [],
            ),
        )
        self.ledger.settle(request.id, outcome, answered_by=by, answer=answer)
        self._content.pop(request.id, None)
        if (timer := self._timers.pop(request.id, None)) is not None:
            timer.cancel()
        if (waiter := self._waiters.pop(request.id, None)) is not None and not waiter.done():
            waiter.set_result(Answer(outcome in (Outcome.APPROVED, Outcome.ANSWERED), said))
        if not self.ledger.outstanding(request.prompt_id):
            self._waiting(request.prompt_id, False)


def _timed_out(request: Request) -> str:
    waited = request.deadline - request.opened_at
    return (
        f"Nobody answered within {waited:.0f} s, so this was rejected. "
        "Do not retry it unless asked."
    )
