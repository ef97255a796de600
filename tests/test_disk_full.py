"""A bad day: the disk holding the room's state fills up. Commands are refused with 507 and a
message saying what to do, nothing acknowledged is lost, no torn line stays in the transcript,
and the room carries on by itself once there is space again.

The room's state lives on a small tmpfs the test mounts (root with CAP_SYS_ADMIN, as on CI);
where mounting is not permitted the tests are skipped, saying so."""

import contextlib
import errno
import json
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from jupyter_copilot_room.errors import InsufficientStorage
from jupyter_copilot_room.events import MessageDelta, ToolStarted
from jupyter_copilot_room.room.persistence.snapshot import discard
from jupyter_copilot_room.room.startup import INTERRUPTED
from jupyter_copilot_room.room.turns.running_turn import DISK_FULL

from .harness.helpers import entries, eventually, finished, transcript_copy
from .harness.people import authorization
from .harness.server import request


def mount_tmpfs(path: Path, size: str) -> None:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(
            f"Cannot mount a tmpfs for a small disk ({done.stderr.strip() or done.returncode}): "
            "these tests need root with CAP_SYS_ADMIN, as CI has."
        )


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB filesystem, unmounted after the test (after its servers stopped)."""
    mount = tmp_path / "small-disk"
    mount_tmpfs(mount, "1m")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture
def server(servers):
    """A real server process whose state directory is a small disk of its own."""
    server = servers()
    mount_tmpfs(server.state_dir, "1m")
    yield server
    server.kill()
    subprocess.run(["umount", "-l", str(server.state_dir)], check=False)


@pytest.fixture
def state_dir(small_disk):
    """The in-process room's state directory, on the small disk."""
    return small_disk / "room-state"


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte with one file; deleting it frees the space."""
    filler = disk / "filler"
    chunk = b"\0" * 65536
    with open(filler, "wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(chunk)
    with open(filler, "ab", buffering=0) as f:  # the last bytes a whole chunk did not fit in
        try:
            while True:
                f.write(b"\0")
        except OSError as err:
            assert err.errno == errno.ENOSPC
    return filler


def records(transcript: Path) -> list[dict]:
    """Every line of the transcript as JSON: a torn line anywhere fails here."""
    raw = transcript.read_bytes()
    assert raw.endswith(b"\n"), "the transcript ends with a whole line"
    return [json.loads(line) for line in raw.split(b"\n")[:-1]]


def test_a_full_disk_refuses_commands_with_507_and_the_room_recovers_by_itself(server):
    state = server.state_dir
    server.start()
    transcript = state / "transcript.jsonl"
    assert server.api("bob", "GET", "room")[0] == 200  # bob has been seen
    accepted = server.api("bob", "POST", "prompts", {"text": "say before the disk filled"})
    assert accepted[0] == 202
    server.wait_until(lambda: accepted[1]["id"] in finished_in(transcript), 10, "the turn")

    filler = fill(state)
    before = transcript.read_bytes()
    # Longer than what is left of the transcript's last page: the write is cut short by ENOSPC.
    code, body = server.api("bob", "POST", "prompts", {"text": "say " + "x" * 9000})
    assert code == 507, body
    assert body["error"] == "insufficient_storage"
    assert "disk" in body["message"] and "is full" in body["message"]
    assert "Free some space" in body["message"] and str(state) in body["message"]
    assert transcript.read_bytes() == before, "not a byte of the refused record stays"
    code, room = server.api("bob", "GET", "room")
    assert (code, room["queue"]) == (200, []), "nothing reached the document"
    assert metric(server, "copilot_room_storage_full") == 1
    assert metric(server, "copilot_room_storage_refusals_total") >= 1

    filler.unlink()
    code, body = server.api("bob", "POST", "prompts", {"text": "say after the space returned"})
    assert code == 202, body
    server.wait_until(lambda: body["id"] in finished_in(transcript), 10, "the next turn")
    assert finished_in(transcript)[body["id"]]["state"] == "completed"
    assert metric(server, "copilot_room_storage_full") == 0

    # A restart replays every record: none torn, none skipped, the sequence unbroken.
    server.stop()
    server.start()
    lines = records(transcript)
    assert [r["seq"] for r in lines] == list(range(1, len(lines) + 1))
    assert "skipping" not in server.log.read_text()
    transcript_after = server.api("alice", "GET", "room")[1]
    assert transcript_after["agent"]["state"] == "idle"
    code, text = request(
        f"{server.url}/copilot-room/api/transcript", "GET", headers=authorization("alice")
    )
    assert code == 200 and "say after the space returned" in str(text)


def finished_in(transcript: Path) -> dict:
    return {
        r["payload"]["id"]: r["payload"]
        for r in records(transcript)
        if r["kind"] == "prompt.finished"
    }


def metric(server, name: str) -> float:
    code, text = request(f"{server.url}/metrics", "GET", headers=authorization("alice"))
    assert code == 200
    [line] = [line for line in str(text).splitlines() if line.startswith(f"{name} ")]
    return float(line.split()[1])


async def test_what_the_agent_reports_while_the_disk_is_full_fails_its_turn_once_space_returns(
    api, room, agent, small_disk
):
    r = await api("bob", "POST", "prompts", body={"text": "wait"})
    # The turn's checkpoint reads the worktree before the agent gets the prompt.
    await eventually(lambda: len(agent.turns) == 1, what="the agent to have the turn")
    # A long reply streams (deltas reach only the document; the turn's end records it): larger
    # than what a full disk leaves in the transcript's last page, so that end must wait.
    await agent.host.publish(MessageDelta(entry_id=f"msg-{r.json['id']}", text="z" * 9000))
    filler = fill(small_disk)

    # The agent reports a tool call the room cannot record (larger than what is left of the
    # transcript's last page): the turn is stopped, and the document never shows what the
    # transcript does not hold.
    command = "echo " + "x" * 9000
    await agent.host.publish(ToolStarted(call_id="t1", tool="bash", summary=command))
    assert entries(room, "tool") == []
    await eventually(lambda: room.document.meta.get("state") == "aborting", what="the stop")
    r = await api("bob", "POST", "prompts", body={"text": "say " + "y" * 9000})
    assert (r.code, r.json["error"]) == (507, "insufficient_storage")
    assert room.turns.queue.in_flight is not None, "the turn's end waits to be recorded"

    filler.unlink()  # the room notices by itself (no command needed) and records the end
    await eventually(lambda: room.turns.queue.in_flight is None, timeout=5, what="the turn's end")
    [ended] = finished(room).values()
    assert (ended["state"], ended["reason"]) == ("failed", DISK_FULL)
    [prompt] = entries(room, "prompt")
    assert prompt["state"] == "failed"
    [reply] = entries(room, "assistant")
    assert (reply["state"], len(reply["body"])) == ("partial", len("working") + 9000)
    assert agent.restarts == 0, "the agent stopped when asked: no restart"
    assert records(room.transcript.path)
    r = await api("bob", "POST", "prompts", body={"text": "say next"})
    assert r.code == 202
    await eventually(lambda: len(finished(room)) == 2, what="the next prompt to run")


async def test_an_abort_while_the_disk_is_full_is_refused_with_507_and_works_once_space_returns(
    api, room, agent, small_disk
):
    prompt_id = (await api("bob", "POST", "prompts", body={"text": "wait"})).json["id"]
    await eventually(lambda: len(agent.turns) == 1, what="the agent to have the turn")
    # Less than any record needs:
    await leave_on_the_last_page(room.transcript.path, 100, chat_through(api))
    filler = fill(small_disk)
    before = room.transcript.path.read_bytes()

    async def refused():
        r = await api("alice", "POST", "abort")
        assert (r.code, r.json["error"]) == (507, "insufficient_storage"), r
        assert "is full" in r.json["message"] and "Free some space" in r.json["message"]
        assert room.transcript.path.read_bytes() == before, "nothing recorded"

    await refused()
    assert room.document.meta.get("state") == "running", "the turn goes on, as it was"
    # Then the agent reports what the room cannot record: the room stops the turn, whose end
    # waits for space. An abort now is still refused for the disk (not "already stopping").
    await agent.host.publish(ToolStarted(call_id="t1", tool="bash", summary="echo " + "x" * 9000))
    await eventually(lambda: room.document.meta.get("state") == "aborting", what="the stop")
    await refused()

    filler.unlink()
    await eventually(lambda: prompt_id in finished(room), timeout=5, what="the turn's end")
    assert finished(room)[prompt_id] == {"id": prompt_id, "state": "failed", "reason": DISK_FULL}
    assert '"kind":"abort"' not in room.transcript.read_text(), "no refused abort was recorded"
    # Once space is back an abort works again.
    next_id = (await api("bob", "POST", "prompts", body={"text": "wait"})).json["id"]
    await eventually(lambda: room.document.meta.get("state") == "running", what="the next turn")
    r = await api("alice", "POST", "abort")
    assert (r.code, r.json) == (200, {"aborted": True}), r
    await eventually(lambda: next_id in finished(room), what="the aborted turn's end")
    assert finished(room)[next_id]["state"] == "canceled"
    assert agent.restarts == 0, "the agent stopped when asked"
    assert records(room.transcript.path)


async def test_an_abort_after_the_turn_ended_unrecorded_is_refused_and_the_turn_ends_once(
    api, room, agent, small_disk
):
    """The agent finished the turn while the disk was full: its end waits for space, the turn
    still shows as running. An abort then, whose record would fit on the transcript's last page,
    is refused like every other command: the turn already ended, and it is recorded once, as it
    ended (completed), not as "completed" after an "aborted" line."""
    prompt_id = (await api("bob", "POST", "prompts", body={"text": "wait"})).json["id"]
    await eventually(lambda: len(agent.turns) == 1, what="the agent to have the turn")
    # The reply (recorded at the turn's end) is larger than the page's room; an abort is not.
    await agent.host.publish(MessageDelta(entry_id=f"msg-{prompt_id}", text="z" * 9000))
    await leave_on_the_last_page(room.transcript.path, 400, chat_through(api), least=250)
    filler = fill(small_disk)
    before = room.transcript.path.read_bytes()

    agent.release.set()  # the agent ends the turn; the room cannot record that
    await eventually(lambda: room.records.storage.full, what="the turn's end to be refused")
    assert room.turns.queue.in_flight is not None, "the turn's end waits to be recorded"
    r = await api("alice", "POST", "abort")
    assert (r.code, r.json["error"]) == (507, "insufficient_storage"), r
    assert room.transcript.path.read_bytes() == before, "nothing recorded"

    filler.unlink()
    await eventually(lambda: prompt_id in finished(room), timeout=5, what="the turn's end")
    ends = [r for r in records(room.transcript.path) if r["kind"] == "prompt.finished"]
    assert [e["payload"] for e in ends] == [{"id": prompt_id, "state": "completed"}]
    assert '"kind":"abort"' not in room.transcript.read_text(), "no refused abort was recorded"
    [prompt] = entries(room, "prompt")
    assert prompt["state"] == "completed"


async def test_a_write_that_finds_space_again_is_shown_before_what_the_room_then_records(
    api, room, agent, small_disk
):
    """A successful write is one way the room learns that space returned: the turn's end it
    held back is recorded then, after that write, and the document shows the two in the
    transcript's order, as a replay of it would."""
    room.records.storage.interval = 60  # only a write notices the space in this test
    assert (await api("alice", "GET", "room")).code == 200  # alice has been seen
    prompt_id = (await api("bob", "POST", "prompts", body={"text": "wait"})).json["id"]
    await eventually(lambda: len(agent.turns) == 1, what="the agent to have the turn")
    await agent.host.publish(MessageDelta(entry_id=f"msg-{prompt_id}", text="z" * 9000))
    filler = fill(small_disk)
    await agent.host.publish(ToolStarted(call_id="t1", tool="bash", summary="x" * 9000))
    await eventually(lambda: room.document.meta.get("state") == "aborting", what="the stop")
    # Refused twice: the tool call, then the turn's end (the reply that streamed).
    await eventually(
        lambda: room.records.storage.refusals == 2, what="the turn's end to be refused"
    )

    filler.unlink()
    assert (await api("alice", "POST", "messages", body={"text": "space?"})).code == 201
    assert prompt_id in finished(room), "the chat's write let the turn's end be recorded"
    seqs = [e["seq"] for e in room.document.transcript.to_py()]
    assert seqs == sorted(seqs), [(e["kind"], e["seq"]) for e in room.document.transcript.to_py()]


