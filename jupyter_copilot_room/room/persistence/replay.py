"""Rebuilding the room from `transcript.jsonl` when the server starts.

Each record is replayed into the state it touches (the queue, the people and the hosts'
decisions, the settings hosts changed, the streams, the last agent status) and applied to the
document, in order, so the restarted room is the room that stopped: the transcript is the one
source of truth, and `admissions.json` and `settings.json` are caches rebuilt from it. A record
that contradicts the ones before it (a bug, a lost line) is reported and skipped: the room still
starts with everything else. What the stop cut off (open requests, a running turn) is returned
for the room to settle truthfully.

A start from a snapshot replays its live records into everything but the document (which the
snapshot holds), then the records after it in full. Replay yields to the event loop every few
milliseconds and the transcript is read a chunk at a time, so a long transcript never stalls the
server; while it runs, the objects that existed before it are kept out of Python's full garbage
collections (`heap_frozen`), which would otherwise walk the whole server's heap several times.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...access.admissions import Decision
from ...access.identity import Identity
from ...access.roles import Role
from ...errors import Refused
from ...events import (
    AdmissionDecided,
    AgentReady,
    AssistantMessage,
    AssistantStarted,
    ModelChanged,
    PersonRef,
    PersonSeen,
    PromptFinished,
    PromptRef,
    PromptSubmitted,
    Record,
    RequestOpened,
    RequestSettled,
    RoleChanged,
    SettingsChanged,
    Strict,
)
from ...events.consumers import rebuilds
from ...settings import SettingsStore
from ..live.document import RoomDocument
from ..live.streams import Streams
from ..people.participants import People
from ..turns.queue import PromptQueue, QueuedPrompt, TaskState
from .snapshot import LiveRecords

#: What a start rebuilds besides the document: the queue, people and hosts' decisions,
#: settings, streams, the model (`events/consumers.py`).
RECORDS = rebuilds(
    "replay",
    handles=[
        "prompt.submitted",
        "prompt.withdrawn",
        "prompt.started",
        "prompt.finished",
        "assistant.started",
        "assistant.message",
        "agent.ready",
        "request.opened",
        "request.settled",
        "person.seen",
        "admission.decided",
        "role.changed",
        "person.removed",
        "host.claimed",
        "settings.changed",
        "model.changed",
    ],
    ignores=[
        "tool.started",
        "tool.completed",
        "plan.updated",
        "subagent.started",
        "subagent.ended",
        "usage",
        "agent.error",
        "request.approval",
        "abort",
        "system",
        "chat.message",
        "prompt.steered",
        "budget.lifted",
        "turn.checkpointed",
        "turn.reverted",
        "copilot.signed_in",
        "copilot.signed_out",
        "room.created",
    ],
)

log = logging.getLogger(__name__)


@dataclass
class Replayed:
    """What the transcript left open, and the agent status it last recorded."""

    open_requests: dict[str, RequestOpened] = field(default_factory=dict)
    last_ready: AgentReady | None = None
    model: str | None = None  # the model a host last chose


#: Seconds of replay between yields to the event loop. A task woken by a timer or a socket
#: runs two or three loop turns later, each with a slice in it: 5 ms keeps that under ~20 ms.
SLICE = 0.005

_replaying = 0  # replays running now (the rooms start together)
_froze = False  # whether the first of them froze the heap (nobody else had)


@contextlib.contextmanager
def heap_frozen() -> Iterator[None]:
    """While a replay runs, keep every object made before it out of Python's cyclic garbage
    collector (`gc.freeze`). A full collection walks every tracked object in the process (about
    80 ms for the 180,000 the server holds once imported, on the 2-core benchmark machine), and a
    long replay's allocations trigger one every few thousand records: frozen, one walks only what
    the replay made (a few ms). Process-wide, hence only for the replay: the last one to end
    unfreezes and those objects are collected as before (cycles among them that became garbage
    meanwhile wait until then). A heap someone else froze is left as it is."""
    global _replaying, _froze
    if _replaying == 0 and gc.get_freeze_count() == 0:
        gc.freeze()
        _froze = True
    _replaying += 1
    try:
        yield
    finally:
        _replaying -= 1
        if _replaying == 0 and _froze:
            gc.unfreeze()
            _froze = False


async def replay(
    records: list[tuple[Record, Strict]],
    *,
    queue: PromptQueue,
    people: People,
    streams: Streams,
    settings: SettingsStore,
    document: RoomDocument | None,
    live: LiveRecords,
    replayed: Replayed | None = None,
) -> Replayed:
    """Replay `records` into the room's state and `live` (and the document, unless None: a
    snapshot's live records are already in its document)."""
    replayed = replayed or Replayed()
    deadline = time.monotonic() + SLICE
    for record, payload in records:
        if time.monotonic() > deadline:
            await asyncio.sleep(0)
            deadline = time.monotonic() + SLICE
        try:
            _replay_one(record, payload, queue, people, streams, settings, replayed)
            live.add(record)
            if document is not None:
                document.apply(record, payload)
        except (Refused, RuntimeError, KeyError, ValueError) as err:
            log.warning(
                "transcript seq %d (%s) cannot be replayed, skipped: %r",
                record.seq,
                record.kind,
                err,
            )
    return replayed


