"""History that does not grow the live room (issue 12): the document keeps a window of entries,
older ones are archived and paged, and a restart loads a snapshot and replays only the tail."""

import asyncio
import contextlib
import functools
import json
import logging
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pycrdt import Doc

from jupyter_copilot_room.access.admissions import AdmissionBook
from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.errors import Unavailable
from jupyter_copilot_room.events import (
    AssistantMessage,
    AssistantStarted,
    PromptFinished,
    PromptRef,
    PromptSubmitted,
    Record,
    SystemNote,
    ToolCompleted,
    ToolStarted,
)
from jupyter_copilot_room.request_bodies import PromptBody
from jupyter_copilot_room.room.live import document_build
from jupyter_copilot_room.room.live.document import RoomDocument
from jupyter_copilot_room.settings import RoomSettings, SettingsPatch, SettingsStore

from .harness import people
from .harness.helpers import eventually, ready
from .harness.pytest_plugin import Response

ALICE = Identity("alice", "Alice", verified=True)
BOB = Identity("bob", "Bob", verified=True)


# -- the window, on the document alone --------------------------------------------------------


class Records:
    """Records as the room writes them, numbered."""

    def __init__(self):
        self.seq = 0

    def __call__(self, kind, payload, actor=None):
        self.seq += 1
        data = payload.model_dump(mode="json", exclude_none=True)
        return Record(
            seq=self.seq, ts=float(self.seq), kind=kind, actor=actor, payload=data
        ), payload


def turn(make, n, tools):
    """A finished turn: its prompt, `tools` tool rows and a reply."""
    prompt = f"p{n}"
    yield make("prompt.submitted", PromptSubmitted(id=prompt, text=f"prompt {n}"), "bob")
    yield make("prompt.started", PromptRef(id=prompt), "bob")
    for t in range(tools):
        call = f"c{n}-{t}"
        yield make(
            "tool.started", ToolStarted(call_id=call, tool="bash", summary="ls", prompt_id=prompt)
        )
        yield make("tool.completed", ToolCompleted(call_id=call, success=True, result="ok"))
    yield make("assistant.message", AssistantMessage(entry_id=f"a{n}", prompt_id=prompt, text="ok"))
    yield make("prompt.finished", PromptFinished(id=prompt, state="completed"))


def windowed(window):
    archived, compactions = [], []
    doc = RoomDocument(window, on_evict=archived.append, on_compacted=compactions.append)
    return doc, archived, compactions


def test_the_window_keeps_the_newest_entries_and_never_those_of_the_running_turn():
    doc, archived, compactions = windowed(10)
    make = Records()
    for n in range(3):
        for record in turn(make, n, tools=2):
            doc.apply(*record)
    # 3 turns of 4 entries: the 2 oldest are archived, in order, in their final form.
    entries = doc.transcript.to_py()
    assert len(entries) == 10
    assert [e["id"] for e in archived] == ["p0", "c0-0"]
    assert archived[0]["state"] == "completed" and archived[1]["state"] == "success"
    assert [e["seq"] for e in archived + entries] == sorted(e["seq"] for e in archived + entries)
    # A running turn longer than the window stays whole: the document grows until it ends.
    records = list(turn(make, 3, tools=12))
    for record in records[:-1]:
        doc.apply(*record)
    ids = [e["id"] for e in doc.transcript.to_py()]
    assert ids[0] == "p3" and len(ids) == 14  # older entries gone, the running turn's all kept
    doc.apply(*records[-1])  # the turn ends: back to the window, oldest first
    assert doc.transcript.to_py()[0]["id"] == "c3-3"
    assert len(doc.transcript.to_py()) == 10
    # Every entry was evicted at most once; a tool completion of an evicted row changes nothing.
    assert len({e["id"] for e in archived}) == len(archived)
    doc.apply(*make("tool.completed", ToolCompleted(call_id="c0-0", success=False, result="x")))
    assert compactions, "10 evictions rebuild the document"


