"""Seen from the operator's chair: the room's Prometheus metrics on jupyter_server's `/metrics`,
and its audit trail as Jupyter Events with a registered schema per record kind."""

import io
import json
import logging
from pathlib import Path

import pytest
from jsonschema import ValidationError
from jupyter_events import EventLogger
from prometheus_client.parser import text_string_to_metric_families

from jupyter_copilot_room import eventlog
from jupyter_copilot_room.events import RECORD_PAYLOADS, Record

from .harness import people
from .harness.helpers import eventually


async def scrape(jp_fetch, user="alice") -> dict:
    """`/metrics` as `{(name, labels...): value}` for the room's own samples."""
    r = await jp_fetch("metrics", headers=people.authorization(user))
    assert r.code == 200
    samples = {}
    for family in text_string_to_metric_families(r.body.decode()):
        for sample in family.samples:
            if sample.name.startswith("copilot_room_"):
                samples[(sample.name, *sorted(sample.labels.items()))] = sample.value
    return samples


async def approved_turn(api, room, user="bob"):
    """`user` runs a shell command the room asks them to approve; the turn completes."""
    r = await api(user, "POST", "prompts", body={"text": "shell make test"})
    assert r.code == 202, r
    await eventually(lambda: room.document.approvals.to_py(), what="the approval card")
    [request_id] = room.document.approvals.to_py()
    r = await api(user, "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    await eventually(lambda: room.turns.queue.in_flight is None, what="the turn to end")
    return r.json


async def test_metrics_show_the_rooms_turns_approvals_queue_people_and_restarts(
    api, room, agent, connect, jp_fetch
):
    await api("alice", "GET", "room")
    await eventually(lambda: room.document.meta.get("state") == "idle")
    await approved_turn(api, room)
    await connect("carol")
    await connect("bob")
    await api("alice", "POST", "prompts", body={"text": "wait"})
    await api("bob", "POST", "prompts", body={"text": "say later"})
    await eventually(lambda: room.document.meta.get("state") == "running")
    await eventually(lambda: len(room.records.sync.connected()) == 2, what="two people connected")

    m = await scrape(jp_fetch)
    assert m[("copilot_room_approvals_total", ("kind", "shell"), ("outcome", "approved"))] == 1
    assert m[("copilot_room_turn_duration_seconds_count", ("state", "completed"))] == 1
    assert m[("copilot_room_turn_duration_seconds_bucket", ("le", "+Inf"), ("state", "completed"))]
    assert m[("copilot_room_queue_depth",)] == 1  # bob's prompt waits behind the running one
    assert m[("copilot_room_agent_state", ("state", "running"))] == 1
    assert m[("copilot_room_agent_state", ("state", "idle"))] == 0
    assert m[("copilot_room_people_connected", ("role", "viewer"))] == 1
    assert m[("copilot_room_people_connected", ("role", "member"))] == 1
    assert m[("copilot_room_people_connected", ("role", "host"))] == 0
    assert m[("copilot_room_transcript_records_total", ("kind", "prompt.submitted"))] == 3
    assert m[("copilot_room_transcript_bytes",)] == room.transcript.path.stat().st_size
    assert m[("copilot_room_storage_full",)] == 0

    # An agent that ignores the host's abort is restarted: counted by reason, the turn canceled.
    agent.ignore_abort = True
    assert (await api("alice", "POST", "abort")).code == 200
    await eventually(lambda: agent.restarts == 1, timeout=10, what="the agent's restart")
    m = await scrape(jp_fetch)
    assert m[("copilot_room_agent_restarts_total", ("reason", "degraded"))] == 1
    assert m[("copilot_room_turn_duration_seconds_count", ("state", "canceled"))] == 1


@pytest.mark.parametrize("user", [None, "dave"])
async def test_metrics_need_a_signed_in_user_as_jupyter_server_decides(jp_fetch, room, user):
    """`ServerApp.authenticate_prometheus` (on by default) guards the room's metrics too."""
    headers = people.authorization(user) or {"Authorization": ""}
    r = await jp_fetch("metrics", headers=headers, raise_error=False)
    if user is None:
        assert r.code == 403
    else:  # anyone the server signs in, as for its own metrics (the room's door is not asked)
        assert r.code == 200 and b"copilot_room_queue_depth" in r.body


def test_the_shipped_schemas_are_the_ones_the_payload_classes_make():
    """`python -m jupyter_copilot_room.eventlog` after changing a payload in events.py."""
    for kind in RECORD_PAYLOADS:
        shipped = json.loads(eventlog.schema_path(kind).read_text())
        assert shipped == eventlog.schema_of(kind), f"{kind}: run python -m {eventlog.__name__}"
    shipped_kinds = {path.parent.name for path in eventlog.SCHEMAS.glob("*/v1.json")}
    assert shipped_kinds == set(RECORD_PAYLOADS)


#: A record of each kind added since 0.1 (the 0.1 transcript holds all the others).
SINCE_0_1 = [
    Record(seq=0, ts=0, kind="chat.message", actor="bob", payload={"id": "m", "text": "hi"}),
    Record(
        seq=0,
        ts=0,
        kind="prompt.steered",
        actor="bob",
        payload={"id": "s", "prompt_id": "p", "text": "faster"},
    ),
    Record(seq=0, ts=0, kind="model.changed", actor="alice", payload={"model": "other-model"}),
    Record(
        seq=0,
        ts=0,
        kind="budget.lifted",
        actor="alice",
        payload={"username": "bob", "day": "2026-12-01"},
    ),
    Record(
        seq=0,
        ts=0,
        kind="turn.checkpointed",
        actor=None,
        payload={"prompt_id": "p", "author": "bob", "commit": "c" * 40, "files": ["a.txt"]},
    ),
    Record(
        seq=0,
        ts=0,
        kind="turn.reverted",
        actor="alice",
        payload={
            "prompt_id": "p",
            "author": "bob",
            "reverted": "c" * 40,
            "commit": "d" * 40,
            "files": ["a.txt"],
        },
    ),
    Record(seq=0, ts=0, kind="copilot.signed_in", actor="alice", payload={"login": "alice-gh"}),
    Record(seq=0, ts=0, kind="copilot.signed_out", actor="alice", payload={}),
    Record(
        seq=0,
        ts=0,
        kind="request.approval",
        actor="bob",
        payload={"id": "r", "approvers": ["bob"]},
    ),
    Record(
        seq=0,
        ts=0,
        kind="plan.updated",
        actor=None,
        payload={
            "entry_id": "e",
            "prompt_id": "p",
            "steps": [{"content": "Read the data", "status": "in_progress"}],
        },
    ),
    Record(
        seq=0,
        ts=0,
        kind="room.created",
        actor="alice",
        payload={"name": "analysis", "repository": "projects/analysis"},
    ),
]


def test_every_kind_of_record_validates_against_its_registered_schema():
    """The 0.1 transcript and `SINCE_0_1` hold every record kind; each record is a valid event
    of its kind and of no other (jupyter_events validates what is emitted against the registered
    schema)."""
    logger = EventLogger()
    eventlog.EventEmitter(logger)
    lines = (Path(__file__).parent / "data" / "transcript-0.1.jsonl").read_text().splitlines()
    records = [Record.model_validate_json(line) for line in lines if line.strip()] + SINCE_0_1
    assert {r.kind for r in records} == set(RECORD_PAYLOADS)
    for record in records:
        logger.schemas.validate_event(eventlog.schema_id(record.kind), record.model_dump())
        other = "system" if record.kind != "system" else "abort"
        with pytest.raises(ValidationError):
            logger.schemas.validate_event(eventlog.schema_id(other), record.model_dump())


async def test_every_record_of_a_prompt_arrives_as_a_valid_jupyter_event(api, room, jp_serverapp):
    logger = jp_serverapp.event_logger
    heard = []

    async def listener(logger, schema_id, data):
        heard.append((schema_id, data))

    logger.add_listener(listener=listener)  # every registered schema
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)  # what a deployment ships (c.EventLogger.handlers)
    logger.register_handler(handler)
    try:
        await api("alice", "GET", "room")
        await eventually(lambda: room.document.meta.get("state") == "idle")
        before = len(heard)
        await approved_turn(api, room)
        await eventually(lambda: heard[-1][1]["kind"] == "prompt.finished", what="the end")
    finally:
        logger.remove_handler(handler)
        logger.remove_listener(listener=listener)

    records = [json.loads(line) for line in room.transcript.read_text().split("\n") if line]
    turn = heard[before:]
    assert {data.pop("room") for _, data in turn} == {"main"}  # the room whose records they are
    assert [data for _, data in turn] == records[-len(turn) :]
    assert [schema for schema, _ in turn] == [
        f"https://events.jupyter.org/jupyter_copilot_room/{data['kind']}/v1" for _, data in turn
    ]
    kinds = [data["kind"] for _, data in turn]
    assert {"prompt.submitted", "prompt.started", "request.opened", "request.settled"} <= set(kinds)
    assert {"tool.started", "tool.completed", "assistant.message"} <= set(kinds)
    submitted = next(data for _, data in turn if data["kind"] == "prompt.submitted")
    assert (submitted["actor"], submitted["payload"]["text"]) == ("bob", "shell make test")
    # Each event also left as one JSON line through the logging handler, in its envelope.
    shipped = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert [e["__schema__"] for e in shipped[-len(turn) :]] == [s for s, _ in turn]
    assert shipped[-1]["__schema_version__"] == "1"


@pytest.mark.parametrize("room_config", [{"redact_event_personal_data": True}])
async def test_personal_data_can_be_redacted_from_the_events(api, room, jp_serverapp):
    heard = []

    async def listener(logger, schema_id, data):
        heard.append(data)

    jp_serverapp.event_logger.add_listener(listener=listener)
    try:
        await api("bob", "POST", "prompts", body={"text": "say hello"})
        await eventually(lambda: any(d["kind"] == "prompt.finished" for d in heard))
    finally:
        jp_serverapp.event_logger.remove_listener(listener=listener)
    submitted = next(d for d in heard if d["kind"] == "prompt.submitted")
    assert (submitted["actor"], submitted["payload"]["text"]) == ("[redacted]", "[redacted]")
    seen = next(d for d in heard if d["kind"] == "person.seen")
    assert seen["payload"]["username"] == seen["payload"]["display_name"] == "[redacted]"
    message = next(d for d in heard if d["kind"] == "assistant.message")
    assert message["payload"]["text"] == "[redacted]"
    # The transcript, the audit trail, keeps everything.
    assert '"text":"say hello"' in room.transcript.read_text()
