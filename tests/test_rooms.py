"""Several rooms on one server: `main` for the server's root and the rooms hosts create, each with
its own folder, queue, admissions, transcript and agent (`room_registry.py`)."""

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from tornado.httpclient import HTTPClientError

from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.notebooks import NotebookToolError, Provenance

from .harness import people
from .harness.clients import YClient
from .harness.helpers import eventually, finished, ready

DATA = Path(__file__).parent / "data"
PROVENANCE = Provenance("p1", "bob", 1, "call_1", 1.0)


@pytest.fixture
def room_config():
    return {"room_creators": ["carol"]}


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().split("\n") if line.strip()]


def write_notebook(path: Path, source: str) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source)]
    nbformat.write(notebook, path)


def by_name(response) -> dict:
    return {room["name"]: room for room in response.json["rooms"]}


async def test_who_may_create_a_room_and_what_a_bad_one_is_told(
    api, room_app, jp_root_dir, jp_ws_fetch, jp_serverapp
):
    (jp_root_dir / "proj").mkdir()
    (jp_root_dir / "notes.txt").write_text("a file")
    (jp_root_dir / "away").symlink_to(jp_root_dir.parent)

    listed = await api("dave", "GET", "rooms")  # pending in main: still finds the rooms
    assert listed.code == 200
    assert listed.json["rooms"][0].pop("state") in ("starting", "idle")  # the agent's state
    assert listed.json["rooms"] == [
        {
            "name": "main",
            "repository": "",
            "people": [],
            "role": "pending",
            "at_the_door": False,  # listing is no knock: dave has not asked to join
            "waiting_on_you": 0,
            "created_by": None,
        }
    ]
    assert listed.json.pop("can_create") is False
    can_create = {u: (await api(u, "GET", "rooms")).json["can_create"] for u in ("alice", "carol")}
    assert can_create == {"alice": True, "carol": True}  # a host; a room creator
    r = await api("bob", "POST", "rooms", body={"name": "proj", "repository": "proj"})
    assert (r.code, r.json["error"]) == (403, "not_allowed")
    for body, code in [
        ({"name": "Proj", "repository": "proj"}, "invalid_room_name"),
        ({"name": "-proj", "repository": "proj"}, "invalid_room_name"),
        ({"name": "a/b", "repository": "proj"}, "invalid_room_name"),
        ({"name": "x" * 41, "repository": "proj"}, "invalid_room_name"),
        ({"name": "p", "repository": "/tmp"}, "invalid_repository"),
        ({"name": "p", "repository": "proj/../.."}, "invalid_repository"),
        ({"name": "p", "repository": "away"}, "repository_outside_root"),
        ({"name": "p", "repository": "nowhere"}, "repository_not_found"),
        ({"name": "p", "repository": "notes.txt"}, "not_a_folder"),
        ({"name": "p", "extra": 1}, "invalid_body"),
    ]:
        r = await api("alice", "POST", "rooms", body=body)
        assert (r.code, r.json["error"]) == (400, code), body
    r = await api("alice", "POST", "rooms", body={"name": "main", "repository": ""})
    assert (r.code, r.json["error"]) == (409, "room_exists")

    heard = []

    async def listener(logger, schema_id, data):
        heard.append((data["kind"], data["room"]))

    jp_serverapp.event_logger.add_listener(listener=listener)
    r = await api("carol", "POST", "rooms", body={"name": "proj", "repository": "proj"})
    assert r.code == 201, r  # a room creator who is no host
    assert r.json["name"] == "proj" and r.json["repository"] == "proj"
    assert r.json["created_by"] == "carol" and r.json["role"] == "viewer"
    r = await api("alice", "POST", "rooms", body={"name": "proj", "repository": ""})
    assert (r.code, r.json["error"]) == (409, "room_exists")
    created = [r for r in records(room_app.room.transcript.path) if r["kind"] == "room.created"]
    assert [(r["actor"], r["payload"]) for r in created] == [
        ("carol", {"name": "proj", "repository": "proj"})
    ]
    registry = json.loads((room_app.room.state_dir / "rooms.json").read_text())
    assert [(r["name"], r["repository"]) for r in registry["rooms"]] == [("proj", "proj")]
    assert room_app.rooms.loaded("proj").state_dir == room_app.room.state_dir / "rooms" / "proj"

    r = await api("alice", "GET", "rooms", "nowhere", "room")
    assert (r.code, r.json["error"]) == (404, "unknown_room")
    r = await api("alice", "GET", "rooms", "proj", "room")
    assert r.code == 200 and r.json["me"]["role"] == "host"  # the server's hosts host every room
    # The Jupyter Events say which room's transcript a record is in.
    await eventually(lambda: ("person.seen", "proj") in heard, what="proj's record as an event")
    jp_serverapp.event_logger.remove_listener(listener=listener)
    assert ("room.created", "main") in heard
    r = await api(None, "GET", "rooms", "proj", "room")
    assert r.code == 403
    with pytest.raises(HTTPClientError) as refused:
        await jp_ws_fetch(
            "copilot-room", "ws", "nowhere", headers=people.authorization(people.HOST)
        )
    assert refused.value.code == 404

    # A card waiting in proj counts for whom it waits on, in the list of rooms: its author (a
    # host may answer it too, but it waits on a host only once no named user is left), as the
    # sidebar tab counts it (access/rules.py `waits_on`).
    r = await api("bob", "POST", "rooms", "proj", "prompts", body={"text": "shell make it"})
    assert r.code == 202, r
    proj = room_app.rooms.loaded("proj")
    await eventually(lambda: len(proj.document.approvals) == 1, what="the card in proj")
    waiting = {
        user: by_name(await api(user, "GET", "rooms"))["proj"]["waiting_on_you"]
        for user in ("alice", "bob", "carol")
    }
    assert waiting == {"alice": 0, "bob": 1, "carol": 0}  # a host, the author, a viewer
    assert by_name(await api("alice", "GET", "rooms"))["main"]["waiting_on_you"] == 0
    [card] = proj.document.approvals.to_py()
    r = await api("bob", "POST", "rooms", "proj", "approvals", card, body={"decision": "reject"})
    assert r.code == 200
    assert by_name(await api("bob", "GET", "rooms"))["proj"]["waiting_on_you"] == 0

    # The room's notebook tools work in its folder, and only there.
    write_notebook(jp_root_dir / "proj" / "inside.ipynb", "inside = 1")
    write_notebook(jp_root_dir / "outside.ipynb", "outside = 1")
    editor = room_app.rooms.loaded("proj").turns.notebooks
    read = json.loads(await editor.call("notebook_read", {"path": "inside.ipynb"}, PROVENANCE))
    assert read["path"] == "inside.ipynb" and read["cells"][0]["source"] == "inside = 1"
    [cell] = read["cells"]
    await editor.call(
        "notebook_replace_cell",
        {"path": "inside.ipynb", "cell_id": cell["id"], "source": "inside = 2"},
        PROVENANCE,
    )
    assert nbformat.read(jp_root_dir / "proj" / "inside.ipynb", 4).cells[0].source == "inside = 2"
    for path in ("../outside.ipynb", "sub/../../outside.ipynb", "/outside.ipynb"):
        with pytest.raises(NotebookToolError):
            await editor.call("notebook_read", {"path": path}, PROVENANCE)
    assert nbformat.read(jp_root_dir / "outside.ipynb", 4).cells[0].source == "outside = 1"