def test_an_attempt_the_model_call_made_again_leaves_the_window():
    """Recorded (`retried`), not shown: the turn shows the next attempt's reply alone, and the
    window's order and indexes hold (a later eviction takes the right entries)."""
    doc, archived, _ = windowed(10)
    make = Records()
    records = [
        make("prompt.submitted", PromptSubmitted(id="p", text="hi"), "bob"),
        make("prompt.started", PromptRef(id="p"), "bob"),
        make("assistant.started", AssistantStarted(entry_id="t1", prompt_id="p")),
        make(
            "assistant.message",
            AssistantMessage(entry_id="t1", prompt_id="p", text="A re", partial=True, retried=True),
        ),
        make("assistant.started", AssistantStarted(entry_id="t2", prompt_id="p")),
        make("assistant.message", AssistantMessage(entry_id="t2", prompt_id="p", text="A reply.")),
        make("prompt.finished", PromptFinished(id="p", state="completed")),
    ]
    for record in records:
        doc.apply(*record)
    shown = [(e["id"], e["body"]) for e in doc.transcript.to_py()]
    assert shown == [("p", "hi"), ("t2", "A reply.")]
    for n in range(3):
        for record in turn(make, n, tools=1):
            doc.apply(*record)
    assert [e["id"] for e in archived] == ["p"]
    assert [e["id"] for e in doc.transcript.to_py()][:2] == ["t2", "p0"]


def retried_turn(make, n, attempts):
    """A finished turn whose reply came at the last of `attempts + 1` model calls."""
    prompt = f"p{n}"
    yield make("prompt.submitted", PromptSubmitted(id=prompt, text=f"prompt {n}"), "bob")
    yield make("prompt.started", PromptRef(id=prompt), "bob")
    for a in range(attempts + 1):
        last = a == attempts
        entry = f"a{n}" if last else f"a{n}-{a}"
        yield make("assistant.started", AssistantStarted(entry_id=entry, prompt_id=prompt))
        message = AssistantMessage(
            entry_id=entry, prompt_id=prompt, text="A reply", partial=not last, retried=not last
        )
        yield make("assistant.message", message)
    yield make("prompt.finished", PromptFinished(id=prompt, state="completed"))


def test_attempts_dropped_from_the_window_count_toward_its_compaction(monkeypatch):
    """A dropped attempt leaves a tombstone in the transcript Array as an eviction does: after
    `window` of them the document is rebuilt, however few entries it shows. Measured against a
    document of the same turns without retries (the same entries): the bytes the retried turns
    add stay within what `window` tombstones take, turn after turn.

    Every document gets the same client id: a random one is encoded in 1 to 8 bytes and each
    rebuild draws a new one, which moved the sizes compared here by more than the bound's slack."""
    monkeypatch.setattr(document_build, "Doc", functools.partial(Doc, client_id=1 << 20))
    doc, archived, compactions = windowed(20)
    plain = RoomDocument(20)
    make, make_plain = Records(), Records()

    def extra() -> int:
        return len(doc.ydoc.get_update()) - len(plain.ydoc.get_update())

    excess = []
    for n in range(40):  # 5 attempts dropped a turn, 200 in all; 2 entries shown a turn
        for record in retried_turn(make, n, attempts=5):
            doc.apply(*record)
        for record in retried_turn(make_plain, n, attempts=0):
            plain.apply(*record)
        excess.append(extra())
        if n == 1:  # 4 entries shown, 10 attempts dropped: nothing evicted or rebuilt yet
            assert compactions == [] and archived == []
            tombstone = excess[-1] / 10  # what one dropped attempt's tombstone takes
        if n == 3:
            assert len(compactions) == 1, "20 dropped attempts rebuild the document"

    def shown(d):
        return [(e["id"], e["body"], e.get("state")) for e in d.transcript.to_py()]

    assert shown(doc) == shown(plain)
    assert max(excess) <= (20 + 5) * tombstone * 1.5, (max(excess), tombstone)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.booleans()),
        min_size=1,
        max_size=12,
    ),
    st.integers(10, 14),
)
def test_archive_plus_window_is_the_whole_transcript_in_final_form(turns, window):
    """Whatever the turns, the archive and the window together hold every entry once, in seq
    order, each as a document without a window shows it at the end; compaction changes nothing
    a client sees."""
    doc, archived, _ = windowed(window)
    whole = RoomDocument(10**9)
    make = Records()
    for n, (tools, note) in enumerate(turns):
        records = list(turn(make, n, tools))
        if note:
            records.insert(2, make("system", SystemNote(text=f"note {n}")))
        for record in records:
            doc.apply(*record)
            whole.apply(*record)
            assert len(doc.transcript) <= max(window, 2 * tools + 4)
    assert archived + doc.transcript.to_py() == whole.transcript.to_py()
    assert doc.snapshot("queue", "approvals") == whole.snapshot("queue", "approvals")


