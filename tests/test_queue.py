"""The prompt queue: FIFO, one in flight, a finished prompt is returned once and forgotten."""

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from jupyter_copilot_room.access import rules
from jupyter_copilot_room.access.roles import Role
from jupyter_copilot_room.errors import Conflict, NotFound
from jupyter_copilot_room.room.turns.queue import (
    IN_FLIGHT,
    TERMINAL,
    TRANSITIONS,
    PromptQueue,
    TaskState,
)


def queue_with(*authors):
    queue = PromptQueue()
    for n, author in enumerate(authors):
        queue.submit(f"p{n}", author, f"text {n}", None, now=float(n))
    return queue


def test_prompts_start_in_submission_order_one_at_a_time():
    queue = queue_with("alice", "bob", "alice")
    assert queue.start_next(10).id == "p0"
    assert queue.start_next(11) is None, "never two in flight"
    queue.finish("p0", TaskState.COMPLETED, 12)
    assert queue.start_next(13).id == "p1"


def test_position_counts_the_prompts_ahead_including_the_running_one():
    queue = queue_with("alice", "bob", "carol")
    assert [queue.position(p) for p in ("p0", "p1", "p2")] == [0, 1, 2]
    queue.start_next(5)
    assert queue.position("p2") == 2
    queue.withdraw("p1", now=6)
    assert queue.position("p2") == 1


def test_author_withdraws_own_waiting_prompt():
    queue = queue_with("alice", "bob")
    queue.start_next(1)
    assert queue.withdraw("p1", now=2).state is TaskState.CANCELED
    assert [p.id for p in queue.open()] == ["p0"]


def test_who_withdraws_is_the_rules_and_only_waiting_prompts_go():
    """The author and hosts may withdraw (`access/rules.py`); the queue says whether it waits."""
    terms = rules.Terms()
    assert rules.may_withdraw(Role.MEMBER, "bob", "bob", terms)
    assert not rules.may_withdraw(Role.MEMBER, "carol", "bob", terms)
    assert rules.may_withdraw(Role.HOST, "alice", "bob", terms)
    assert not rules.may_withdraw(Role.VIEWER, "bob", "bob", terms)
    queue = queue_with("alice", "bob")
    queue.start_next(1)
    queue.withdraw("p1", now=2)
    with pytest.raises(Conflict):
        queue.withdraw("p0", now=3)


def test_input_required_and_back():
    queue = queue_with("bob")
    queue.start_next(1)
    assert queue.need_input("p0").state is TaskState.INPUT_REQUIRED
    assert queue.start_next(2) is None
    assert queue.resume("p0").state is TaskState.WORKING


@pytest.mark.parametrize("final", sorted(TERMINAL))
def test_a_finished_prompt_is_returned_once_then_forgotten(final):
    queue = queue_with("bob")
    queue.start_next(1)
    finished = queue.finish("p0", final, 2)
    assert (finished.id, finished.state, finished.finished_at) == ("p0", final, 2)
    for attempt in (
        lambda: queue.get("p0"),
        lambda: queue.finish("p0", TaskState.COMPLETED, 3),
        lambda: queue.need_input("p0"),
        lambda: queue.resume("p0"),
        lambda: queue.withdraw("p0", now=3),
    ):
        with pytest.raises(NotFound):
            attempt()


def test_the_queue_holds_only_open_prompts_after_many_finished_turns():
    """A room kept for months holds what is open, not every prompt's text ever submitted."""
    queue = PromptQueue()
    outcomes = [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED]
    for n in range(300):
        queue.submit(f"p{n}", "bob", "text " * 100, None, now=float(n))
        if n % 4 == 3:
            withdrawn = queue.withdraw(f"p{n}", now=n + 0.5)
            assert withdrawn.state is TaskState.CANCELED
            continue
        queue.start_next(n + 0.1)
        queue.finish(f"p{n}", outcomes[n % 3], n + 0.2)
    queue.submit("running", "bob", "x", None, now=400)
    queue.submit("waiting", "bob", "x", None, now=401)
    queue.start_next(402)
    assert [p.id for p in queue.open()] == ["running", "waiting"]
    assert queue._prompts.keys() == {"running", "waiting"}
    for n in range(300):
        with pytest.raises(NotFound):
            queue.get(f"p{n}")


