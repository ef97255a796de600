"""The permission router: who may answer, first answer wins, deadlines reject, nothing reopens."""

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from jupyter_copilot_room.agent.permissions import Outcome, PermissionRouter, Request
from jupyter_copilot_room.errors import Conflict, InvalidRequest, NotAllowed, NotFound


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
    router = PermissionRouter()
    router.open(shell())
    settled = router.answer_permission("r1", "bob", is_host=False, approve=True, now=1)
    assert (settled.outcome, settled.answered_by) == (Outcome.APPROVED, "bob")
    assert router.outstanding() == []


def test_member_cannot_answer_someone_elses_request():
    router = PermissionRouter()
    router.open(shell(author="alice"))
    with pytest.raises(NotAllowed):
        router.answer_permission("r1", "bob", is_host=False, approve=True, now=1)
    assert router.get("r1").outcome is Outcome.PENDING


def test_host_answers_anyones_request():
    router = PermissionRouter()
    router.open(shell(author="bob"))
    assert (
        router.answer_permission("r1", "alice", is_host=True, approve=False, now=1).outcome
        is Outcome.REJECTED
    )


def test_first_answer_wins_and_a_duplicate_is_refused():
    router = PermissionRouter()
    router.open(shell())
    router.answer_permission("r1", "bob", is_host=False, approve=False, now=1)
    with pytest.raises(Conflict):
        router.answer_permission("r1", "alice", is_host=True, approve=True, now=2)
    assert router.get("r1").outcome is Outcome.REJECTED


def test_deadline_rejects_and_a_late_answer_cannot_reopen():
    router = PermissionRouter()
    router.open(shell(deadline=10))
    assert router.expire(now=9) == []
    with pytest.raises(Conflict):
        router.answer_permission("r1", "bob", is_host=False, approve=True, now=10)
    [expired] = router.expire(now=10)
    assert expired.outcome is Outcome.TIMED_OUT and not expired.approved
    with pytest.raises(Conflict):
        router.answer_permission("r1", "bob", is_host=False, approve=True, now=11)
    assert router.get("r1").outcome is Outcome.TIMED_OUT


def test_abort_rejects_everything_outstanding():
    router = PermissionRouter()
    router.open(shell("r1"))
    router.open(shell("r2", prompt_id="p2"))
    router.open(shell("r3"))
    router.answer_permission("r3", "bob", is_host=False, approve=True, now=1)
    aborted = router.abort()
    assert sorted(r.id for r in aborted) == ["r1", "r2"]
    assert router.get("r3").outcome is Outcome.APPROVED


def test_abort_of_one_prompt_leaves_others():
    router = PermissionRouter()
    router.open(shell("r1", prompt_id="p1"))
    router.open(shell("r2", prompt_id="p2"))
    assert [r.id for r in router.abort("p1")] == ["r1"]
    assert [r.id for r in router.outstanding()] == ["r2"]


def test_questions_take_a_choice_unless_freeform():
    router = PermissionRouter()
    router.open(question("q1"))
    router.open(question("q2", freeform=True))
    with pytest.raises(InvalidRequest):
        router.answer_question("q1", "bob", is_host=False, answer="maybe", now=1)
    assert router.answer_question("q1", "bob", is_host=False, answer="yes", now=1).answer == "yes"
    assert (
        router.answer_question("q2", "bob", is_host=False, answer="maybe", now=1).outcome
        is Outcome.ANSWERED
    )


def test_a_question_is_not_a_permission_and_unknown_ids_are_not_found():
    router = PermissionRouter()
    router.open(question())
    with pytest.raises(NotFound):
        router.answer_permission("q1", "bob", is_host=False, approve=True, now=1)
    with pytest.raises(NotFound):
        router.answer_permission("zz", "bob", is_host=False, approve=True, now=1)


PEOPLE = ["alice", "bob", "carol"]
HOSTS = {"alice"}


class RouterMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.router = PermissionRouter()
        self.ids: list[str] = []
        self.settled: dict[str, Outcome] = {}
        self.now = 0.0

    @rule(author=st.sampled_from(PEOPLE), timeout=st.floats(1, 20))
    def open(self, author, timeout):
        request_id = f"r{len(self.ids)}"
        self.router.open(
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
        for request in self.router.expire(self.now):
            assert request.id not in self.settled
            self.settled[request.id] = request.outcome

    @precondition(lambda self: self.ids)
    @rule(data=st.data(), by=st.sampled_from(PEOPLE), approve=st.booleans())
    def answer(self, data, by, approve):
        request_id = data.draw(st.sampled_from(self.ids))
        before = self.router.get(request_id)
        try:
            after = self.router.answer_permission(
                request_id, by, is_host=by in HOSTS, approve=approve, now=self.now
            )
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
        for request in self.router.abort():
            self.settled[request.id] = request.outcome

    @invariant()
    def settled_requests_never_change(self):
        for request_id, outcome in self.settled.items():
            assert self.router.get(request_id).outcome is outcome

    @invariant()
    def outstanding_means_pending(self):
        pending = [i for i in self.ids if self.router.get(i).outcome is Outcome.PENDING]
        assert sorted(r.id for r in self.router.outstanding()) == sorted(pending)


TestRouterMachine = RouterMachine.TestCase