async def test_a_compaction_while_serving_lets_the_loop_run_and_misses_nothing():
    """A busy room's compaction is built aside: the event loop goes on meanwhile (records,
    streamed deltas), and the document served after it holds all of that; with archive, the
    whole transcript as a document without a window shows it."""
    doc, archived, compactions = windowed(10)
    whole = RoomDocument(10**9)
    make = Records()
    building = 0  # turns of the loop taken while a compaction was due and not yet served

    def both(record):
        nonlocal building
        doc.apply(*record)
        whole.apply(*record)
        building += doc.tombstones >= doc.window

    for n in range(12):
        records = list(turn(make, n, tools=n % 3))
        for record in records[:-2]:
            both(record)
            await asyncio.sleep(0)
        # A reply streams while the compaction may be building.
        both(make("assistant.started", AssistantStarted(entry_id=f"s{n}", prompt_id=f"p{n}")))
        for delta in ("one ", "two ", "three"):
            doc.stream(f"s{n}", delta)
            whole.stream(f"s{n}", delta)
            await asyncio.sleep(0)
        both(
            make(
                "assistant.message",
                AssistantMessage(entry_id=f"s{n}", prompt_id=f"p{n}", text="one two three"),
            )
        )
        for record in records[-2:]:
            both(record)
            await asyncio.sleep(0)
    await eventually(lambda: doc.tombstones < doc.window, what="the compaction")
    assert len(compactions) >= 2
    assert building > 0, "the loop went on while the compacted document was built"
    assert compactions[-1] is doc.ydoc
    assert archived + doc.transcript.to_py() == whole.transcript.to_py()
    assert doc.snapshot("queue", "approvals", "meta") == whole.snapshot(
        "queue", "approvals", "meta"
    )
    # The served document goes on from there: a new turn lands in it.
    for record in turn(make, 99, tools=0):
        both(record)
    assert doc.transcript.to_py()[-1] == whole.transcript.to_py()[-1]


# -- the room: archive, routes, snapshots -------------------------------------------------------


async def run_turns(room, count, who=BOB):
    for start in range(0, count, 4):  # a person may have 5 prompts waiting
        for n in range(start, min(count, start + 4)):
            room.prompt_commands.submit(who, PromptBody(text=f"say reply {n}"))
        await eventually(lambda: not list(room.turns.queue.open()), timeout=20, what="the turns")


def state(room):
    """What a restart must bring back, as plain data."""
    doc = room.document.snapshot()
    for key in ("agent", "agent_detail", "agent_error", "state"):
        doc["meta"].pop(key, None)
    return {
        "document": doc,
        "queue": [(p.id, p.author, p.state.value) for p in room.turns.queue.open()],
        "people": {
            name: room.people.role_of(name).value for name in ("alice", "bob", "dave", "erin")
        },
        "known": sorted(room.people.known),
        "settings": room.settings.current.model_dump(),
        "live": [r.seq for r in room.records.live.records()],
        "history": (room.state_dir / "history.jsonl").read_bytes(),
    }


@pytest.fixture
def started(make_room):
    """`await started(state_dir, window=10)`: a restarted room; its clock stands still, so two
    restarts record the same."""

    async def start(state_dir, window=10):
        room = make_room(state_dir, agent=None, clock=lambda: 2e9, document_window=window)
        await room.ensure_started()
        return room

    return start