@pytest.mark.parametrize(
    ("script", "least", "most", "settles"),
    [  # bytes left on the transcript's last page, what the start records to settle the turn
        ("wait", 0, 100, ["assistant.message", "prompt.finished"]),  # room for no record
        # room for the request's (about 235 B), not the turn's end
        ("shell deploy", 250, 340, ["request.settled", "prompt.finished"]),
    ],
)
async def test_a_start_the_full_disk_refuses_is_tried_again_without_a_second_replay(
    api, room, agent, make_room, small_disk, script, least, most, settles
):
    """A crash mid-turn, then a start on a full disk: the replay writes nothing, but the end of
    the turn the crash cut cannot be recorded (507). The next start tries again without
    replaying the transcript into the rebuilt room a second time, nor settling twice what the
    first settled; once there is space it records the turn's end, and the room is what a replay
    of its transcript rebuilds."""
    assert (await api("alice", "GET", "room")).code == 200  # alice has been seen
    requests = settles.count("request.settled")
    held = (await api("bob", "POST", "prompts", body={"text": script})).json["id"]
    await eventually(
        lambda: len(agent.turns) == 1 and len(room.document.approvals) == requests,
        what="the agent to have the turn",
    )
    queued = (await api("bob", "POST", "prompts", body={"text": "say later"})).json["id"]
    await leave_on_the_last_page(room.transcript.path, most, chat_through(api), least=least)
    crashed = transcript_copy(room.transcript.path, small_disk / "crashed")  # at a kill -9
    transcript = crashed / "transcript.jsonl"
    filler = fill(small_disk)
    crash = len(records(transcript))

    again = make_room(crashed, agent=None)
    for _ in range(2):
        with pytest.raises(InsufficientStorage):
            await again.ensure_started()
        seqs = [e["seq"] for e in again.document.transcript.to_py()]
        assert seqs == sorted(set(seqs)), "each entry once"
        assert [p.id for p in again.turns.queue.open()] == [held, queued]
        settled = [r["kind"] for r in records(transcript)[crash:]]
        assert settled == ["request.settled"] * requests, "what fit, once"

    filler.unlink()
    await again.ensure_started()
    assert [r["kind"] for r in records(transcript)[crash:]] == settles
    ends = [r["payload"] for r in records(transcript) if r["kind"] == "prompt.finished"]
    assert ends == [{"id": held, "state": "failed", "reason": INTERRUPTED}]
    assert [p.id for p in again.turns.queue.open()] == [queued]
    started = again.document.transcript.to_py(), again.document.queue.to_py()
    await again.stop()
    discard(crashed)  # the whole transcript is replayed
    replayed = make_room(crashed, agent=None)
    await replayed.ensure_started()
    assert (replayed.document.transcript.to_py(), replayed.document.queue.to_py()) == started


