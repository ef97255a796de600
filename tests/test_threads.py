"""Side threads (issue 31): a room's conversation forked after a turn, worked on privately in a
git worktree of its own, while the room goes on, then brought back.

The REAL Copilot runtime through the REAL SDK, against the tests' scripted model: the forked
session's first model request is what the runtime itself sends.
"""

import json
import subprocess

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.errors import InvalidRequest
from jupyter_copilot_room.threads import worktree
from jupyter_copilot_room.threads.fork_point import ForkPoint, fork_point

from .harness import config
from .harness.helpers import READY, eventually, finished, ready

SLOW = Reply("Slowly " * 300, chunk_size=4, delay=0.05)


def git(folder, *args):
    return subprocess.run(
        ["git", "-C", str(folder), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repository(jp_root_dir):
    """The server's root, a git repository with one commit and a person's uncommitted change."""
    git(jp_root_dir, "init", "-q", "-b", "main")
    (jp_root_dir / "stats.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    git(jp_root_dir, "add", "stats.py")
    git(jp_root_dir, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "start")
    (jp_root_dir / "notes.md").write_text("uncommitted notes\n")
    return jp_root_dir


@pytest.fixture
def room_config(copilot_config, request):
    """The real agent; bob and dave members; a test's own settings (`indirect`) on top."""
    return {**copilot_config, "members": ["bob", "dave"], **getattr(request, "param", {})}


def thread_room(room_app, room, thread_id):
    return room_app.threads.of(room)._rooms[thread_id].room


async def test_a_thread_forks_after_a_turn_works_in_its_own_worktree_and_comes_back_as_a_prompt(
    api, connect, room, room_app, model, repository
):
    written = {}

    def script(request):
        if request.prompt.endswith("slow please"):
            return SLOW
        if request.prompt.endswith("write it") and not request.tool_results:
            create = {"path": written["path"], "file_text": "import polars\n"}
            return Reply("Writing.", tool_calls=(ToolCall("create", create),))
        if request.tool_results:
            return Reply("Wrote it: polars works here.")
        return Reply(f"Noted: {request.prompt}")

    model.script = script
    await ready(api, room)
    first = (await api("alice", "POST", "prompts", body={"text": "first question"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30)
    second = (await api("bob", "POST", "prompts", body={"text": "second question"})).json
    await eventually(lambda: second["id"] in finished(room), timeout=30)

    # Refused: a viewer, an unknown prompt, a prompt whose turn has not run.
    r = await api("carol", "POST", "threads", body={"from": first["id"], "title": "x"})
    assert (r.code, r.json["error"]) == (403, "forbidden"), r
    r = await api("bob", "POST", "threads", body={"from": "nope", "title": "x"})
    assert (r.code, r.json["error"]) == (400, "unknown_prompt"), r

    made = await api("bob", "POST", "threads", body={"from": first["id"], "title": "polars?"})
    assert made.code == 201, made
    thread = made.json
    assert {k: thread[k] for k in ("title", "owner", "from", "state")} == {
        "title": "polars?",
        "owner": "bob",
        "from": first["id"],
        "state": "open",
    }
    listing = (await api("carol", "GET", "threads")).json["threads"]
    assert [(t["id"], t["owner"], t["people"]) for t in listing] == [(thread["id"], "bob", ["bob"])]
    assert room.document.meta.get("threads") == listing, "the document lists them too"

    # Only the owner, the people they add and the hosts see its content.
    for who in ("carol", "dave"):
        r = await api(who, "GET", "threads", thread["id"], "transcript")
        assert r.code == 403, (who, r)
        with pytest.raises(Exception) as refused:
            await connect(who, f"threads/{thread['id']}")
        assert "403" in str(refused.value), who
    seen = await api("alice", "GET", "threads", thread["id"], "transcript")
    assert seen.code == 200
    # Its first line names people by username, for the panel to show by their names of the day.
    said = "{0} forked this side thread from the room main after {1}'s turn “first question”"
    first_line = json.loads(seen.text.splitlines()[0])["payload"]
    assert first_line["text"].startswith(said) and first_line["people"] == ["bob", "alice"]
    [forked_line] = [
        e
        for e in thread_room(room_app, room, thread["id"]).document.transcript.to_py()
        if e["kind"] == "system" and e["body"].startswith(said)
    ]
    assert forked_line["people"] == ["bob", "alice"]

    records = room_app.threads.of(room).records
    worktree = records.worktree(thread["id"])
    assert (worktree / "notes.md").read_text() == "uncommitted notes\n", "people's changes too"
    assert git(repository, "branch", "--list", "copilot-room/threads/*").strip()
    written["path"] = str(worktree / "polars_try.py")

    # The room's slow turn runs; the thread's turn runs and ends meanwhile.
    slow = (await api("alice", "POST", "prompts", body={"text": "slow please"})).json
    asked = await api("bob", "POST", "threads", thread["id"], "prompts", body={"text": "write it"})
    assert asked.code == 202, asked
    side = thread_room(room_app, room, thread["id"])
    await eventually(lambda: len(side.document.approvals) == 1, timeout=READY, what="a card")
    [card] = side.document.approvals.to_py()
    r = await api("dave", "POST", "approvals", card, body={"decision": "approve"})
    assert r.code == 403, "dave is not in the thread"
    r = await api("alice", "POST", "approvals", card, body={"decision": "approve"})
    assert r.code == 200, r
    await eventually(lambda: asked.json["id"] in finished(side), timeout=30, what="thread turn")
    assert finished(side)[asked.json["id"]]["state"] == "completed"
    assert slow["id"] not in finished(room), "the room's turn still runs"

    # The fork holds the room's conversation up to the first turn, and nothing after it.
    [forked] = [r for r in model.requests if r.prompt == "[bob]: write it"][:1]
    said = "\n".join(forked.user_texts())
    assert "first question" in said and "second question" not in said
    assert (worktree / "polars_try.py").read_text() == "import polars\n"
    assert not (repository / "polars_try.py").exists(), "the shared tree is untouched"
    room_next = next(r for r in model.requests if r.prompt == "[alice]: slow please")
    assert "write it" not in "\n".join(room_next.user_texts())

    # Promoted as a prompt: queued in the room by the owner, the thread's last reply with it.
    r = await api(
        "bob", "POST", "threads", thread["id"], "promote", body={"as": "prompt", "text": "Use it:"}
    )
    assert r.code == 202, r
    queued = room.turns.queue.get(r.json["id"])
    assert queued.author == "bob"
    assert queued.text == "Use it:\n\nWrote it: polars works here."
    [entry] = [p for p in room.document.queue.to_py() if p["id"] == r.json["id"]]
    assert entry["thread"] == thread["id"]
    lines = room.transcript.read_text()
    assert "{0} opened the side thread “polars?”" in lines and "back as a prompt" in lines

    # bob adds dave, who then sees and prompts in the thread.
    r = await api("bob", "POST", "threads", thread["id"], "people", body={"username": "dave"})
    assert (r.code, r.json["people"]) == (200, ["bob", "dave"]), r
    assert (await api("dave", "GET", "threads", thread["id"], "transcript")).code == 200
    r = await api("carol", "POST", "threads", thread["id"], "people", body={"username": "carol"})
    assert r.code == 403
    await api("carol", "GET", "room")
    r = await api("bob", "POST", "threads", thread["id"], "people", body={"username": "carol"})
    assert r.json["message"].startswith("Carol is not a member"), r.json  # a viewer, by name


async def test_a_thread_outlives_a_restart_and_closes_keeping_its_transcript(
    api, room, room_app, model, repository
):
    model.script = lambda request: Reply(f"Noted: {request.prompt}")
    await ready(api, room)
    first = (await api("alice", "POST", "prompts", body={"text": "remember kiwi"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30)
    thread = (await api("bob", "POST", "threads", body={"title": "t"})).json
    assert thread["from"] == first["id"], "the latest finished turn"
    one = await api("bob", "POST", "threads", thread["id"], "prompts", body={"text": "say mango"})
    side = thread_room(room_app, room, thread["id"])
    await eventually(lambda: one.json["id"] in finished(side), timeout=READY)

    # The room's commands work in the thread too, under threads/<id>/.
    said = await api("bob", "POST", "threads", thread["id"], "messages", body={"text": "psst"})
    assert said.code == 201, said
    assert "psst" in side.transcript.read_text() and "psst" not in room.transcript.read_text()
    assert (
        await api("dave", "POST", "threads", thread["id"], "messages", body={"text": "x"})
    ).code == 403

    # The server's stop ends every thread's room; the next request builds it again from disk.
    await room_app.threads.stop()
    two = await api("bob", "POST", "threads", thread["id"], "prompts", body={"text": "and now?"})
    assert two.code == 202, two
    side = thread_room(room_app, room, thread["id"])
    await eventually(lambda: two.json["id"] in finished(side), timeout=READY)
    [resumed] = [r for r in model.requests if r.prompt == "[bob]: and now?"]
    said = "\n".join(resumed.user_texts())
    assert "remember kiwi" in said and "say mango" in said, "its session was resumed"

    assert (await api("dave", "DELETE", "threads", thread["id"])).code == 403
    assert (await api("bob", "DELETE", "threads", thread["id"])).code == 204
    records = room_app.threads.of(room).records
    assert not records.worktree(thread["id"]).exists()
    assert not git(repository, "branch", "--list", "copilot-room/threads/*").strip()
    listing = (await api("bob", "GET", "threads")).json["threads"]
    assert [t["state"] for t in listing] == ["closed"]
    transcript = await api("bob", "GET", "threads", thread["id"], "transcript")
    kinds = [json.loads(line)["kind"] for line in transcript.text.splitlines()]
    assert kinds.count("prompt.finished") == 2
    r = await api("bob", "POST", "threads", thread["id"], "prompts", body={"text": "more"})
    assert (r.code, r.json["error"]) == (409, "thread_closed")


@pytest.mark.parametrize("room_config", [{"budgets": {"per_person": {"tokens": 1}}}], indirect=True)
async def test_a_threads_turns_spend_from_the_rooms_daily_caps(
    api, room, room_app, model, repository
):
    """A cap of one token a person: a turn spends it. Dave spends his in the room, bob his in
    his thread (dave added to it); each is then refused in both, since the thread checks the
    room's sums and books its turns there (the room's transcript holds bob's thread's cost)."""
    model.script = lambda request: Reply(f"Noted: {request.prompt}")
    await ready(api, room)
    first = (await api("dave", "POST", "prompts", body={"text": "in the room"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30)
    thread = (await api("bob", "POST", "threads", body={"title": "t"})).json
    await api("bob", "POST", "threads", thread["id"], "people", body={"username": "dave"})
    side = thread_room(room_app, room, thread["id"])
    one = await api("bob", "POST", "threads", thread["id"], "prompts", body={"text": "in it"})
    assert one.code == 202, one
    await eventually(lambda: one.json["id"] in finished(side), timeout=READY)

    usage = (await api("carol", "GET", "budgets")).json
    assert {person: sums["turns"] for person, sums in usage["people"].items()} == {
        "bob": 1,
        "dave": 1,
    }
    for who in ("bob", "dave"):
        for where in (("prompts",), ("threads", thread["id"], "prompts")):
            r = await api(who, "POST", *where, body={"text": "one more"})
            assert (r.code, r.json["error"]) == (429, "budget_exceeded"), (who, where, r)
            assert r.json["cap"]["scope"] == "per_person"
    booked = [json.loads(line) for line in room.transcript.read_text().splitlines()]
    [cost] = [r["payload"] for r in booked if r["kind"] == "usage" and r["payload"].get("thread")]
    assert (cost["thread"], cost["author"], cost.get("prompt_id")) == (thread["id"], "bob", None)


async def test_a_folder_outside_git_cannot_fork(api, room, model, jp_root_dir):
    await ready(api, room)
    r = await api("bob", "POST", "threads", body={"title": "t"})
    assert (r.code, r.json["error"]) == (409, "not_a_repository"), r


def records_of(room, kind):
    lines = room.transcript.read_text().split("\n")
    return [json.loads(line) for line in lines if line.strip() and f'"{kind}"' in line]


async def test_promote_as_diff_is_a_card_then_one_checkpointed_turn_or_refused_on_conflict(
    api, room, room_app, model, repository
):
    target = {}

    def script(request):
        if request.tool_results:
            return Reply("Done.")
        if request.prompt.endswith("edit it"):
            edit = {"path": target["path"], "old_str": target["old"], "new_str": target["new"]}
            return Reply(tool_calls=(ToolCall("edit", edit),))
        return Reply(f"Noted: {request.prompt}")

    model.script = script
    await ready(api, room)
    first = (await api("alice", "POST", "prompts", body={"text": "hello"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30)

    async def thread_that_edits(title, old, new):
        target.update(old=old, new=new)
        thread = (await api("bob", "POST", "threads", body={"title": title})).json
        records = room_app.threads.of(room).records
        target["path"] = str(records.worktree(thread["id"]) / "stats.py")
        asked = await api(
            "bob", "POST", "threads", thread["id"], "prompts", body={"text": "edit it"}
        )
        side = thread_room(room_app, room, thread["id"])
        await eventually(lambda: len(side.document.approvals) == 1, timeout=READY)
        [card] = side.document.approvals.to_py()
        assert (
            await api("bob", "POST", "approvals", card, body={"decision": "approve"})
        ).code == 200
        await eventually(lambda: asked.json["id"] in finished(side), timeout=30)
        return thread

    thread = await thread_that_edits(
        "guard", "return sum(xs) / len(xs)", "return sum(xs) / max(len(xs), 1)"
    )
    r = await api("alice", "POST", "threads", thread["id"], "promote", body={"as": "diff"})
    assert (r.code, r.json["error"]) == (403, "not_owner"), "only the owner promotes"
    preview = await api("bob", "GET", "threads", thread["id"], "diff")
    assert preview.json["files"] == ["stats.py"] and "max(len" in preview.json["diff"]
    assert (await api("dave", "GET", "threads", thread["id"], "diff")).code == 403
    promoted = await api("bob", "POST", "threads", thread["id"], "promote", body={"as": "diff"})
    assert promoted.code == 202, promoted
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [(card, shown)] = room.document.approvals.to_py().items()
    assert (shown["kind"], shown["author"], shown["summary"]) == ("promote", "bob", "stats.py")
    assert "+    return sum(xs) / max(len(xs), 1)" in shown["details"]["diff"]
    assert "max(len" not in (repository / "stats.py").read_text(), "nothing before approval"
    assert (await api("carol", "POST", "approvals", card, body={"decision": "approve"})).code == 403
    assert shown["answerers"]["users"] == [], "not its owner's to approve"
    own = await api("bob", "POST", "approvals", card, body={"decision": "approve"})
    assert (own.code, own.json["error"]) == (403, "not_your_request"), own.json
    assert "max(len" not in (repository / "stats.py").read_text()
    assert (await api("alice", "POST", "approvals", card, body={"decision": "approve"})).code == 200
    await eventually(lambda: promoted.json["id"] in finished(room), timeout=30)
    assert finished(room)[promoted.json["id"]]["state"] == "completed"
    assert "max(len(xs), 1)" in (repository / "stats.py").read_text()
    await eventually(lambda: records_of(room, "turn.checkpointed"), timeout=10, what="checkpoint")
    [checkpoint] = records_of(room, "turn.checkpointed")
    assert checkpoint["payload"]["author"] == "bob"
    assert checkpoint["payload"]["files"] == ["stats.py"]

    # A second thread changes a line that the room then changes too: its diff no longer
    # applies. The card says which file, and the approval applies nothing.
    (repository / "stats.py").write_text("def mean(xs):\n    return 0\n")
    second = await thread_that_edits("again", "return 0", "return 2")
    (repository / "stats.py").write_text("def mean(xs):\n    return 1\n")
    promoted = await api("bob", "POST", "threads", second["id"], "promote", body={"as": "diff"})
    assert promoted.code == 202, promoted
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [(card, shown)] = room.document.approvals.to_py().items()
    assert "stats.py changed in the room since the thread forked" in shown["details"]["conflicts"]
    assert (await api("alice", "POST", "approvals", card, body={"decision": "approve"})).code == 200
    await eventually(lambda: promoted.json["id"] in finished(room), timeout=30)
    ended = finished(room)[promoted.json["id"]]
    assert ended["state"] == "failed" and "stats.py changed in the room" in ended["reason"]
    assert (repository / "stats.py").read_text() == "def mean(xs):\n    return 1\n"


def test_the_fork_point_is_after_a_finished_turn_and_before_every_later_one():
    def line(kind, prompt_id):
        return json.dumps({"kind": kind, "payload": {"id": prompt_id}})

    transcript = "\n".join(
        [
            *(line("prompt.submitted", p) for p in ("a", "b", "c", "d")),
            line("prompt.started", "a"),
            line("prompt.finished", "a"),
            line("prompt.started", "b"),
            line("prompt.finished", "b"),
            line("prompt.started", "c"),  # running
        ]
    )
    assert fork_point(transcript, "a") == ForkPoint("a", ["b", "c"], ("", ""))
    assert fork_point(transcript, None).later == ["c"], "after the latest finished turn"
    for prompt_id, code in (("c", "prompt_not_finished"), ("d", "prompt_not_finished")):
        with pytest.raises(InvalidRequest) as refused:
            fork_point(transcript, prompt_id)
        assert refused.value.code == code
    with pytest.raises(InvalidRequest) as refused:
        fork_point(transcript, "zzz")
    assert refused.value.code == "unknown_prompt"
    assert fork_point("", None) == ForkPoint(None, []), "a room without turns forks whole"


async def test_a_real_server_restart_keeps_an_open_thread_with_its_conversation(servers, model):
    def script(request):
        return (
            Reply(hang=True) if "hold on" in request.prompt else Reply(f"Noted: {request.prompt}")
        )

    model.script = script
    server = servers(room=config.copilot_agent(model.base_url))
    git(server.root, "init", "-q", "-b", "main")
    (server.root / "a.py").write_text("x = 1\n")
    git(server.root, "add", "a.py")
    git(server.root, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "start")

    async def answer(user, method, path, body=None):
        response = await server.call(user, method, path, body)
        return response.code, json.loads(response.body) if response.body else None

    async def finished_in(path, count):
        async def done():
            response = await server.call("bob", "GET", path)
            return response.code == 200 and response.body.count(b'"prompt.finished"') >= count

        await eventually(done, timeout=READY, what=f"{count} finished turns in {path}")

    await server.start_async()
    await answer("alice", "POST", "prompts", {"text": "remember kiwi"})
    await finished_in("transcript", 1)
    code, thread = await answer("bob", "POST", "threads", {"title": "mango"})
    assert code == 201, thread
    side = f"threads/{thread['id']}"
    await answer("bob", "POST", f"{side}/prompts", {"text": "say mango"})
    await finished_in(f"{side}/transcript", 1)

    def asked(text):
        return [r for r in model.requests if r.prompt == f"[bob]: {text}"]

    await answer("bob", "POST", f"{side}/prompts", {"text": "hold on"})
    await eventually(lambda: asked("hold on"), timeout=READY, what="the thread's slow turn")
    code, _ = await answer("bob", "POST", f"{side}/prompts", {"text": "then this"})
    assert code == 202
    server.stop()  # during the thread's turn, with one of its prompts queued
    await server.start_async()
    # Nobody opens the thread: it starts with its room and runs what was queued.
    await eventually(lambda: asked("then this"), timeout=READY, what="the queued prompt's turn")

    code, listing = await answer("carol", "GET", "threads")
    assert [(t["id"], t["state"]) for t in listing["threads"]] == [(thread["id"], "open")]
    await finished_in(f"{side}/transcript", 3)  # mango, the one cut by the stop, then this
    code, sent = await answer("bob", "POST", f"{side}/prompts", {"text": "and now?"})
    assert code == 202, sent
    await finished_in(f"{side}/transcript", 4)
    [resumed] = asked("and now?")
    said = "\n".join(resumed.user_texts())
    assert "remember kiwi" in said and "say mango" in said, "the thread's session was resumed"


async def test_the_diff_to_promote_names_files_from_the_rooms_repository_as_cards_do(tmp_path):
    top, inner = tmp_path / "top", tmp_path / "top" / "examples" / "repo"
    inner.mkdir(parents=True)
    (inner / "stats.py").write_text("x = 1\n")
    git(top, "init", "-q", "-b", "main")
    git(top, "add", ".")
    git(top, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "start")
    base = git(top, "rev-parse", "HEAD").strip()
    (inner / "stats.py").write_text("x = 2\n")

    diff, files = await worktree.changes(top, base, "examples/repo")
    assert files == ["stats.py"] and "a/stats.py" in diff and "examples/" not in diff
    assert (await worktree.changes(top, base))[1] == ["examples/repo/stats.py"]  # what applies
    (top / "README").write_text("outside the room's repository\n")
    assert (await worktree.changes(top, base, "examples/repo"))[1] == [
        "README",
        "examples/repo/stats.py",
    ], "a change outside it is shown, so all stay named from the top"