@pytest.fixture
def busy_room(make_room):
    """`await busy_room(state_dir)`: a room with decisions, settings, finished turns and prompts
    still queued at its stop."""

    async def make(state_dir):
        room = make_room(state_dir, document_window=10)
        await room.ensure_started()
        for name in ("dave", "erin"):
            room.people.check_in(Identity(name, name.title(), verified=True))
        room.people_commands.admit(ALICE, "dave", "member")
        room.people_commands.remove(ALICE, "erin")
        room.people_commands.patch_settings(ALICE, SettingsPatch(permission_timeout=42))
        await run_turns(room, 12)
        room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
        # The turn's checkpoint reads the worktree before the agent gets the prompt: wait for its
        # reply.
        await eventually(lambda: room.records.streams.streaming, what="the reply to stream")
        room.prompt_commands.submit(BOB, PromptBody(text="say later"))
        return room

    return make


async def test_restart_from_a_snapshot_equals_a_full_rebuild(busy_room, started, tmp_path):
    room = await busy_room(tmp_path / "a")
    await room.stop()
    assert (tmp_path / "a" / "snapshot.json").exists()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    for name in ("snapshot.json", "snapshot.ydoc"):
        (tmp_path / "b" / name).unlink()
    fast, full = await started(tmp_path / "a"), await started(tmp_path / "b")
    assert len(fast.document.transcript) <= 12
    assert state(fast) == state(full)
    assert [item[1:] for item in state(fast)["queue"]] == [("bob", "submitted")]
    assert (
        fast.people.role_of("dave").value == "member"
        and fast.people.role_of("erin").value == "refused"
    )


def copy_as_at_a_kill(source, target):
    """Copy a live room folder: a file that vanishes mid-copy (git's index.lock) was never there."""

    def copy_if_still_there(src, dst):
        with contextlib.suppress(FileNotFoundError):
            shutil.copy2(src, dst)

    shutil.copytree(source, target, copy_function=copy_if_still_there)


async def test_a_snapshot_older_than_the_transcript_replays_the_tail(busy_room, started, tmp_path):
    """kill -9: the last snapshot was written before the last records."""
    room = await busy_room(tmp_path / "a")
    assert (
        not await room.records.snapshots.write()
    )  # not while a reply streams: deltas are no records
    room.agent.release.set()
    await eventually(lambda: not list(room.turns.queue.open()))
    assert await room.records.snapshots.write()
    snapshot_seq = json.loads((tmp_path / "a" / "snapshot.json").read_text())["position"]["seq"]
    await run_turns(room, 5)
    prompt_id, _ = room.prompt_commands.submit(
        ALICE, PromptBody(text="wait")
    )  # killed during a turn
    await eventually(lambda: room.records.streams.streaming, what="the reply to stream")
    await room.checkpoints.started(prompt_id)
    copy_as_at_a_kill(tmp_path / "a", tmp_path / "crashed")
    await room.stop()
    shutil.copytree(tmp_path / "crashed", tmp_path / "full")
    for name in ("snapshot.json", "snapshot.ydoc"):
        (tmp_path / "full" / name).unlink()
    fast, full = await started(tmp_path / "crashed"), await started(tmp_path / "full")
    assert fast.transcript.position().seq > snapshot_seq + 10
    assert state(fast) == state(full)


@pytest.mark.parametrize("spoil", ["window", "ydoc", "archive"])
async def test_a_snapshot_that_does_not_match_is_discarded_and_rebuilt(
    busy_room, started, tmp_path, caplog, spoil
):
    room = await busy_room(tmp_path / "a")
    await room.stop()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    (tmp_path / "b" / "snapshot.json").unlink()
    window = 10
    if spoil == "window":
        window = 11
    elif spoil == "ydoc":
        path = tmp_path / "a" / "snapshot.ydoc"
        path.write_bytes(path.read_bytes()[:-7])
    else:
        (tmp_path / "a" / "history.jsonl").write_bytes(b"")
    with caplog.at_level(logging.WARNING):
        again = await started(tmp_path / "a", window=window)
    full = await started(tmp_path / "b", window=window)
    assert "Discarding the room snapshot" in caplog.text
    assert state(again) == state(full)


