"""The room's Prometheus metrics, served on jupyter_server's own `/metrics` beside its metrics.

Hub admins watch many servers with Prometheus; these say how each room is doing. Everything is
read at scrape time, by one collector registered once in prometheus_client's process-wide
registry: gauges from the room's state as it is now, counters and the turn-duration histogram
from `RoomMetrics`, which hears every record the room commits (the Recorder's listener), so no
part of the room calls into this module. Counters count since this server started, as
Prometheus expects; a restarted server starts them again from zero.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Protocol

from prometheus_client import REGISTRY
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from .access.roles import Role
from .events import Record
from .events.consumers import reads
from .room.turns.agent_life import AgentState

if TYPE_CHECKING:
    from .room.room import Readings

#: What the room's Prometheus metrics count (`events/consumers.py`).
RECORDS = reads(
    "metrics", handles=["prompt.started", "prompt.finished", "request.opened", "request.settled"]
)

log = logging.getLogger(__name__)

PREFIX = "copilot_room"

#: Upper bounds (seconds) of the turn-duration buckets: a quick answer to an hour-long turn.
TURN_BUCKETS = (1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)

#: Every state `meta.state` can take (`AgentLife.state`), so each has a series even when it is 0.
AGENT_STATES = tuple(state.value for state in AgentState if state is not AgentState.NEW)


class TurnDurations:
    """A histogram of turn durations for one final state."""

    def __init__(self) -> None:
        self.buckets = [0] * len(TURN_BUCKETS)
        self.count = 0
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        self.count += 1
        self.sum += seconds
        for i, bound in enumerate(TURN_BUCKETS):
            if seconds <= bound:
                self.buckets[i] += 1

    def add(self, other: TurnDurations | None) -> None:
        if other is not None:
            self.count += other.count
            self.sum += other.sum
            self.buckets = [a + b for a, b in zip(self.buckets, other.buckets, strict=True)]

    def cumulative(self) -> list[tuple[str, float]]:
        return [
            *((str(bound), n) for bound, n in zip(TURN_BUCKETS, self.buckets, strict=True)),
            ("+Inf", self.count),
        ]


class Observed(Protocol):
    """What the metrics need of a room, and nothing else of it."""

    def listen(self, listener: Callable[[Record], None]) -> None:
        """Hear every record the room commits."""

    def readings(self) -> Readings:
        """The room's state now."""


class RoomMetrics:
    """What the records this server committed say: counts by kind, requests settled by outcome,
    how long turns took; and the room's readings, at scrape time."""

    def __init__(self, room: Observed):
        self.room = room
        self.records: Counter[str] = Counter()
        self.approvals: Counter[tuple[str, str]] = Counter()  # (kind, outcome)
        self.questions: Counter[str] = Counter()  # outcome
        self.turns: dict[str, TurnDurations] = {}
        self._started: dict[str, float] = {}  # prompt id -> when its turn started
        self._request_kinds: dict[str, str] = {}  # open request id -> its kind

    def heard(self, record: Record) -> None:
        """One committed record (the Recorder's listener); never raises into the room."""
        try:
            self._count(record)
        except Exception:
            log.exception("Copilot room metrics: could not count record %s", record.seq)

    def _count(self, record: Record) -> None:
        self.records[record.kind] += 1
        payload = record.payload
        match record.kind:
            case "prompt.started":
                self._started[payload["id"]] = record.ts
            case "prompt.finished":
                if (started := self._started.pop(payload["id"], None)) is not None:
                    durations = self.turns.setdefault(payload["state"], TurnDurations())
                    durations.observe(max(0.0, record.ts - started))
            case "request.opened":
                self._request_kinds[payload["id"]] = payload["kind"]
            case "request.settled":
                kind = self._request_kinds.pop(payload["id"], None)
                if kind == "question":
                    self.questions[payload["outcome"]] += 1
                elif kind is not None:
                    self.approvals[(kind, payload["outcome"])] += 1


