"""The permission ledger: who may answer, first answer wins, deadlines reject, nothing reopens."""

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from jupyter_copilot_room.access.roles import Role
from jupyter_copilot_room.errors import Conflict, InvalidRequest, NotAllowed, NotFound
from jupyter_copilot_room.room.cards.request_ledger import Outcome, Request, RequestLedger

PEOPLE = ["alice", "bob", "carol"]
HOSTS = {"alice"}


def role_of(username):
    return Role.HOST if username in HOSTS else Role.MEMBER


def answer(ledger, request_id, by, *, approve, now):
    """Answer as the room's open requests do: check first (raising changes nothing), then settle."""
    ledger.check_permission_answer(request_id, by, role=role_of(by), now=now)
    return ledger.settle(request_id, Outcome.APPROVED if approve else Outcome.REJECTED, by)


def reply(ledger, request_id, by, text, *, now):
    ledger.check_question_answer(request_id, by, role=role_of(by), answer=text, now=now)
    return ledger.settle(request_id, Outcome.ANSWERED, by, text)


def expire(ledger, now):
    """What the open requests' timers do once a deadline passes."""
    return [ledger.settle(r.id, Outcome.TIMED_OUT) for r in ledger.due(now)]


def abort(ledger, prompt_id=None):
    """What the open requests do when a turn stops."""
    return [ledger.settle(r.id, Outcome.ABORTED) for r in ledger.outstanding(prompt_id)]


def shell(request_id="r1", author="bob", deadline=100.0, prompt_id="p1"):
    return Request(
        request_id, "shell", prompt_id, author, "make test", opened_at=0.0, deadline=deadline
    )


def question(request_id="q1", freeform=False):
    return Request(
        request_id,
        "question",
        "p1",
        "bob",
        "Proceed?",
        opened_at=0.0,
        deadline=100.0,
        choices=("yes", "no"),
        allow_freeform=freeform,
    )


def test_author_approves():
    ledger = RequestLedger()
    ledger.open(shell())
    settled = answer(ledger, "r1", "bob", approve=True, now=1)
    assert (settled.outcome, settled.answered_by) == (Outcome.APPROVED, "bob")
    assert ledger.outstanding() == []


def test_member_cannot_answer_someone_elses_request():
    ledger = RequestLedger()
    ledger.open(shell(author="alice"))
    with pytest.raises(NotAllowed):
        answer(ledger, "r1", "bob", approve=True, now=1)
    assert ledger.get("r1").outcome is Outcome.PENDING


def test_host_answers_anyones_request():
    ledger = RequestLedger()
    ledger.open(shell(author="bob"))
    assert answer(ledger, "r1", "alice", approve=False, now=1).outcome is Outcome.REJECTED


def test_first_answer_wins_and_a_duplicate_is_refused():
    ledger = RequestLedger()
    ledger.open(shell())
    answer(ledger, "r1", "bob", approve=False, now=1)
    with pytest.raises(Conflict):
        answer(ledger, "r1", "alice", approve=True, now=2)
    assert ledger.get("r1").outcome is Outcome.REJECTED


def test_deadline_rejects_and_a_late_answer_cannot_reopen():
    ledger = RequestLedger()
    ledger.open(shell(deadline=10))
    assert expire(ledger, now=9) == []
    with pytest.raises(Conflict):
        answer(ledger, "r1", "bob", approve=True, now=10)
    [expired] = expire(ledger, now=10)
    assert expired.outcome is Outcome.TIMED_OUT and not expired.approved
    with pytest.raises(Conflict):
        answer(ledger, "r1", "bob", approve=True, now=11)
    assert ledger.get("r1").outcome is Outcome.TIMED_OUT


def test_abort_rejects_everything_outstanding():
    ledger = RequestLedger()
    ledger.open(shell("r1"))
    ledger.open(shell("r2", prompt_id="p2"))
    ledger.open(shell("r3"))
    answer(ledger, "r3", "bob", approve=True, now=1)
    aborted = abort(ledger)
    assert sorted(r.id for r in aborted) == ["r1", "r2"]
    assert ledger.get("r3").outcome is Outcome.APPROVED


def test_abort_of_one_prompt_leaves_others():
    ledger = RequestLedger()
    ledger.open(shell("r1", prompt_id="p1"))
    ledger.open(shell("r2", prompt_id="p2"))
    assert [r.id for r in abort(ledger, "p1")] == ["r1"]
    assert [r.id for r in ledger.outstanding()] == ["r2"]


def test_questions_take_a_choice_unless_freeform():
    ledger = RequestLedger()
    ledger.open(question("q1"))
    ledger.open(question("q2", freeform=True))
    with pytest.raises(InvalidRequest):
        reply(ledger, "q1", "bob", "maybe", now=1)
    assert reply(ledger, "q1", "bob", "yes", now=1).answer == "yes"
    assert reply(ledger, "q2", "bob", "maybe", now=1).outcome is Outcome.ANSWERED


def test_a_question_is_not_a_permission_and_unknown_ids_are_not_found():
    ledger = RequestLedger()
    ledger.open(question())
    with pytest.raises(NotFound):
        answer(ledger, "q1", "bob", approve=True, now=1)
    with pytest.raises(NotFound):
        answer(ledger, "zz", "bob", approve=True, now=1)


class RouterMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.ledger = RequestLedger()
        self.ids: list[str] = []
        self.settled: dict[str, Outcome] = {}
        self.now = 0.0

    @rule(author=st.sampled_from(PEOPLE), timeout=st.floats(1, 20))
    def open(self, author, timeout):
        request_id = f"r{len(self.ids)}"
        self.ledger.open(
            Request(
                request_id,
                "shell",
                "p",
                author,
                "cmd",
                opened_at=self.now,
                deadline=self.now + timeout,
            )
        )
        self.ids.append(request_id)

    @rule(dt=st.floats(0, 10))
    def time_passes(self, dt):
        self.now += dt
        for request in expire(self.ledger, self.now):
            assert request.id not in self.settled
            self.settled[request.id] = request.outcome

    @precondition(lambda self: self.ids)
    @rule(data=st.data(), by=st.sampled_from(PEOPLE), approve=st.booleans())
    def answer(self, data, by, approve):
        request_id = data.draw(st.sampled_from(self.ids))
        before = self.ledger.get(request_id)
        try:
            after = answer(self.ledger, request_id, by, approve=approve, now=self.now)
        except NotAllowed:
            assert by != before.author and by not in HOSTS
        except Conflict:
            assert before.outcome is not Outcome.PENDING or self.now >= before.deadline
        else:
            assert before.outcome is Outcome.PENDING and self.now < before.deadline
            assert by == before.author or by in HOSTS
            self.settled[request_id] = after.outcome

    @rule()
    def abort(self):
        for request in abort(self.ledger):
            self.settled[request.id] = request.outcome

    @invariant()
    def settled_requests_never_change(self):
        for request_id, outcome in self.settled.items():
            assert self.ledger.get(request_id).outcome is outcome

    @invariant()
    def outstanding_means_pending(self):
        pending = [i for i in self.ids if self.ledger.get(i).outcome is Outcome.PENDING]
        assert sorted(r.id for r in self.ledger.outstanding()) == sorted(pending)


TestRouterMachine = RouterMachine.TestCase