async def test_an_edited_byte_before_the_snapshot_is_refused_as_today(
    make_room, busy_room, tmp_path, caplog
):
    room = await busy_room(tmp_path)
    await room.stop()
    path = tmp_path / "transcript.jsonl"
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"reply 3", b"reply 8", 1))
    again = make_room(tmp_path, agent=None, document_window=10)
    with caplog.at_level(logging.WARNING), pytest.raises(Unavailable, match="not written by"):
        await again.ensure_started()
    assert "changed since it was written" in caplog.text


# -- the routes --------------------------------------------------------------------------------


@pytest.fixture
def room_config():
    return {"document_window": 10}


@pytest.fixture
def get(jp_fetch):
    """`await get(user, route, before=..., limit=...)`: a GET with query arguments."""

    async def call(user, route, **params):
        r = await jp_fetch(
            "copilot-room",
            "api",
            route,
            params={k: str(v) for k, v in params.items()},
            headers=people.authorization(user),
            raise_error=False,
        )
        return Response(r.code, r.body)

    return call


async def test_history_and_transcript_pages_by_seq_with_role_rules(api, get, room):
    await ready(api, room)
    await run_turns(room, 8)
    doc = room.document.transcript.to_py()
    assert len(doc) == 10
    oldest = int(doc[0]["seq"])
    page = (await get("carol", "history", before=oldest, limit=4)).json
    assert page["more"] is True and len(page["entries"]) == 4
    rest = (await get("carol", "history", before=page["entries"][0]["seq"])).json
    assert rest["more"] is False
    archived = rest["entries"] + page["entries"]
    seqs = [e["seq"] for e in archived]
    assert seqs == sorted(seqs) and seqs[-1] < oldest
    assert [e["kind"] for e in archived[:2]] == ["system", "prompt"]  # agent ready, 1st prompt
    assert all(isinstance(e["body"], str) for e in archived)
    assert len(archived) + len(doc) == len(room.records.history.path.read_text().splitlines()) + 10

    lines = (await get("bob", "transcript", before=oldest, limit=3)).text.splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [oldest - 3, oldest - 2, oldest - 1]
    whole = (await api("bob", "GET", "transcript")).text
    assert whole == room.transcript.read_text()
    assert (await get("carol", "transcript", limit=3)).code == 403
    assert (await get("dave", "transcript", limit=3)).code == 403
    assert (await get("dave", "history")).code == 403


@pytest.mark.parametrize(
    "query",
    [{"before": 0}, {"before": "x"}, {"before": -3}, {"limit": 0}, {"limit": 1001}, {"limit": 2.5}],
)
async def test_bad_page_arguments_are_a_clear_400(get, query):
    for route in ("transcript", "history"):
        r = await get("alice", route, **query)
        assert r.code == 400 and r.json["error"] == "invalid_page", r
        assert "before" in r.json["message"] or "limit" in r.json["message"]


async def test_compaction_closes_clients_with_4002_and_they_resync(api, room, connect):
    await ready(api, room)
    client = await connect("carol")
    await eventually(lambda: len(client.transcript) >= 1)
    compactions = room.records.snapshots.written
    await run_turns(room, 8)  # 17 entries: 7 evicted, not yet a compaction
    assert not client.closed.is_set()
    await run_turns(room, 3)  # 10 evicted: the document is rebuilt
    await eventually(lambda: client.closed.is_set(), what="the client to be closed")
    assert client.ws.close_code == 4002
    assert "compacted" in client.ws.close_reason
    await eventually(lambda: room.records.snapshots.written > compactions, what="a snapshot")
    again = await connect("carol")
    await eventually(lambda: len(again.transcript) == len(room.document.transcript))
    assert again.snapshot()["transcript"] == room.document.snapshot()["transcript"]


# -- LiveRecords: the few records a restart needs besides the document --------------------------

OPS = (
    "submit",
    "withdraw",
    "start",
    "finish",
    "open",
    "settle",
    "stream",
    "close",
    "retry",
    "seen",
    "admit",
    "settings",
    "ready",
)