def chat_through(api) -> Callable[[str], Awaitable[None]]:
    """alice's chat message, said through the room's REST API."""

    async def say(text: str) -> None:
        assert (await api("alice", "POST", "messages", body={"text": text})).code == 201

    return say


async def leave_on_the_last_page(
    transcript: Path, most: int, chat: Callable[[str], Awaitable[None]], least: int = 0
) -> None:
    """Chat (`await chat(text)`, recorded in `transcript`) until at least `least` and fewer than
    `most` bytes are left on the transcript's last 4 KiB page: a full tmpfs still takes a record
    that fits there."""

    async def say(length: int) -> int:
        size = transcript.stat().st_size
        await chat("x" * length)
        return transcript.stat().st_size - size - length  # the record's other bytes

    overhead = await say(1)  # the first call may record more than its message
    aim = (least + most) // 2  # seq and ts vary by a few bytes
    for _ in range(4):
        left = -transcript.stat().st_size % 4096
        if least <= left < most:
            return
        overhead = await say(max(1, (left - overhead - aim) % 4096))  # or onto the next page
    raise AssertionError("could not fill the transcript's last page")


def test_a_cache_file_that_cannot_be_written_fails_no_recorded_command(servers):
    """settings.json and admissions.json only cache what the transcript holds: when they cannot
    be written (here: a directory stands in their place), the recorded change still stands,
    answered 200, and a restart rebuilds it from the transcript."""
    server = servers()
    server.start()
    assert server.api("dave", "GET", "room")[0] == 200  # dave waits at the door
    for cache in ("settings.json", "admissions.json"):
        (server.state_dir / cache).unlink(missing_ok=True)
        (server.state_dir / cache).mkdir()

    code, body = server.api("alice", "PATCH", "settings", {"max_waiting_prompts": 7})
    assert code == 200, body
    code, body = server.api("alice", "POST", "admissions/dave", {"decision": "member"})
    assert code == 200, body
    assert "Could not write" in server.log.read_text()

    server.stop()
    server.start()
    assert server.api("alice", "GET", "settings")[1]["max_waiting_prompts"] == 7
    assert server.api("dave", "GET", "room")[1]["me"]["role"] == "member"