async def test_rooms_survive_a_restart_and_main_keeps_an_old_transcript(servers):
    server = servers()
    server.state_dir.mkdir()
    shutil.copy(DATA / "transcript-0.1.jsonl", server.state_dir / "transcript.jsonl")
    (server.root / "analysis").mkdir()
    await server.start_async()  # (the old transcript leaves prompts waiting in main)
    old = (DATA / "transcript-0.1.jsonl").read_text()
    code, _ = server.api("alice", "GET", "room")
    assert code == 200
    status, body = server.api(
        "alice", "POST", "rooms", {"name": "analysis", "repository": "analysis"}
    )
    assert status == 201, body
    server.stop()

    await server.start_async()
    status, listed = server.api("bob", "GET", "rooms")
    assert [(r["name"], r["repository"], r["created_by"]) for r in listed["rooms"]] == [
        ("main", "", None),
        ("analysis", "analysis", "alice"),
    ]
    status, room = server.api("alice", "GET", "rooms/analysis/room")
    assert status == 200 and room["me"]["role"] == "host"
    # The upgraded room is `main`: its transcript begins with the old records, as they were.
    status, text = server.api("alice", "GET", "rooms/main/transcript")
    assert status == 200 and text.startswith(old)
    assert '"kind":"room.created"' in text[len(old) :].replace(" ", "")
    status, text = server.api("alice", "GET", "rooms/analysis/transcript")
    assert status == 200 and "room.created" not in text


