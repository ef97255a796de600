"""`AgentSlots`: how many rooms' agents run at once, who waits, and who gives a slot up.

Unit examples of the rule, then a hypothesis state machine that drives rooms the way the server
does (a prompt needs the agent, a turn ends, an idle timeout passes, a stop completes, a room
goes away) and checks after every step: never more agents than the limit, no room waits while a
slot is free, rooms in line get slots first come first served, a busy room is never told to
stop.
"""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from jupyter_copilot_room.room.turns.agent_slots import AgentSlots, Order

ROOMS = ("main", "a", "b", "c")


def joined(limit, rooms=ROOMS):
    slots = AgentSlots(limit)
    heard: list[Order] = []
    for room in rooms:
        slots.join(room, heard.append)
    return slots, heard


def test_rooms_start_until_the_limit_then_wait_in_line():
    slots, heard = joined(2)
    assert slots.need("main") == [Order("main", "start")]
    assert slots.need("a") == [Order("a", "start")]
    assert slots.need("b") == [] and slots.need("c") == []
    assert slots.waiting == ["b", "c"]
    assert heard == [Order("main", "start"), Order("a", "start")]
    assert slots.held_detail("c") == (
        "2 rooms' agents are running (max_active_rooms = 2); this room's prompt starts when one "
        "of them is free. 1 other room is waiting before it."
    )


def test_the_least_recently_used_idle_room_gives_its_slot_to_the_first_in_line():
    slots, heard = joined(2)
    slots.need("main"), slots.need("a")
    slots.idle("main")
    slots.idle("a")
    slots.busy("main")  # main took a prompt since: a is now the least recently used
    slots.idle("main")
    assert slots.need("b") == [Order("a", "stop")]
    assert slots.running == ["main", "a"], "a stopping agent keeps its slot until it stopped"
    assert slots.stopped("a") == [Order("b", "start")]
    assert slots.running == ["main", "b"] and heard[-1] == Order("b", "start")


def test_a_busy_room_keeps_its_slot_and_the_next_idle_one_frees_it():
    slots, _ = joined(1)
    slots.need("main")
    assert slots.need("a") == [], "main is busy (starting): a waits"
    assert slots.idle("main") == [Order("main", "stop")], "idle with a room in line: it goes"
    assert slots.release("main") is False, "already stopping"
    assert slots.stopped("main") == [Order("a", "start")]


def test_an_idle_timeout_frees_the_slot_and_a_room_that_leaves_gives_it_up():
    slots, _ = joined(1)
    slots.need("main")
    assert slots.release("main") is False, "a starting agent is not idle"
    slots.idle("main")
    assert slots.release("main") is True
    assert slots.need("main") == [], "a prompt while its agent stops: main waits for itself"
    assert slots.stopped("main") == [Order("main", "start")]
    slots.need("a")
    assert slots.leave("main") == [Order("a", "start")]


def test_without_a_limit_every_room_starts_at_once():
    slots, _ = joined(None)
    assert [slots.need(r) for r in ROOMS] == [[Order(r, "start")] for r in ROOMS]
    with pytest.raises(ValueError):
        AgentSlots(0)


class Server(RuleBasedStateMachine):
    """Rooms as the server drives them; `up` are the agents running (started, not stopped)."""

    def __init__(self):
        super().__init__()
        self.slots: AgentSlots | None = None
        self.up: set[str] = set()
        self.stopping: set[str] = set()  # told to stop, or stopping after their idle timeout
        self.idle_now: set[str] = set()  # rooms whose last word to the slots was `idle`
        self.line: list[str] = []  # the waiting rooms in the order they asked
        self.gone: set[str] = set()

    @rule(limit=st.integers(1, 3))
    @precondition(lambda self: self.slots is None)
    def open_server(self, limit):
        self.slots = AgentSlots(limit)
        for room in ROOMS:
            self.slots.join(room, lambda order: None)

    def apply(self, orders):
        assert self.slots is not None
        for order in orders:
            if order.action == "start":
                ahead = [r for r in self.line if r not in self.slots.running or r == order.room]
                assert ahead and ahead[0] == order.room, f"{order.room} jumped the line {ahead}"
                self.line.remove(order.room)
                assert order.room not in self.up
                self.up.add(order.room)
                self.idle_now.discard(order.room)
            else:
                assert order.room in self.idle_now, f"busy room {order.room} told to stop"
                self.stopping.add(order.room)

    @rule(room=st.sampled_from(ROOMS))
    @precondition(lambda self: self.slots is not None)
    def prompt(self, room):
        assert self.slots is not None
        if room in self.gone:
            return
        if room in self.up and room not in self.stopping:
            self.idle_now.discard(room)
            self.slots.busy(room)
            return
        if room not in self.line:
            self.line.append(room)
        self.apply(self.slots.need(room))

    @rule(room=st.sampled_from(ROOMS))
    @precondition(lambda self: self.slots is not None)
    def turn_ends(self, room):
        assert self.slots is not None
        if room in self.up and room not in self.stopping:
            self.idle_now.add(room)
            self.apply(self.slots.idle(room))

    @rule(room=st.sampled_from(ROOMS))
    @precondition(lambda self: self.slots is not None)
    def idle_timeout(self, room):
        assert self.slots is not None
        if room in self.up and room in self.idle_now and room not in self.stopping:
            assert self.slots.release(room)
            self.stopping.add(room)

    @rule(room=st.sampled_from(ROOMS))
    @precondition(lambda self: self.slots is not None)
    def agent_stopped(self, room):
        assert self.slots is not None
        if room in self.stopping:
            self.stopping.remove(room)
            self.up.remove(room)
            self.idle_now.discard(room)
            self.apply(self.slots.stopped(room))

    @rule(room=st.sampled_from(ROOMS))
    @precondition(lambda self: self.slots is not None)
    def room_goes(self, room):
        assert self.slots is not None
        self.gone.add(room)
        self.up.discard(room)
        self.stopping.discard(room)
        self.idle_now.discard(room)
        if room in self.line:
            self.line.remove(room)
        self.apply(self.slots.leave(room))

    @invariant()
    def never_more_than_the_limit(self):
        if self.slots is not None:
            assert self.up <= set(self.slots.running)
            assert len(self.slots.running) <= self.slots.limit

    @invariant()
    def no_room_waits_while_a_slot_is_free(self):
        if self.slots is None:
            return
        assert self.slots.waiting == self.line
        free = len(self.slots.running) < self.slots.limit
        assert not (free and any(r not in self.slots.running for r in self.line))

    @invariant()
    def an_idle_agent_gives_way_to_a_room_in_line(self):
        if self.slots is None:
            return
        idle = self.idle_now - self.stopping
        assert not (idle and len(self.line) > len(self.stopping)), (
            f"{sorted(idle)} idle while {self.line} wait for {sorted(self.stopping)}"
        )


Server.TestCase.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
test_the_slots_keep_their_rules = Server.TestCase
