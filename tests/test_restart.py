"""What survives a stop or a crash: the document is rebuilt from `transcript.jsonl`."""

import asyncio
import gc
import glob
import json
import os

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.errors import NotFound, Refused, Unavailable
from jupyter_copilot_room.events import PromptFinished, Record
from jupyter_copilot_room.request_bodies import ChatBody, PromptBody
from jupyter_copilot_room.room.live.document import RoomDocument
from jupyter_copilot_room.room.persistence.snapshot import discard
from jupyter_copilot_room.room.persistence.transcript_file import records_with_id
from jupyter_copilot_room.settings import SettingsPatch

from .harness import people
from .harness.helpers import (
    eventually,
    forged_transcript,
    pending_tasks_of_the_room,
    replies,
    transcript_copy,
)

ALICE = Identity("alice", "Alice", verified=True)
BOB = Identity("bob", "Bob", verified=True)


def holds(queue, prompt_id):
    try:
        queue.get(prompt_id)
    except NotFound:
        return False
    return True


def records(state_dir):
    lines = (state_dir / "transcript.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


async def test_restart_rebuilds_an_identical_document_with_the_pending_queue(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    room.prompt_commands.submit(BOB, PromptBody(text="say one two three"))
    await eventually(lambda: room.document.meta.get("state") == "idle" and len(replies(room)) == 1)
    room.prompt_commands.submit(ALICE, PromptBody(text="shell make test"))
    await eventually(lambda: len(room.document.approvals) == 1)
    [request_id] = room.document.approvals.to_py()
    room.prompt_commands.answer_permission(ALICE, request_id, approve=True, feedback=None)
    await eventually(lambda: room.document.meta.get("state") == "idle")
    room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    await eventually(lambda: room.document.meta.get("state") == "running")
    waiting = [
        room.prompt_commands.submit(BOB, PromptBody(text=f"say later {n}"))[0] for n in range(3)
    ]
    await room.prompt_commands.withdraw(BOB, waiting[1])
    await room.stop()  # the held turn is ended truthfully, as failed, before the server goes
    before = room.document.snapshot()

    again = make_room(tmp_path, agent=None)  # no agent yet: the queue must stay as it was
    await again.ensure_started()
    after = again.document.snapshot()
    for snapshot in (before, after):  # the agent's own status is not part of the record
        for key in ("agent", "agent_detail", "agent_error", "state", "name", "title", "agents"):
            snapshot["meta"].pop(key, None)
    assert after == before
    assert [item["id"] for item in after["queue"]] == [waiting[0], waiting[2]]
    assert all(item["state"] == "submitted" for item in after["queue"])


async def test_a_start_from_the_snapshot_and_a_full_replay_rebuild_the_same_queue(
    make_room, tmp_path, caplog
):
    """Both hold the open prompts alone: a finished prompt (completed, failed, withdrawn) is
    forgotten either way, and a withdrawal of it is refused alike, from its records."""
    room = make_room(tmp_path)
    await room.ensure_started()
    done = [room.prompt_commands.submit(BOB, PromptBody(text=f"say {n}"))[0] for n in range(3)]
    failed, _ = room.prompt_commands.submit(BOB, PromptBody(text="fail"))
    await eventually(lambda: len(room.agent.turns) == 4 and room.turns.queue.in_flight is None)
    held, _ = room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    await eventually(lambda: room.document.meta.get("state") == "running")
    waiting = [
        room.prompt_commands.submit(BOB, PromptBody(text=f"say later {n}"))[0] for n in range(3)
    ]
    await room.prompt_commands.withdraw(BOB, waiting[1])
    await room.stop()  # the held turn fails
    ids = [*done, failed, held, *waiting]

    async def restarted(from_snapshot):
        assert (tmp_path / "snapshot.json").exists() or not from_snapshot
        again = make_room(tmp_path, agent=None)
        await again.ensure_started()
        try:
            known = [p for p in ids if holds(again.turns.queue, p)]
            refusals = []
            for prompt_id in (*done, failed, held, waiting[1]):
                for person in (ALICE, BOB):
                    with pytest.raises(Refused) as refused:
                        await again.prompt_commands.withdraw(person, prompt_id)
                    refusals.append((refused.value.status, refused.value.code))
            return list(again.turns.queue.open()), known, refusals
        finally:
            await again.stop()

    from_snapshot = await restarted(from_snapshot=True)
    assert "Discarding the room snapshot" not in caplog.text, "started from it"
    discard(tmp_path)
    replayed = await restarted(from_snapshot=False)
    assert replayed == from_snapshot
    open_prompts, known, refusals = replayed
    assert [p.id for p in open_prompts] == known == [waiting[0], waiting[2]]
    assert set(refusals) == {(409, "not_pending"), (403, "not_your_prompt")}


async def test_pending_prompts_run_after_the_restart(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    queued, _ = room.prompt_commands.submit(BOB, PromptBody(text="say after restart"))
    await eventually(lambda: room.document.meta.get("state") == "running")
    await room.stop()

    again = make_room(tmp_path)
    await again.ensure_started()
    await eventually(lambda: again.agent.turns, what="the queued prompt to run")
    assert again.agent.turns[0].prompt_id == queued
    await eventually(lambda: again.document.meta.get("state") == "idle")
    assert str(again.document.transcript[-1]["body"]) == "after restart"


async def test_crash_mid_turn_marks_the_turn_failed_and_never_reruns_it(make_room, tmp_path):
    room = make_room(tmp_path / "room")
    await room.ensure_started()
    room.prompt_commands.submit(BOB, PromptBody(text="shell deploy"))
    await eventually(lambda: len(room.document.approvals) == 1)
    # A crash: the process dies without stop(); only what reached the disk remains.
    crashed = transcript_copy(room.transcript.path, tmp_path / "crashed")

    again = make_room(crashed)
    await again.ensure_started()
    after_crash = [r["kind"] for r in records(crashed)][-2:]
    assert after_crash == ["request.settled", "prompt.finished"]
    finished = [r for r in records(crashed) if r["kind"] == "prompt.finished"]
    assert finished[-1]["payload"]["state"] == "failed"
    assert "restarted" in finished[-1]["payload"]["reason"]
    assert again.document.approvals.to_py() == {}
    assert again.document.queue.to_py() == []
    await asyncio.sleep(0.05)
    assert again.agent.turns == [], "an interrupted prompt is never silently re-run"


@pytest.mark.parametrize("chunk", [7, 64, 1 << 18])
async def test_torn_last_line_is_reported_skipped_and_nothing_before_it_is_lost(
    make_room, tmp_path, caplog, monkeypatch, chunk
):
    """Whichever chunk of the file a line starts or ends in."""
    monkeypatch.setattr("jupyter_copilot_room.room.persistence.transcript_file.LOAD_CHUNK", chunk)
    room = make_room(tmp_path / "room", agent=None)
    await room.ensure_started()
    ids = [room.prompt_commands.submit(BOB, PromptBody(text=f"say {n}"))[0] for n in range(3)]
    crashed = transcript_copy(room.transcript.path, tmp_path / "crashed")
    with open(crashed / "transcript.jsonl", "ab") as f:
        f.write(b'{"seq": 99, "ts": 1.0, "kind": "prompt.subm')  # the crash came mid-write

    again = make_room(crashed, agent=None)
    await again.ensure_started()
    assert [item["id"] for item in again.document.queue.to_py()] == ids
    assert "torn last line" in caplog.text
    fourth, _ = again.prompt_commands.submit(BOB, PromptBody(text="say after the tear"))
    await again.stop()

    third = make_room(crashed, agent=None)
    await third.ensure_started()
    assert [item["id"] for item in third.document.queue.to_py()] == [*ids, fourth]
    raw = (crashed / "transcript.jsonl").read_bytes()
    assert b'"kind": "prompt.subm\n' in raw, "the torn bytes stay, as evidence"


def said(room, count):
    """`count` chat messages from bob: a transcript of that many records and more."""
    for n in range(count):
        room.prompt_commands.say(BOB, ChatBody(text=f"message {n}"))


def live_records():
    return sum(isinstance(o, Record) for o in gc.get_objects())


async def test_a_full_rebuild_holds_a_chunk_of_the_transcript_at_a_time(
    make_room, tmp_path, monkeypatch
):
    """Holding every record at once made Python's full collections, which walk every object,
    stall the server's loop (1.3 s for 100,000 entries); and while the replay runs those of the
    objects made before it are left out of them, then put back."""
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    said(room, 600)
    await room.stop()
    discard(tmp_path)  # no snapshot: the whole transcript is replayed
    monkeypatch.setattr(
        "jupyter_copilot_room.room.persistence.transcript_file.LOAD_CHUNK", 4096, raising=False
    )
    seen = []
    apply = RoomDocument.apply

    def counting(self, record, payload):
        if record.seq == 500:
            seen.append((live_records(), gc.get_freeze_count() > 0))
        apply(self, record, payload)

    monkeypatch.setattr(RoomDocument, "apply", counting)
    again = make_room(tmp_path, agent=None)
    await again.ensure_started()
    [(held, frozen)] = seen
    assert held < 100, f"{held} records held at once"
    assert frozen and gc.get_freeze_count() == 0
    assert str(again.document.transcript[-1]["body"]) == "message 599"


@pytest.fixture
def tampered(state_dir):
    """A state dir, written before the server starts, whose transcript the room refuses."""
    forged_transcript(state_dir)


async def test_a_refused_room_answers_why_over_rest_and_websocket_alike(tampered, api, jp_ws_fetch):
    r = await api("alice", "GET", "room")
    assert r.code == 503 and r.json["error"] == "transcript_tampered", r
    with pytest.raises(HTTPClientError) as refused:
        await jp_ws_fetch("copilot-room", "ws", headers=people.authorization("alice"))
    assert refused.value.code == 503, refused.value  # not 500 with a traceback in the log


async def test_a_record_refused_midway_refuses_every_start_alike(
    make_room, tmp_path, monkeypatch, caplog
):
    """Records replay as they are read, so the room is half rebuilt when the chain refuses one:
    a second start says the same (the line changed), and never replays into that state."""
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    said(room, 300)
    await room.stop()
    discard(tmp_path)
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(path.read_bytes().replace(b"message 200", b"message 2OO"))
    monkeypatch.setattr(
        "jupyter_copilot_room.room.persistence.transcript_file.LOAD_CHUNK", 4096, raising=False
    )
    again = make_room(tmp_path, agent=None)
    with pytest.raises(Unavailable, match="not written by the room") as first:
        await again.ensure_started()
    with pytest.raises(Unavailable) as second:
        await again.ensure_started()
    assert str(second.value) == str(first.value)
    assert first.value.code == "transcript_tampered"
    assert "cannot be replayed" not in caplog.text


async def test_a_start_cancelled_midway_through_the_replay_refuses_every_later_start(
    make_room, tmp_path, monkeypatch
):
    """The server stopping while a room replays: the room is half rebuilt, so a later start
    refuses (503, saying to restart the server) instead of replaying into it again."""
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    said(room, 300)
    await room.stop()
    discard(tmp_path)  # the whole transcript is replayed, a chunk at a time
    monkeypatch.setattr(
        "jupyter_copilot_room.room.persistence.transcript_file.LOAD_CHUNK", 4096, raising=False
    )
    before = (tmp_path / "transcript.jsonl").read_bytes()
    again = make_room(tmp_path, agent=None)
    starting = asyncio.create_task(again.ensure_started())
    while not len(again.document.transcript):
        await asyncio.sleep(0.001)
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    rebuilt = again.document.transcript.to_py()
    assert str(rebuilt[-1]["body"]) != "message 299", "cancelled midway"
    for _ in range(2):
        with pytest.raises(Unavailable, match="restart the server") as refused:
            await again.ensure_started()
        assert refused.value.code == "start_interrupted"
    assert again.document.transcript.to_py() == rebuilt, "not replayed again"
    await again.stop()
    assert (tmp_path / "transcript.jsonl").read_bytes() == before, "nothing recorded"


async def test_a_room_stopped_while_a_request_starts_it_never_serves_after_the_stop(
    make_room, tmp_path, monkeypatch
):
    """The server stops during a room's long replay (a request began it): when the replay ends
    the start stops too, leaving nothing of the room running, and later starts are refused."""
    room = make_room(tmp_path)
    await room.ensure_started()
    said(room, 300)
    await room.stop()
    discard(tmp_path)
    monkeypatch.setattr(
        "jupyter_copilot_room.room.persistence.transcript_file.LOAD_CHUNK", 4096, raising=False
    )
    again = make_room(tmp_path)
    starting = asyncio.create_task(again.ensure_started())
    while not len(again.document.transcript):
        await asyncio.sleep(0.001)
    await again.stop()
    with pytest.raises(Unavailable, match="The server is stopping") as refused:
        await starting
    assert refused.value.code == "server_stopping"
    assert pending_tasks_of_the_room() == []
    assert open_files(tmp_path) == []
    with pytest.raises(Unavailable, match="The server is stopping"):
        await again.ensure_started()


async def test_the_records_of_one_prompt_are_found_in_the_transcript(make_room, tmp_path):
    """How a room started from a snapshot reads a finished prompt back: every record whose
    payload id is the prompt's, not a prompt whose text names it; a torn line is no record."""
    room = make_room(tmp_path)
    await room.ensure_started()
    first, _ = room.prompt_commands.submit(BOB, PromptBody(text="say one"))
    await eventually(lambda: room.document.meta.get("state") == "idle" and len(replies(room)) == 1)
    room.prompt_commands.submit(
        BOB, PromptBody(text=f"say {first}")
    )  # the id in another prompt's text
    await eventually(lambda: len(replies(room)) == 2)
    await room.stop()
    with open(tmp_path / "transcript.jsonl", "ab") as f:
        f.write(f'{{"seq": 99, "kind": "prompt.withdrawn", "payload": {{"id": "{first}"'.encode())
    path = tmp_path / "transcript.jsonl"
    found = records_with_id(path, 1 << 30, first)
    assert [r.kind for r, _ in found] == ["prompt.submitted", "prompt.started", "prompt.finished"]
    assert records_with_id(path, 1 << 30, "nope") == []
    # Only the first `size` bytes count (what the room has written, not a line being appended).
    submitted_end = path.read_bytes().index(b"\n", path.read_bytes().index(first.encode())) + 1
    assert [r.kind for r, _ in records_with_id(path, submitted_end, first)] == ["prompt.submitted"]
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert records_with_id(empty, 1 << 30, first) == []


async def test_transcript_is_append_only(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    room.prompt_commands.submit(BOB, PromptBody(text="say hello"))
    await eventually(lambda: room.document.meta.get("state") == "idle")
    first = (tmp_path / "transcript.jsonl").read_bytes()
    room.prompt_commands.submit(ALICE, PromptBody(text="say again"))
    await eventually(lambda: len(replies(room)) == 2)
    await room.stop()
    assert (tmp_path / "transcript.jsonl").read_bytes().startswith(first)
    seqs = [r["seq"] for r in records(tmp_path)]
    assert seqs == list(range(1, len(seqs) + 1))


async def test_a_turn_that_ends_while_the_room_stops_leaves_no_task_pending(make_room, tmp_path):
    """The agent ends its turn while the stop cancels the room's tasks: the checkpoint that end
    starts is cancelled with them. It was left running git after the stop, and the test's loop
    closed under it ("Task was destroyed but it is pending!", then "Event loop is closed" when
    git's transport was collected)."""
    room = make_room(tmp_path)
    await room.ensure_started()
    room.prompt_commands.submit(BOB, PromptBody(text="wait"))
    await eventually(lambda: room.records.streams.streaming, what="the reply to stream")
    room.agent.release.set()  # the turn ends at the stop's first wait
    await room.stop()
    ended = [r["payload"]["state"] for r in records(tmp_path) if r["kind"] == "prompt.finished"]
    assert ended == ["completed"], "the agent ended it, not the stop"
    assert pending_tasks_of_the_room() == []


async def test_agent_that_ignores_abort_degrades_the_room_until_restarted(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    await eventually(lambda: room.document.meta.get("state") == "idle")
    room.agent.ignore_abort = True
    room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    room.prompt_commands.submit(BOB, PromptBody(text="say after the restart"))
    await eventually(lambda: room.document.meta.get("state") == "running")
    await room.prompt_commands.abort(ALICE)
    assert room.document.queue.to_py()[0]["state"] in ("submitted", "working")
    await eventually(lambda: len(room.agent.turns) == 2, what="the next turn after the restart")
    assert room.agent.restarts == 1, "no second turn may overlap a runaway one"
    finished = [r["payload"] for r in records(tmp_path) if r["kind"] == "prompt.finished"]
    assert finished[0]["state"] == "canceled" and "did not stop" in finished[0]["reason"]


async def test_overdue_turn_is_aborted_and_failed(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    room.people_commands.patch_settings(ALICE, SettingsPatch(turn_timeout=0.2))
    room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    room.prompt_commands.submit(BOB, PromptBody(text="say next"))
    await eventually(lambda: len(room.agent.turns) == 2, what="the queue to move on")
    finished = [r["payload"] for r in records(tmp_path) if r["kind"] == "prompt.finished"]
    assert finished[0]["state"] == "failed" and "longer than" in finished[0]["reason"]


@pytest.mark.parametrize("text", ["fail"])
async def test_failed_turn_is_recorded_and_the_queue_goes_on(make_room, tmp_path, text):
    room = make_room(tmp_path)
    await room.ensure_started()
    room.prompt_commands.submit(BOB, PromptBody(text=text))
    room.prompt_commands.submit(ALICE, PromptBody(text="say next"))
    await eventually(lambda: len(room.agent.turns) == 2)
    finished = [r["payload"] for r in records(tmp_path) if r["kind"] == "prompt.finished"]
    assert finished[0]["state"] == "failed" and finished[0]["reason"] == "scripted failure"


async def test_a_record_that_contradicts_the_others_is_skipped_not_fatal(
    make_room, tmp_path, caplog
):
    room = make_room(tmp_path / "room", agent=None)
    await room.ensure_started()
    kept, _ = room.prompt_commands.submit(BOB, PromptBody(text="say kept"))
    # A record the room itself wrote (its link in the chain holds) that contradicts the others:
    # finishing an unknown prompt. Then the crash.
    room.transcript.append("prompt.finished", None, PromptFinished(id="nope", state="completed"), 2)

    again = make_room(transcript_copy(room.transcript.path, tmp_path / "crashed"), agent=None)
    await again.ensure_started()
    assert [item["id"] for item in again.document.queue.to_py()] == [kept]
    assert "(prompt.finished) cannot be replayed" in caplog.text


async def test_hosts_decisions_and_settings_come_back_from_the_transcript_alone(
    make_room, tmp_path
):
    """The transcript is their source: forged or lost side files change nothing."""
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    for name in ("bob", "dave", "erin"):
        room.people.check_in(Identity(name, name.title(), verified=True))
    room.people_commands.admit(ALICE, "dave", "member")
    room.people_commands.set_role(ALICE, "bob", "viewer")
    room.people_commands.remove(ALICE, "erin")
    room.people_commands.patch_settings(ALICE, SettingsPatch(permission_timeout=42))
    await room.stop()
    forged = {"decisions": {"bob": "member", "erin": "member"}, "claimed_hosts": ["bob"]}
    (tmp_path / "admissions.json").write_text(json.dumps(forged))
    (tmp_path / "settings.json").write_text(json.dumps({"permission_timeout": 999}))

    again = make_room(tmp_path, agent=None)
    await again.ensure_started()
    roles = {name: again.people.role_of(name).value for name in ("bob", "dave", "erin")}
    assert roles == {"bob": "viewer", "dave": "member", "erin": "refused"}
    assert again.settings.current.permission_timeout == 42
    assert json.loads((tmp_path / "admissions.json").read_text())["claimed_hosts"] == []


def open_files(folder):
    """The files under `folder` this process holds open."""
    paths = (os.path.realpath(fd) for fd in glob.glob("/proc/self/fd/*"))
    return [p for p in paths if p.startswith(f"{os.path.realpath(folder)}/")]


async def test_a_transcript_changed_behind_the_rooms_back_is_refused(make_room, tmp_path):
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    room.prompt_commands.submit(BOB, PromptBody(text="say one"))
    await room.stop()
    path = tmp_path / "transcript.jsonl"
    forged = (
        '{"seq": 9, "ts": 2.0, "kind": "host.claimed", "actor": "bob",'
        ' "payload": {"username": "bob"}}'
    )
    path.write_text(path.read_text() + forged + "\n")

    again = make_room(tmp_path, agent=None)
    with pytest.raises(Unavailable, match="not written by the room"):
        await again.ensure_started()
    assert again.people.role_of("bob").value == "member"
    await again.stop()  # the server's stop: the refused room's files are closed too
    assert open_files(tmp_path) == []