class RoomCollector(Collector):
    """Reads every watched room at scrape time (one in a server; tests may run several servers
    in one process, one after another, so the values are summed over the rooms watched now)."""

    def __init__(self) -> None:
        self.rooms: list[RoomMetrics] = []

    def collect(self) -> Iterator[Metric]:
        rooms = list(self.rooms)
        now = [m.room.readings() for m in rooms]
        yield _gauge(
            "queue_depth",
            "Prompts waiting in the room's queue to start (not counting the running one).",
            sum(r.waiting for r in now),
        )
        state = GaugeMetricFamily(
            f"{PREFIX}_agent_state",
            "1 for the agent's state now (as the panel shows it: idle, running, waiting, "
            "unavailable, degraded, ...), 0 for the others.",
            labels=["state"],
        )
        states = Counter(r.agent_state for r in now)
        for name in AGENT_STATES:
            state.add_metric([name], states[name])
        yield state
        people = GaugeMetricFamily(
            f"{PREFIX}_people_connected",
            "People with the room open now (at least one live connection), by their role.",
            labels=["role"],
        )
        roles = _sum(r.connected for r in now)
        for role in (Role.HOST, Role.MEMBER, Role.VIEWER):
            people.add_metric([role.value], roles[role.value])
        yield people
        yield _gauge(
            "transcript_bytes",
            "Size of the room's transcript.jsonl (the audit trail; it only grows).",
            sum(r.transcript_bytes for r in now),
        )
        yield _gauge(
            "storage_full",
            "1 while the disk holding the room's state is full: commands are refused with "
            "HTTP 507 until there is space again.",
            int(any(r.storage_full for r in now)),
        )
        yield _counter(
            "storage_refusals",
            "Records the room could not write because its disk was full (each one a command "
            "refused with HTTP 507, or an agent's turn stopped).",
            sum(r.storage_refusals for r in now),
        )
        yield _counter(
            "slow_client_disconnects",
            "Websocket clients closed because they stopped reading (their buffer filled); "
            "they reconnect and sync afresh.",
            sum(r.slow_client_disconnects for r in now),
        )
        yield _labelled_counter(
            "transcript_records",
            "Records written to the transcript by this server, by kind.",
            ["kind"],
            _sum(m.records for m in rooms),
        )
        yield _labelled_counter(
            "approvals",
            "Permission requests settled, by kind (shell, write, read, url, mcp, notebook, ...) "
            "and outcome (approved, rejected, timed_out, aborted).",
            ["kind", "outcome"],
            _sum(m.approvals for m in rooms),
        )
        yield _labelled_counter(
            "questions",
            "Questions of the agent settled, by outcome (answered, timed_out, aborted).",
            ["outcome"],
            _sum(m.questions for m in rooms),
        )
        yield _labelled_counter(
            "agent_restarts",
            "Agent restarts by reason: degraded (it ignored an abort), lost (its runtime "
            "stopped answering), retry (a host pressed Try again), chosen (a host chose another "
            "agent).",
            ["reason"],
            _sum(r.restarts for r in now),
        )
        durations = HistogramMetricFamily(
            f"{PREFIX}_turn_duration_seconds",
            "How long turns took from start to end, by how they ended (completed, failed, "
            "canceled).",
            labels=["state"],
        )
        for name in sorted({s for m in rooms for s in m.turns}):
            merged = TurnDurations()
            for m in rooms:
                merged.add(m.turns.get(name))
            durations.add_metric([name], merged.cumulative(), merged.sum)
        yield durations


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"{PREFIX}_{name}", documentation, value=value)


def _counter(name: str, documentation: str, value: float) -> CounterMetricFamily:
    return CounterMetricFamily(f"{PREFIX}_{name}", documentation, value=value)


def _labelled_counter(
    name: str, documentation: str, labels: list[str], counts: Counter
) -> CounterMetricFamily:
    family = CounterMetricFamily(f"{PREFIX}_{name}", documentation, labels=labels)
    for key, value in sorted(counts.items()):
        family.add_metric(list(key) if isinstance(key, tuple) else [key], value)
    return family


def _sum(counters: Iterator[Counter]) -> Counter:
    total: Counter = Counter()
    for counter in counters:
        total.update(counter)
    return total


_collector: RoomCollector | None = None


def watch(room: Observed) -> RoomMetrics:
    """Serve the room's metrics on `/metrics` until `unwatch`; the collector is registered in
    prometheus_client's registry once per process, however many servers a process starts."""
    global _collector
    if _collector is None:
        _collector = RoomCollector()
        REGISTRY.register(_collector)
    metrics = RoomMetrics(room)
    room.listen(metrics.heard)
    _collector.rooms.append(metrics)
    return metrics


def unwatch(metrics: RoomMetrics) -> None:
    if _collector is not None and metrics in _collector.rooms:
        _collector.rooms.remove(metrics)