def records_of(ops):
    """A valid record sequence driven by `ops` (an op that does not apply now is skipped)."""
    from jupyter_copilot_room.events import (
        AdmissionDecided,
        AgentReady,
        PersonSeen,
        RequestOpened,
        RequestSettled,
        SettingsChanged,
    )

    make, waiting, running, requests, streams = Records(), [], None, [], []
    for n, op in enumerate(ops, start=1):
        if op == "submit":
            waiting.append(f"p{n}")
            yield make("prompt.submitted", PromptSubmitted(id=f"p{n}", text="hi"), "bob")
        elif op == "withdraw" and waiting:
            yield make("prompt.withdrawn", PromptRef(id=waiting.pop()), "bob")
        elif op == "start" and waiting and running is None:
            running = waiting.pop(0)
            yield make("prompt.started", PromptRef(id=running), "bob")
        elif op == "finish" and running is not None:
            yield make("prompt.finished", PromptFinished(id=running, state="completed"))
            running = None
        elif op == "open" and running is not None:
            requests.append(f"q{n}")
            yield make(
                "request.opened",
                RequestOpened(
                    id=f"q{n}",
                    kind="shell",
                    summary="ls",
                    prompt_id=running,
                    author="bob",
                    deadline=1.0,
                ),
            )
        elif op == "settle" and requests:
            yield make("request.settled", RequestSettled(id=requests.pop(0), outcome="approved"))
        elif op == "stream" and running is not None:
            streams.append(f"s{n}")
            yield make("assistant.started", AssistantStarted(entry_id=f"s{n}", prompt_id=running))
        elif op == "close" and streams:
            yield make("assistant.message", AssistantMessage(entry_id=streams.pop(), text="x"))
        elif op == "retry" and streams:
            attempt = AssistantMessage(entry_id=streams.pop(), text="x", partial=True, retried=True)
            yield make("assistant.message", attempt)
        elif op == "seen":
            name = f"user{n % 3}"
            yield make(
                "person.seen", PersonSeen(username=name, display_name=f"N{n}", verified=True), name
            )
        elif op == "admit":
            yield make(
                "admission.decided",
                AdmissionDecided(username=f"user{n % 3}", decision="viewer"),
                "alice",
            )
        elif op == "settings":
            yield make(
                "settings.changed", SettingsChanged(changes={"permission_timeout": n}), "alice"
            )
        elif op == "ready":
            yield make("agent.ready", AgentReady(label=f"model {n % 2}"))


async def rebuilt(records, tmp_path):
    """Queue, people, settings and what is open after replaying `records` (no document)."""
    from jupyter_copilot_room.room.live.streams import Streams
    from jupyter_copilot_room.room.people.participants import People
    from jupyter_copilot_room.room.persistence.replay import replay
    from jupyter_copilot_room.room.persistence.snapshot import LiveRecords
    from jupyter_copilot_room.room.turns.queue import PromptQueue

    book = AdmissionBook(hosts=frozenset({"alice"}))
    queue, settings_store = PromptQueue(), SettingsStore(tmp_path / "s.json", RoomSettings())
    people_ = People(book, tmp_path / "a.json", RoomDocument(), None, set)
    streams, live = Streams(None, None), LiveRecords()
    replayed = await replay(
        records,
        queue=queue,
        people=people_,
        streams=streams,
        settings=settings_store,
        document=None,
        live=live,
    )
    state = {
        "queue": [(p.id, p.state.value, p.submitted_at) for p in queue.open()],
        "known": people_.known,
        "roles": {name: people_.role_of(name).value for name in ("user0", "user1", "user2")},
        "settings": settings_store.current,
        "streams": dict(streams._open),
        "requests": replayed.open_requests,
        "ready": replayed.last_ready,
    }
    return state, live


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(OPS), max_size=60))
def test_live_records_alone_rebuild_what_every_record_does(ops):
    tmp_path = Path(tempfile.mkdtemp())
    everything = list(records_of(ops))
    whole, live = asyncio.run(rebuilt(everything, tmp_path))
    kept = [(record, record.parsed()) for record in live.records()]
    assert len(kept) <= len(everything)
    assert asyncio.run(rebuilt(kept, tmp_path))[0] == whole
