"""The ledger of the agent's permission requests and questions, and who may answer them.

A pure state machine (no I/O, no clock: `now` is passed in, on the one clock the room's timers use,
so a deadline here and the timer that enforces it never disagree). Every request belongs to the
prompt that was running when the agent asked, and so to that prompt's author: the author and the
hosts may answer, nobody else. The first valid answer wins; after the deadline the request is
rejected; an abort rejects everything outstanding. A settled request never changes again, so a
late or duplicate answer can never reopen it. A request the approval policy marks for two
approvers settles as approved only when two different people approved it (the author and a host,
or two hosts, as only they may answer); a rejection by either settles it at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum

from ...access import rules
from ...access.roles import Role
from ...errors import Conflict, InvalidRequest, NotAllowed, NotFound


class Outcome(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    ANSWERED = "answered"
    TIMED_OUT = "timed_out"
    ABORTED = "aborted"


@dataclass(frozen=True)
class Request:
    """A permission request (`kind` shell / write / url / mcp / ...) or a question (`question`)."""

    id: str
    kind: str
    prompt_id: str
    author: str
    summary: str
    opened_at: float
    deadline: float
    details: dict = field(default_factory=dict)
    choices: tuple[str, ...] = ()
    allow_freeform: bool = True
    outcome: Outcome = Outcome.PENDING
    answered_by: str | None = None
    answer: str | None = None
    approvers_needed: int = 1
    approvals: tuple[str, ...] = ()

    @property
    def is_question(self) -> bool:
        return self.kind == "question"

    @property
    def answerers(self) -> dict:
        """Who may answer it: exactly what its card in the document says (`access/rules.py`)."""
        return rules.request_answerers(
            self.author, self.approvers_needed, self.approvals, kind=self.kind
        )

    @property
    def approved(self) -> bool:
        return self.outcome in (Outcome.APPROVED, Outcome.ANSWERED)


class RequestLedger:
    def __init__(self, name: Callable[[str], str] = str) -> None:
        """`name`: how a refusal names a username (the room's display name: a guest's
        username may be hex, which nobody reads as a person)."""
        self.name = name
        self._requests: dict[str, Request] = {}
        self._pending: dict[str, None] = {}

    def get(self, request_id: str) -> Request:
        try:
            return self._requests[request_id]
        except KeyError:
            raise NotFound(
                f"There is no request {request_id!r}.", code="request_not_found"
            ) from None

    def outstanding(self, prompt_id: str | None = None) -> list[Request]:
        pending = (self._requests[request_id] for request_id in self._pending)
        return [r for r in pending if prompt_id is None or r.prompt_id == prompt_id]

    def open(self, request: Request) -> Request:
        if request.id in self._requests:
            raise Conflict(f"Request {request.id!r} exists already.", code="duplicate_id")
        if request.outcome is not Outcome.PENDING:
            raise ValueError("a new request must be pending")
        self._requests[request.id] = request
        self._pending[request.id] = None
        return request

    def check_permission_answer(
        self, request_id: str, by: str, *, role: Role, now: float, approve: bool = True
    ) -> Request:
        """The request `by` may answer now; raises (changing nothing) when they may not."""
        request = self._answerable(request_id, by, role=role, now=now, question=False)
        if approve and by in request.approvals:
            raise Conflict(
                f"{self.name(by)} has already approved this; it needs one more approval from "
                "someone else: " + rules.still_may(request.answerers) + ".",
                code="already_approved",
            )
        return request

    def add_approval(self, request_id: str, by: str) -> Request:
        """Count an approval of an open request that needs more than one (see `complete`)."""
        request = self.get(request_id)
        if request.outcome is not Outcome.PENDING or by in request.approvals:
            raise Conflict(f"Request {request_id!r} cannot take this approval.", code="conflict")
        approved = replace(request, approvals=(*request.approvals, by))
        self._requests[request.id] = approved
        return approved

    def check_question_answer(
        self, request_id: str, by: str, *, role: Role, answer: str, now: float
    ) -> Request:
        request = self._answerable(request_id, by, role=role, now=now, question=True)
        if request.choices and not request.allow_freeform and answer not in request.choices:
            raise InvalidRequest(
                f"Answer with one of: {', '.join(request.choices)}.", code="invalid_choice"
            )
        return request

    def due(self, now: float) -> list[Request]:
        """The open requests whose deadline has passed."""
        return [r for r in self.outstanding() if now >= r.deadline]

    def settle(
        self,
        request_id: str,
        outcome: Outcome,
        answered_by: str | None = None,
        answer: str | None = None,
    ) -> Request:
        """Settle an open request (a settled one never changes again)."""
        request = self.get(request_id)
        if request.outcome is not Outcome.PENDING:
            raise Conflict(f"Request {request_id!r} is already settled.", code="already_settled")
        settled = replace(request, outcome=outcome, answered_by=answered_by, answer=answer)
        self._requests[request.id] = settled
        self._pending.pop(request.id, None)
        return settled

    def _answerable(
        self, request_id: str, by: str, *, role: Role, now: float, question: bool
    ) -> Request:
        request = self.get(request_id)
        if request.is_question != question:
            noun = "a question" if request.is_question else "a permission request"
            raise NotFound(f"{request_id!r} is {noun}.", code="request_not_found")
        if not rules.may_answer(request.answerers, by, role):
            raise NotAllowed(
                f"Only {rules.who_answers(request.answerers, self.name)} can answer.",
                code="not_your_request",
            )
        if request.outcome is Outcome.PENDING and now >= request.deadline:
            raise Conflict("The time to answer this request has run out.", code="expired")
        if request.outcome is not Outcome.PENDING:
            who = f" by {self.name(request.answered_by)}" if request.answered_by else ""
            raise Conflict(
                f"This request was already settled ({request.outcome.value}{who}).",
                code="already_settled",
            )
        return request


def complete(request: Request, by: str) -> bool:
    """Whether an approval by `by` is the last one the request needs: two different people
    (each the author or a host, as nobody else may answer) when it needs two."""
    return len({*request.approvals, by}) >= request.approvers_needed