def replay_prompt(record: Record, p: Strict, queue: PromptQueue) -> QueuedPrompt | None:
    """Move the queue as a prompt's record says and return the prompt as moved (also one that
    finished, which the queue forgets); None for a record about anything else."""
    match record.kind, p:
        case "prompt.submitted", PromptSubmitted():
            return queue.submit(
                p.id,
                record.actor or "",
                p.text,
                p.target,
                record.ts,
                p.chips or (),
                p.attachments or (),
                p.thread if p.applies else None,
            )
        case "prompt.withdrawn", PromptRef():
            return queue.withdraw(p.id, now=record.ts)
        case "prompt.started", PromptRef():
            started = queue.start_next(record.ts)
            if started is None or started.id != p.id:
                raise RuntimeError(f"transcript out of order at seq {record.seq}")
            return started
        case "prompt.finished", PromptFinished():
            return queue.finish(p.id, TaskState(p.state), record.ts)
    return None


def _replay_one(
    record: Record,
    p: Strict,
    queue: PromptQueue,
    people: People,
    streams: Streams,
    settings: SettingsStore,
    replayed: Replayed,
) -> None:
    if replay_prompt(record, p, queue) is not None:
        return
    match record.kind, p:
        case "assistant.started", AssistantStarted():
            streams.replayed(p)
        case "assistant.message", AssistantMessage():
            streams.replayed(None, closed=p.entry_id)
        case "request.opened", RequestOpened():
            replayed.open_requests[p.id] = p
        case "request.settled", RequestSettled():
            replayed.open_requests.pop(p.id, None)
        case "person.seen", PersonSeen():
            hub_role = Role(p.gate) if p.gate else None
            people.remember(
                Identity(
                    username=p.username,
                    display_name=p.display_name,
                    verified=p.verified,
                    avatar_url=p.avatar_url,
                    color=p.color,
                    hub_role=hub_role,
                )
            )
        case "agent.ready", AgentReady():
            replayed.last_ready = p
        case "admission.decided", AdmissionDecided():
            people.book.restore(p.username, Decision(p.decision))
        case "role.changed", RoleChanged():
            people.book.restore(p.username, Decision(p.role), over_hub=True)
        case "person.removed", PersonRef():
            people.book.restore(p.username, Decision.REJECT)
        case "host.claimed", PersonRef():
            people.book.claim_host(p.username)
        case "settings.changed", SettingsChanged():
            settings.restore(p.changes)
        case "model.changed", ModelChanged():
            replayed.model = p.model
