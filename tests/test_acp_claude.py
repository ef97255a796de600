"""A second real agent (issue 45): Claude Code through `@zed-industries/claude-agent-acp`
(tests/agents/package.json), against a local fake of Anthropic's Messages API. The room runs
it as it runs any ACP agent: its replies streamed, its Bash tool's permission request a card that
the prompt's author answers, the command run only once approved."""

import json
import re
from pathlib import Path

import pytest

from .harness.fake_anthropic import Answer, FakeAnthropic, ToolUse
from .harness.helpers import entries, eventually, finished, node_binary, ready, served

AGENTS = Path(__file__).parent / "agents"


def claude_command() -> str:
    """`claude-agent-acp` from `tests/agents/node_modules` (`npm ci` when missing)."""
    return str(node_binary(AGENTS, "claude-agent-acp", "Claude Code's ACP adapter"))


def answers(request):
    """Claude answers "[bob]: ..." by name; "run ..." asks its Bash tool, then says Done."""
    if request.tool_results:
        return Answer("Done: " + request.tool_results[-1].strip()[:60])
    who, said = request.texts[-1].strip().splitlines()[-1].split("]: ", 1)
    if match := re.fullmatch(r"write (\S+): (.*)", said):
        path, content = match.groups()
        return Answer("Writing it.", ToolUse("Write", {"file_path": path, "content": content}))
    if said.startswith("run "):
        command = said.removeprefix("run ")
        return Answer("Running it.", ToolUse("Bash", {"command": command, "description": "t"}))
    return Answer(f"Hello from Claude, {who.lstrip('[')}.")


@pytest.fixture
def anthropic(jp_asyncio_loop):
    yield from served(FakeAnthropic(answers), jp_asyncio_loop)


@pytest.fixture
def room_config(anthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "fake-anthropic-key")
    monkeypatch.setenv("SERVER_ONLY_SECRET", "never-the-agents")
    claude = {
        "acp": [claude_command()],
        "title": "Claude Code",
        "env": {
            "ANTHROPIC_BASE_URL": anthropic.base_url,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
        },
        "env_from": ["ANTHROPIC_API_KEY"],
    }
    return {"default_agent": "claude", "agents": {"claude": claude}}


async def test_claude_code_answers_in_the_room(api, room, anthropic):
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "hi"})).json
    await eventually(lambda: asked["id"] in finished(room), timeout=60, what="Claude's turn")
    assert finished(room)[asked["id"]]["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Hello from Claude, bob."
    assert any("[bob]: hi" in text for text in anthropic.requests[-1].texts)
    assert (await api("alice", "GET", "room")).json["agent"]["title"] == "Claude Code"


async def test_claude_codes_bash_waits_on_its_author_and_runs_once_approved(api, room, jp_root_dir):
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "run echo yes > claude.txt"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    assert card["kind"] == "shell" and "echo yes > claude.txt" in card["summary"], card
    assert not (jp_root_dir / "claude.txt").exists()
    refused = await api("carol", "POST", "approvals", request_id, body={"decision": "approve"})
    assert refused.code == 403
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    await eventually(lambda: asked["id"] in finished(room), timeout=60, what="the turn to end")
    assert (jp_root_dir / "claude.txt").read_text() == "yes\n"
    assert entries(room, "assistant")[-1]["body"].startswith("Done:")


async def test_a_command_claude_code_deems_safe_still_waits_on_a_card(api, room, state_dir):
    """Claude Code runs `ls` unasked by default; under the room's profile it asks."""
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "run ls"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    assert (card["kind"], card["summary"]) == ("shell", "ls"), card
    await api("bob", "POST", "approvals", request_id, body={"decision": "reject"})
    await eventually(lambda: asked["id"] in finished(room), timeout=60, what="the turn to end")
    home = state_dir / "agents" / "claude" / "home"  # the room's, its settings written there
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    assert "Bash" in settings["permissions"]["ask"]


async def test_claude_codes_new_file_is_a_write_card_and_a_rejected_one_changes_nothing(
    api, room, jp_root_dir
):
    await ready(api, room)
    target = jp_root_dir.resolve() / "notes.txt"
    made = (await api("bob", "POST", "prompts", body={"text": f"write {target}: by Claude"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    assert (card["kind"], card["summary"]) == ("write", "notes.txt"), card
    assert not target.exists(), "nothing before the answer"
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await eventually(lambda: made["id"] in finished(room), timeout=60, what="the turn to end")
    assert target.read_text() == "by Claude"

    again = (await api("bob", "POST", "prompts", body={"text": f"write {target}: replaced"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    await api("alice", "POST", "approvals", request_id, body={"decision": "reject"})
    await eventually(lambda: again["id"] in finished(room), timeout=60, what="the turn to end")
    assert target.read_text() == "by Claude"


async def test_claude_codes_shell_sees_its_own_key_and_no_other_server_secret(
    api, room, jp_root_dir
):
    """The agent's process gets the room's allow-list and its `env_from` only: a secret in the
    server's environment never reaches its shell; its own key does (the docs' table says so)."""
    await ready(api, room)
    command = "echo other=$SERVER_ONLY_SECRET own=${#ANTHROPIC_API_KEY} > env.txt"
    asked = (await api("bob", "POST", "prompts", body={"text": f"run {command}"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, _)] = room.document.approvals.to_py().items()
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await eventually(lambda: asked["id"] in finished(room), timeout=60, what="the turn to end")
    assert (jp_root_dir / "env.txt").read_text() == f"other= own={len('fake-anthropic-key')}\n"
