"""A fourth real agent (issue 51): Gemini CLI (`gemini --acp`, tests/agents/package.json) against a
local fake of the Gemini API. It is the agent that uses its client's files: every read goes
through `fs/read_text_file` and every write through `fs/write_text_file`, so here the room's
gate is its own, not only the agent's permission request. Under the room's profile, a command
Gemini deems safe (`echo`, `ls`) still asks; a new file is created through one card; a rejected
write changes nothing; its usage (`_meta.quota`) is booked; a restart loads its session."""

import json
import re

import pytest

from .harness.fake_gemini import Answer, FakeGemini, FunctionCall
from .harness.helpers import entries, eventually, finished, node_binary, ready, served
from .test_acp_claude import AGENTS

KEY = "fake-gemini-key"


def gemini_command() -> list[str]:
    return [str(node_binary(AGENTS, "gemini", "Gemini CLI")), "--acp"]


def said(request) -> tuple[str, str]:
    """The last person's line the model was given: (who, what)."""
    lines = [m for text in request.texts for m in re.findall(r"^\[(\w+)\]: (.*)$", text, re.M)]
    return lines[-1]


def answers(request):
    """Gemini answers "[bob]: ..." by name; "run ..." calls its shell, "create <path>: <text>"
    its write_file; "what came first" names the first thing anyone said in the session."""
    if request.tool_results:
        return Answer("Done: " + request.tool_results[-1].strip()[:80])
    who, text = said(request)
    if text.startswith("run "):
        command = text.removeprefix("run ")
        return Answer(call=FunctionCall("run_shell_command", {"command": command}))
    if match := re.fullmatch(r"create (\S+): (.*)", text):
        path, content = match.groups()
        return Answer(call=FunctionCall("write_file", {"file_path": path, "content": content}))
    if text == "what came first":
        lines = [m for t in request.texts for m in re.findall(r"^\[\w+\]: (.*)$", t, re.M)]
        return Answer(f"First: {lines[0]}")
    return Answer(f"Hello from Gemini, {who}.")


@pytest.fixture
def gemini(jp_asyncio_loop):
    yield from served(FakeGemini(answers), jp_asyncio_loop)


@pytest.fixture
def room_config(gemini, monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    entry = {
        "acp": gemini_command(),
        "title": "Gemini CLI",
        # A model of its own: "auto" asks the model which model to use first.
        "env": {"GOOGLE_GEMINI_BASE_URL": gemini.base_url, "GEMINI_MODEL": "gemini-2.5-flash"},
        "env_from": ["GEMINI_API_KEY"],
    }
    return {"default_agent": "gemini", "agents": {"gemini": entry}}


def usage_booked(room) -> list[dict]:
    records = (json.loads(line) for line in room.transcript.read_text().splitlines())
    return [r["payload"] for r in records if r["kind"] == "usage"]


async def turn(api, room, text, user="bob"):
    asked = (await api(user, "POST", "prompts", body={"text": text})).json
    return asked["id"]


async def ended(room, prompt_id):
    await eventually(lambda: prompt_id in finished(room), timeout=60, what="Gemini's turn")
    return finished(room)[prompt_id]


async def card(room):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, shown)] = room.document.approvals.to_py().items()
    return request_id, shown


async def test_gemini_answers_in_the_room_and_its_usage_is_booked(api, room, gemini):
    await ready(api, room)
    done = await ended(room, await turn(api, room, "hi"))
    assert done["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Hello from Gemini, bob."
    assert (await api("alice", "GET", "room")).json["agent"]["title"] == "Gemini CLI"
    [booked] = usage_booked(room)
    assert (booked["author"], booked["input_tokens"], booked["output_tokens"]) == ("bob", 100, 10)


async def test_a_command_gemini_deems_safe_still_waits_on_a_card(api, room, jp_root_dir):
    await ready(api, room)
    asked = await turn(api, room, "run echo KEYIS=$GEMINI_API_KEY > said.txt")
    request_id, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("shell", "echo KEYIS=$GEMINI_API_KEY > said.txt")
    await api("bob", "POST", "approvals", request_id, body={"decision": "reject"})
    await ended(room, asked)
    assert not (jp_root_dir / "said.txt").exists(), "nothing ran"

    listed = await turn(api, room, "run ls")
    request_id, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("shell", "ls")
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert (await ended(room, listed))["state"] == "completed"
    [*_, row] = entries(room, "tool")
    assert (row["summary"], row["state"]) == ("ls", "success"), row


async def test_a_new_file_is_one_write_card_and_a_rejected_one_changes_nothing(
    api, room, jp_root_dir
):
    await ready(api, room)
    made = await turn(api, room, "create notes.txt: made by Gemini")
    request_id, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("write", "notes.txt")
    assert "+made by Gemini" in shown["details"]["diff"], shown
    assert not (jp_root_dir / "notes.txt").exists(), "nothing before the answer"
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert (await ended(room, made))["state"] == "completed"
    assert (jp_root_dir / "notes.txt").read_text() == "made by Gemini"
    assert len(entries(room, "permission")) == 1, "one card for the new file"

    overwrite = await turn(api, room, "create notes.txt: overwritten")
    request_id, shown = await card(room)
    assert "-made by Gemini" in shown["details"]["diff"], shown
    await api("alice", "POST", "approvals", request_id, body={"decision": "reject"})
    await ended(room, overwrite)
    assert (jp_root_dir / "notes.txt").read_text() == "made by Gemini"


async def test_a_restart_keeps_the_conversation(api, room, gemini):
    """Gemini CLI 0.61 cannot load a session in the minute it was made (its session file is
    named by the minute, and loading starts a new recording in that very file, emptying it:
    google-gemini/gemini-cli#28693), so here the room gives the new session the conversation it
    recorded; in a later minute the session loads. Either way the conversation goes on."""
    await ready(api, room)
    await ended(room, await turn(api, room, "remember kiwi"))
    await room.agent.restart()
    await eventually(lambda: room.document.meta.get("state") == "idle", what="Gemini back")
    await ended(room, await turn(api, room, "what came first"))
    assert entries(room, "assistant")[-1]["body"] == "First: remember kiwi"
