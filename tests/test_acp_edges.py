"""An ACP agent's rarer moments, with a scripted ACP agent of the tests' own
(tests/agents/scripted_acp_agent.py): a crash in the middle of a turn, two permission requests
open at once and an abort, every tool kind as the room's card, a `session/load` refused."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .harness.helpers import entries, eventually, finished, ready

AGENT = Path(__file__).parent / "agents" / "scripted_acp_agent.py"


@pytest.fixture
def agent_env():
    return {}


@pytest.fixture
def command():
    return [sys.executable, str(AGENT)]


@pytest.fixture
def asks():
    return "own"  # the scripted agent has no profile: the host accepts it as it is


@pytest.fixture
def room_config(agent_env, command, asks):
    scripted = {"acp": command, "title": "Scripted", "env": agent_env, "asks": asks}
    return {"default_agent": "scripted", "agents": {"scripted": scripted}}


async def ask(api, room, user, text):
    asked = await api(user, "POST", "prompts", body={"text": text})
    assert asked.code == 202, asked
    return asked.json["id"]


async def ended(room, prompt_id):
    await eventually(lambda: prompt_id in finished(room), timeout=30, what="the turn to end")
    return finished(room)[prompt_id]


async def test_a_crash_mid_turn_fails_it_in_words_and_the_next_prompt_runs(api, room):
    await ready(api, room)
    crashed = await ended(room, await ask(api, room, "bob", "crash now"))
    assert crashed["state"] == "failed"
    assert crashed["reason"].startswith("Scripted exited with code 3 during this turn")
    assert entries(room, "assistant")[-1]["body"] == "Starting, then", "what it said stays"
    again = await ended(room, await ask(api, room, "bob", "hello again"))
    assert again["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Echo: [bob]: hello again"


async def test_two_requests_open_at_once_are_two_cards_and_abort_cancels_both(api, room):
    await ready(api, room)
    first = await ask(api, room, "bob", "two asks")
    await eventually(lambda: len(room.document.approvals) == 2, what="two cards at once")
    assert (await api("alice", "POST", "abort")).code in (200, 202, 204)
    assert (await ended(room, first))["state"] == "canceled"
    assert not room.document.approvals.to_py()

    second = await ask(api, room, "bob", "two asks")
    await eventually(lambda: len(room.document.approvals) == 2, what="two cards again")
    one, two = sorted(room.document.approvals.to_py().items(), key=lambda c: c[1]["summary"])
    assert one[1]["agent"] == two[1]["agent"] == "Scripted", "a card names the agent that asks"
    assert (await api("bob", "POST", "approvals", one[0], body={"decision": "approve"})).code == 200
    assert (await api("bob", "POST", "approvals", two[0], body={"decision": "reject"})).code == 200
    assert (await ended(room, second))["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Answers: execute 1 allow, execute 2 deny."
    assert {e["agent"] for e in entries(room, "permission")} == {"Scripted"}


async def test_every_tool_kind_is_a_card_of_the_rooms_kinds(api, room):
    await ready(api, room)
    asked = await ask(api, room, "alice", "every kind")
    kinds = []

    async def approve_each():
        for request_id, card in (room.document.approvals.to_py() or {}).items():
            if request_id not in [k[0] for k in kinds]:
                kinds.append((request_id, card["kind"], card["summary"]))
                await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
        return asked in finished(room)

    await eventually(approve_each, timeout=30, what="every card answered")
    assert [kind for _, kind, _ in kinds] == [
        *("shell", "write", "write", "write", "url", "read", "read"),
        *("custom-tool", "custom-tool"),
    ]
    summaries = [summary for *_, summary in kinds]
    assert summaries[:1] == ["echo 0"] and summaries[4] == "https://example.org"
    reply = entries(room, "assistant")[-1]["body"]
    assert reply.startswith("Answers: execute 0 allow, edit 1 allow") and "other 8 allow" in reply


@pytest.mark.parametrize("agent_env", [{"SCRIPTED_ACP_REFUSE_LOAD": "1"}])
async def test_a_session_load_refused_starts_a_new_session_given_the_conversation(api, room):
    """The agent could not load its session after a restart: the room says so, and the new
    session's first prompt carries the conversation the room recorded, so it goes on."""
    await ready(api, room)
    await ended(room, await ask(api, room, "bob", "remember kiwi"))
    await room.agent.restart()
    await eventually(lambda: room.document.meta.get("state") == "idle", what="the agent back")
    assert "earlier context was lost" in room.document.meta.get("agent")
    ready_lines = [e["body"] for e in entries(room, "system") if "ready" in e["body"]]
    assert ready_lines[-1].endswith("given the room's conversation so far."), ready_lines
    after = await ended(room, await ask(api, room, "alice", "what came before"))
    assert after["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Before: [bob]: remember kiwi"


@pytest.mark.parametrize("asks", [""])
async def test_an_agent_the_room_has_no_profile_for_starts_only_once_the_host_accepts_it(api, room):
    await api("alice", "GET", "room")
    await eventually(lambda: room.document.meta.get("state") == "unavailable", what="its state")
    meta = room.document.meta.to_py()
    assert meta["agent"] == "Scripted cannot run"
    assert meta["agent_error"] == (
        "The room knows no settings that make Scripted ask before every command and write: "
        "set c.CopilotRoom.agents['scripted']['asks'] = 'own' to run it as it decides"
    )


@pytest.mark.parametrize("command", [["/nowhere/agent-acp", "--acp"]])
async def test_a_missing_command_is_the_agent_that_cannot_run_with_the_exact_error(api, room):
    """The panel's "cannot run" path: what to do in `agent_detail`, the exact error beside."""
    await api("alice", "GET", "room")
    await eventually(lambda: room.document.meta.get("state") == "unavailable", what="its state")
    meta = room.document.meta.to_py()
    assert meta["agent"] == "Scripted cannot run"
    assert "/nowhere/agent-acp --acp" in meta["agent_detail"]
    assert "/nowhere/agent-acp" in meta["agent_error"], meta["agent_error"]


async def test_the_agents_file_reads_and_writes_are_the_rooms_cards_inside_its_folder(
    api, room, jp_root_dir, tmp_path_factory
):
    """`fs/*` for the agents that use their client's files: a read is the read card, a write
    the write card showing its diff against the file as it is; a rejected write changes nothing
    and the agent hears why; outside the room's folder (a symlink by where it leads) refused
    before anyone is asked; a missing file is ACP's resource-not-found."""
    folder = jp_root_dir.resolve()
    (folder / "notes.txt").write_text("the room's notes\n")
    secret = tmp_path_factory.mktemp("elsewhere") / "outside.txt"
    secret.write_text("not the room's\n")
    (folder / "link.txt").symlink_to(secret)
    await ready(api, room)

    read = await ask(api, room, "bob", f"read: {folder / 'notes.txt'}")
    request_id, card = await one_card(room)
    assert (card["kind"], card["summary"]) == ("read", "notes.txt")
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await ended(room, read)
    assert entries(room, "assistant")[-1]["body"] == "Read: the room's notes"

    written = await ask(api, room, "bob", f"write: {folder / 'notes.txt'}")
    request_id, card = await one_card(room)
    assert (card["kind"], card["summary"]) == ("write", "notes.txt")
    assert "-the room's notes" in card["details"]["diff"], card["details"]
    assert "+written by the agent" in card["details"]["diff"], card["details"]
    assert (
        await api("carol", "POST", "approvals", request_id, body={"decision": "approve"})
    ).code == 403
    await api("alice", "POST", "approvals", request_id, body={"decision": "reject"})
    await ended(room, written)
    heard = entries(room, "assistant")[-1]["body"]
    assert heard.startswith("Refused: ") and "alice" in heard, heard
    assert (folder / "notes.txt").read_text() == "the room's notes\n", "a rejected write"

    missing = await said_to(api, room, f"read: {folder / 'nowhere.txt'}")
    assert missing.startswith("Refused: Resource not found"), missing
    for path in (secret, folder / "link.txt", folder / ".." / secret.parent.name / secret.name):
        said = await said_to(api, room, f"read: {path}")
        assert said.startswith("Refused: ") and "outside the room's folder" in said, path
    assert "outside the room's folder" in await said_to(api, room, f"write: {folder / 'link.txt'}")
    assert secret.read_text() == "not the room's\n"
    assert not room.document.approvals.to_py(), "nothing outside was asked of anyone"


async def test_a_write_the_agent_asked_for_is_one_card_and_a_denied_kind_no_card(
    api, room, jp_root_dir
):
    """An agent that asks before it writes through its client (Gemini CLI does) sees one card,
    the write's; under `write: deny` the room refuses an unasked write by rule, with no card."""
    folder = jp_root_dir.resolve()
    await ready(api, room)
    asked = await ask(api, room, "bob", f"asked write: {folder / 'new' / 'made.txt'}")
    request_id, card = await one_card(room)
    assert (card["kind"], card["summary"]) == ("write", "new/made.txt")
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await ended(room, asked)
    assert entries(room, "assistant")[-1]["body"] == "Written."
    assert (folder / "new" / "made.txt").read_text() == "asked for\n"
    assert len(entries(room, "permission")) == 1, "one card for the write, not two"

    policy = {"approval_policy": {"write": "deny"}}
    assert (await api("alice", "PATCH", "settings", body=policy)).code == 200
    said = await said_to(api, room, f"write: {folder / 'denied.txt'}")
    assert said.startswith("Refused: Rejected by rule write"), said
    assert not (folder / "denied.txt").exists()


async def test_no_write_outside_a_turn_and_no_card_let_through_by_its_title(
    api, room, jp_root_dir, state_dir
):
    """A hostile agent: a write 0.5 s after its turn ended is refused (nothing is written);
    a permission request titled with a room tool's name it never announced is the room's card,
    not let through."""
    folder = jp_root_dir.resolve()
    await ready(api, room)
    assert await said_to(api, room, f"write later: {folder / 'late.txt'}") == "Later."
    log = state_dir / "agents" / "scripted" / "stderr.log"  # the agent's word on its late write
    await eventually(lambda: log.exists() and "Later: " in log.read_text(), what="the late write")
    later = log.read_text().split("Later: ", 1)[1]
    assert later.startswith("refused: The room runs none of this agent's turns"), later
    assert not (folder / "late.txt").exists()

    for title in ("notebook_replace_cell", "jupyter-notebook_replace_cell"):
        titled = await ask(api, room, "bob", f"titled {title}")
        request_id, card = await one_card(room)
        assert card["kind"] == "custom-tool", card
        await api("bob", "POST", "approvals", request_id, body={"decision": "reject"})
        await ended(room, titled)
        assert entries(room, "assistant")[-1]["body"] == "Answer: deny"


@pytest.fixture
def repository(jp_root_dir):
    """The server's root, a git repository with one commit (side threads work in worktrees)."""
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(
            ["git", "-c", "user.name=A", "-c", "user.email=a@x", "-C", str(jp_root_dir), *args],
            check=True,
            capture_output=True,
        )
    return jp_root_dir


async def test_a_side_thread_of_an_acp_agent_starts_primed_with_the_conversation_before_it(
    api, room, room_app, repository
):
    """ACP has no fork of a session: the thread's agent starts a new one whose first prompt
    carries the room's conversation up to the fork point, and nothing after it."""
    await ready(api, room)
    first = await ask(api, room, "alice", "first question")
    await ended(room, first)
    await ended(room, await ask(api, room, "bob", "second question"))
    made = await api("bob", "POST", "threads", body={"from": first, "title": "try"})
    assert made.code == 201, made
    thread = made.json["id"]
    question = {"text": "what came before"}
    asked = await api("bob", "POST", "threads", thread, "prompts", body=question)
    assert asked.code == 202, asked
    side = room_app.threads.of(room)._rooms[thread].room
    await eventually(lambda: asked.json["id"] in finished(side), timeout=30, what="its turn")
    said = entries(side, "assistant")[-1]["body"]
    assert said == "Before: [alice]: first question", said


async def test_a_host_chooses_among_the_models_the_session_offers(api, room):
    """The session's config option of category `model` is the room's model switch: a host's
    choice is set on the session before the next prompt, and kept across a restart."""
    await ready(api, room)
    offered = (await api("bob", "GET", "model")).json
    assert offered == {"model": "fast", "models": ["fast", "thorough"]}
    assert (await api("bob", "PUT", "model", body={"model": "thorough"})).code == 403
    refused = await api("alice", "PUT", "model", body={"model": "gpt-unknown"})
    assert (refused.code, refused.json["error"]) == (400, "unknown_model")
    assert (await api("alice", "PUT", "model", body={"model": "thorough"})).code == 200
    await eventually(lambda: room.document.meta.get("model") == "thorough", what="the label")
    said = await ended(room, await ask(api, room, "bob", "which model"))
    assert said["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Model: thorough"

    await room.agent.restart()  # a new process: the session is loaded, the choice said again
    await ready(api, room)
    await ended(room, await ask(api, room, "bob", "which model"))
    assert entries(room, "assistant")[-1]["body"] == "Model: thorough"


async def said(api, room, user, text, rooms=()):
    """What the agent answered `text` in `room` (main, or the room `rooms` names)."""
    asked = await api(user, "POST", *rooms, "prompts", body={"text": text})
    assert asked.code == 202, asked
    await ended(room, asked.json["id"])
    return entries(room, "assistant")[-1]["body"]


async def test_every_room_holds_its_own_session_in_the_agents_one_process(
    api, room, room_app, jp_root_dir
):
    await ready(api, room)
    (jp_root_dir / "proj").mkdir()
    created = await api("alice", "POST", "rooms", body={"name": "proj", "repository": "proj"})
    assert created.code == 201, created
    proj_route = ("rooms", "proj")
    await api("alice", "GET", *proj_route, "room")  # loads it; its first prompt starts its agent
    proj = room_app.rooms.loaded("proj")

    main_pid = await said(api, room, "bob", "which process")
    assert main_pid.startswith("Process: ")
    assert await said(api, proj, "bob", "which process", proj_route) == main_pid
    # One process, two sessions: a model chosen in one room is not the other's.
    assert (await api("alice", "PUT", *proj_route, "model", body={"model": "thorough"})).code == 200
    assert await said(api, proj, "bob", "which model", proj_route) == "Model: thorough"
    assert await said(api, room, "bob", "which model") == "Model: fast"

    # The process crashes in proj's turn: proj's turn fails in words; main's next prompt is
    # answered by the next process, and so is proj's.
    crashed = await api("bob", "POST", *proj_route, "prompts", body={"text": "crash now"})
    assert (await ended(proj, crashed.json["id"]))["state"] == "failed"
    again = await said(api, room, "bob", "which process")
    assert again.startswith("Process: ") and again != main_pid
    assert await said(api, proj, "bob", "which process", proj_route) == again


async def test_the_agents_plan_is_one_entry_showing_its_latest_steps(api, room):
    await ready(api, room)
    assert await said(api, room, "bob", "make a plan") == "Planned."
    [plan] = entries(room, "plan")
    assert plan["steps"] == [
        {"content": "Read the data", "status": "completed"},
        {"content": "Chart the totals", "status": "completed"},
    ]
    kinds = [e["kind"] for e in room.document.transcript.to_py()]
    assert kinds[-3:] == ["prompt", "plan", "assistant"]
    # The transcript keeps each version, as the agent sent it.
    lines = [json.loads(line) for line in room.transcript.read_text().splitlines() if line]
    updates = [r["payload"]["steps"] for r in lines if r["kind"] == "plan.updated"]
    assert [[s["status"] for s in steps] for steps in updates] == [
        ["pending", "pending"],
        ["completed", "in_progress"],
        ["completed", "completed"],
    ]


async def test_a_terminal_runs_only_an_approved_command_inside_the_rooms_folder(
    api, room, jp_root_dir
):
    """For agents that run commands through their client: a command its permission request got
    approved runs once, in the room's folder, its output cut to the agent's limit; one it did
    not ask for is the room's card first, and a rejected one never runs; a cwd outside refused."""
    await ready(api, room)
    asked = await api(
        "bob", "POST", "prompts", body={"text": "terminal: echo ran > out.txt; seq 40"}
    )
    request_id, card = await one_card(room)
    assert (card["kind"], card["summary"]) == ("shell", "echo ran > out.txt; seq 40")
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await ended(room, asked.json["id"])
    said = entries(room, "assistant")[-1]["body"]
    assert said.startswith("Terminal: ") and said.endswith("40 (cut) (exit 0)"), said
    assert (jp_root_dir / "out.txt").read_text() == "ran\n", "run once, in the room's folder"

    unasked = await api("bob", "POST", "prompts", body={"text": "terminal unasked: touch sneaky"})
    request_id, card = await one_card(room)
    assert (card["kind"], card["summary"]) == ("shell", "sh -c 'touch sneaky'")
    await api("alice", "POST", "approvals", request_id, body={"decision": "reject"})
    await ended(room, unasked.json["id"])
    assert entries(room, "assistant")[-1]["body"].startswith("Refused: ")
    assert not (jp_root_dir / "sneaky").exists()

    refused = await said_to(api, room, "terminal in: /etc")
    assert refused.startswith("Refused: ") and "/etc is outside the room's folder" in refused


async def one_card(room):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="a card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    return request_id, card


async def said_to(api, room, text):
    return await said(api, room, "bob", text)