def test_unknown_and_duplicate_prompts():
    queue = queue_with("bob")
    with pytest.raises(NotFound):
        queue.withdraw("nope", now=1)
    with pytest.raises(Conflict):
        queue.submit("p0", "bob", "again", None, now=1)


def test_transition_table_never_leaves_a_terminal_state():
    assert not [key for key in TRANSITIONS if key[0] in TERMINAL]


class QueueMachine(RuleBasedStateMachine):
    """Random sequences of everything people and the agent can do to the queue."""

    def __init__(self):
        super().__init__()
        self.queue = PromptQueue()
        self.submitted: list[str] = []
        self.started: list[str] = []
        self.final: dict[str, TaskState] = {}
        self.now = 0.0

    def tick(self):
        self.now += 1
        return self.now

    @rule(author=st.sampled_from(["alice", "bob", "carol"]))
    def submit(self, author):
        prompt_id = f"p{len(self.submitted)}"
        self.queue.submit(prompt_id, author, "x", None, self.tick())
        self.submitted.append(prompt_id)

    @rule()
    def start_next(self):
        before = self.queue.in_flight
        started = self.queue.start_next(self.tick())
        if before is not None:
            assert started is None
        elif started is not None:
            self.started.append(started.id)

    @precondition(lambda self: self.submitted)
    @rule(data=st.data(), by=st.sampled_from(["alice", "bob", "carol"]), host=st.booleans())
    def withdraw(self, data, by, host):
        prompt_id = data.draw(st.sampled_from(self.submitted))
        if prompt_id in self.final:
            with pytest.raises(NotFound):  # forgotten: the room asks the transcript
                self.queue.withdraw(prompt_id, now=self.tick())
            return
        prompt = self.queue.get(prompt_id)
        role = Role.HOST if host else Role.MEMBER
        if not rules.may_withdraw(role, by, prompt.author, rules.Terms()):
            assert prompt.author != by and not host
            return
        try:
            self.queue.withdraw(prompt_id, now=self.tick())
        except Conflict:
            assert prompt.state is not TaskState.SUBMITTED
        else:
            assert prompt.state is TaskState.SUBMITTED
            self.final[prompt_id] = TaskState.CANCELED

    @rule(outcome=st.sampled_from(sorted(TERMINAL)))
    def finish_running(self, outcome):
        running = self.queue.in_flight
        if running is not None:
            assert self.queue.finish(running.id, outcome, self.tick()).state is outcome
            self.final[running.id] = outcome

    @rule()
    def toggle_input(self):
        running = self.queue.in_flight
        if running is None:
            return
        if running.state is TaskState.WORKING:
            self.queue.need_input(running.id)
        else:
            self.queue.resume(running.id)

    def unfinished(self):
        return [p for p in self.submitted if p not in self.final]

    @invariant()
    def at_most_one_in_flight(self):
        ids = [p for p in self.unfinished() if self.queue.get(p).state in IN_FLIGHT]
        assert len(ids) <= 1

    @invariant()
    def prompts_start_in_submission_order(self):
        order = {p: n for n, p in enumerate(self.submitted)}
        assert [order[p] for p in self.started] == sorted(order[p] for p in self.started)

    @invariant()
    def finished_prompts_are_forgotten(self):
        for prompt_id in self.final:
            with pytest.raises(NotFound):
                self.queue.get(prompt_id)

    @invariant()
    def open_prompts_are_exactly_the_unfinished_ones(self):
        open_ids = [p.id for p in self.queue.open()]
        assert sorted(open_ids) == sorted(self.unfinished())
        assert len(open_ids) == len(set(open_ids))
        assert all(self.queue.get(p).state not in TERMINAL for p in open_ids)


TestQueueMachine = QueueMachine.TestCase