class TestTwoRoomsAtOnce:
    """The real Copilot runtime (one per room) against the scripted model."""

    @pytest.fixture
    def room_config(self, copilot_config):
        return copilot_config

    async def test_two_rooms_run_turns_at_once_each_with_its_own_people_and_transcript(
        self, api, room, room_app, model, jp_root_dir, jp_ws_fetch
    ):
        (jp_root_dir / "proj").mkdir()
        await ready(api, room)
        r = await api("alice", "POST", "rooms", body={"name": "proj", "repository": "proj"})
        assert r.code == 201, r
        proj = room_app.rooms.loaded("proj")

        # dave, whom a host admitted to main, waits at proj's door until a host there lets him
        # in (the configured members, like bob, are members of every room).
        assert (await api("dave", "GET", "room")).json["me"]["role"] == "pending"
        r = await api("alice", "POST", "admissions", "dave", body={"decision": "member"})
        assert r.code == 200
        listed = by_name(await api("dave", "GET", "rooms"))
        assert (listed["main"]["role"], listed["proj"]["role"]) == ("member", "pending")
        assert listed["proj"]["people"] == [] and listed["proj"]["waiting_on_you"] == 0
        r = await api("dave", "POST", "rooms", "proj", "prompts", body={"text": "hello"})
        assert (r.code, r.json["error"]) == (403, "not_admitted")
        assert by_name(await api("alice", "GET", "rooms"))["proj"]["waiting_on_you"] == 1
        r = await api(
            "alice", "POST", "rooms", "proj", "admissions", "dave", body={"decision": "member"}
        )
        assert (r.code, r.json["role"]) == (200, "member")
        ws = await jp_ws_fetch("copilot-room", "ws", "proj", headers=people.authorization("dave"))
        dave_in_proj = YClient(ws)
        try:
            await eventually(lambda: connected(room_app, "proj") == ["dave"], what="dave in proj")
            listed = by_name(await api("alice", "GET", "rooms"))
            assert listed["proj"]["people"] == [
                {"username": "dave", "name": "Dave", "role": "member"}
            ]
            assert listed["proj"]["waiting_on_you"] == 0

            # Two turns at the same time, one per room, each long enough to overlap the other.
            model.script = lambda request: Reply(
                f"You said: {request.prompt}. " + "More words. " * 40, chunk_size=4, delay=0.05
            )
            await api("alice", "POST", "prompts", body={"text": "question for main"})
            await api(
                "dave", "POST", "rooms", "proj", "prompts", body={"text": "question for proj"}
            )
            await eventually(
                lambda: (
                    room.document.meta.get("state") == proj.document.meta.get("state") == "running"
                ),
                timeout=60,
                what="both rooms running a turn at once",
            )
            await eventually(
                lambda: all(len(finished(r)) == 1 for r in (room, proj)),
                timeout=60,
                what="both turns to finish",
            )
            prompts = {r.prompt for r in model.requests}
            assert {"[alice]: question for main", "[dave]: question for proj"} <= prompts
            for r, text in ((room, "question for main"), (proj, "question for proj")):
                submitted = [
                    rec["payload"]["text"]
                    for rec in records(r.transcript.path)
                    if rec["kind"] == "prompt.submitted"
                ]
                assert submitted == [text]
            assert proj.transcript.path == room.state_dir / "rooms" / "proj" / "transcript.jsonl"
            await eventually(
                lambda: (
                    [e["body"] for e in dave_in_proj.transcript.to_py() if e["kind"] == "prompt"]
                    == ["question for proj"]
                ),
                what="dave's live view of proj",
            )
        finally:
            dave_in_proj.close()


def connected(room_app, name: str) -> list[str]:
    return sorted(room_app.rooms.loaded(name).records.sync.connected())


async def test_a_rooms_agent_reads_and_writes_only_inside_its_folder(make_room, tmp_path):
    """A room on `proj/` refuses, without asking anyone, the agent's reads and writes that lead
    out of `proj/` (into the room beside it, or anywhere else); inside it people decide."""
    from jupyter_copilot_room.request_bodies import PromptBody

    from .test_state_dir import BOB, TouchesTheRoomsState

    folder, state = tmp_path / "proj", tmp_path / "state"
    (tmp_path / "other").mkdir()
    (folder / "sub").mkdir(parents=True)
    (folder / "away").symlink_to(tmp_path / "other")
    # Not main: confined to its folder.
    room = make_room(state, TouchesTheRoomsState, repository=folder, name="proj")
    await room.ensure_started()
    asks = ["write ../other/notes.md", f"write {tmp_path}/other/x.py", "write away/y.md"]
    for text in asks:
        room.prompt_commands.submit(BOB, PromptBody(text=text))
    await eventually(lambda: len(room.agent.answers) == len(asks), timeout=5)
    for answer in room.agent.answers:
        assert not answer.approved and "outside this room's folder" in answer.text, answer
    cards = [e for e in room.document.transcript.to_py() if e["kind"] == "permission"]
    assert [c["state"] for c in cards] == ["rejected"] * len(asks), "recorded, never asked"
    room.prompt_commands.submit(
        BOB, PromptBody(text="write sub/../notes.md")
    )  # inside: people decide
    await eventually(lambda: len(room.document.approvals) == 1)
