"""Which rooms' agents may run at once: `c.CopilotRoom.max_active_rooms` slots, server-wide
(none by default: each agent is a session in the server's one runtime, a few MB).

A host who wants to bound how many rooms' sessions are open sets one. A room asks for a slot
when it needs its agent (`need`: a prompt, or the room `main` at server start) and gives it back
when its agent has stopped (`stopped`: after `room_idle_timeout` without a prompt, or when it
was evicted). When every slot is held, the room
that has been idle longest (no turn in flight, nothing queued, no open card) is told to stop its
agent so the slot can pass on; a busy room is never told. If no room is idle, the asking room
waits, first come first served, and gets the first slot freed. A stopping agent keeps its slot
until it has stopped, so no more agents than the limit ever run.

Pure: no I/O, no clock. Each change returns the orders it makes (`start` this room's agent,
`stop` that one's) and hands each to the named room's `join`ed callback, which must not call back
into the slots before it returns (the rooms spawn a task).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Order:
    room: str
    action: Literal["start", "stop"]


@dataclass
class _Holder:
    used: int  # when it last got its slot or became busy (larger: more recent)
    idle: bool = False  # its agent is up and has nothing to do: it may give its slot up
    stopping: bool = False  # told to stop (or stopping on its own): the slot is still held


class AgentSlots:
    def __init__(self, limit: int | None = None):
        if limit is not None and limit < 1:
            raise ValueError("At least one room's agent must be able to run.")
        self.limit = limit  # None: no limit (one room, and the tests of a single room)
        self._holders: dict[str, _Holder] = {}
        self._waiting: list[str] = []
        self._clock = 0  # counts uses: the order of use, not time
        self._rooms: dict[str, Callable[[Order], None]] = {}

    # -- what people see -------------------------------------------------------------------------

    @property
    def running(self) -> list[str]:
        """The rooms whose agent holds a slot (starting, up, or stopping)."""
        return list(self._holders)

    @property
    def waiting(self) -> list[str]:
        """The rooms waiting for a slot, first in line first."""
        return list(self._waiting)

    def is_waiting(self, room: str) -> bool:
        return room in self._waiting

    def held_detail(self, room: str) -> str:
        """Why `room` waits, in words for the panel."""
        running = len(self._holders)
        ahead = self._waiting.index(room) if room in self._waiting else 0
        said = (
            f"{running} rooms' agents are running (max_active_rooms = {self.limit}); this "
            "room's prompt starts when one of them is free."
            if running != 1
            else "1 room's agent is running (max_active_rooms = 1); this room's prompt starts "
            "when it is free."
        )
        if ahead:
            said += f" {ahead} other room{'s are' if ahead > 1 else ' is'} waiting before it."
        return said

    # -- changes ---------------------------------------------------------------------------------

    def join(self, room: str, on_order: Callable[[Order], None]) -> None:
        """`room` takes part: its orders go to `on_order`."""
        self._rooms[room] = on_order

    def leave(self, room: str) -> list[Order]:
        """`room` is gone (its agent stopped with the server): its slot or place passes on."""
        self._rooms.pop(room, None)
        self._holders.pop(room, None)
        if room in self._waiting:
            self._waiting.remove(room)
        return self._balance()

    def need(self, room: str) -> list[Order]:
        """`room` needs its agent: a slot now (`start`), or a place in line (and perhaps an idle
        room told to `stop`). A room whose agent is stopping waits for it like any other."""
        holder = self._holders.get(room)
        if holder is not None and not holder.stopping:
            return []
        if room not in self._waiting:
            self._waiting.append(room)
        return self._balance()

    def busy(self, room: str) -> None:
        """`room`'s agent has work (a turn, a queued prompt, an open card): it keeps its slot."""
        if (holder := self._holders.get(room)) is not None:
            holder.idle = False
            holder.used = self._tick()

    def idle(self, room: str) -> list[Order]:
        """`room`'s agent is up with nothing to do: a waiting room may take its slot."""
        if (holder := self._holders.get(room)) is None:
            return []
        holder.idle = True
        return self._balance()

    def release(self, room: str) -> bool:
        """`room` wants to stop its idle agent (its idle timeout): whether it may. Then it
        stops it and says `stopped`."""
        holder = self._holders.get(room)
        if holder is None or holder.stopping or not holder.idle:
            return False
        holder.stopping = True
        return True

    def stopped(self, room: str) -> list[Order]:
        """`room`'s agent has stopped: its slot goes to the first room in line."""
        self._holders.pop(room, None)
        return self._balance()

    # -- the rule --------------------------------------------------------------------------------

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _balance(self) -> list[Order]:
        """Free slots go to the rooms in line, in order; then, while more rooms wait than
        stopping agents will free slots for, the least recently used idle room is told to stop."""
        orders: list[Order] = []
        while self.limit is None or len(self._holders) < self.limit:
            # A room whose own agent is still stopping takes a slot once it has stopped.
            room = next((r for r in self._waiting if r not in self._holders), None)
            if room is None:
                break
            self._waiting.remove(room)
            self._holders[room] = _Holder(used=self._tick())
            orders.append(Order(room, "start"))
        freeing = sum(1 for h in self._holders.values() if h.stopping)
        while len(self._waiting) > freeing:
            idle = [(h.used, r) for r, h in self._holders.items() if h.idle and not h.stopping]
            if not idle:
                break
            _, victim = min(idle)
            self._holders[victim].stopping = True
            freeing += 1
            orders.append(Order(victim, "stop"))
        for order in orders:
            if (on_order := self._rooms.get(order.room)) is not None:
                on_order(order)
        return orders
