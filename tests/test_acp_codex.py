"""A third real agent (issue 45): Codex through `@zed-industries/codex-acp` (tests/agents), against
a local fake of OpenAI's Responses API (Codex speaks no other wire API: `wire_api = "chat"` is
refused at start). Its platform binary is started directly: the package's node wrapper leaves it
running when stopped. Under the room's profile (issue 51) every command asks, `ls` too, before
any sandbox (Codex's needs bubblewrap, which the test machines lack: the profile runs approved
commands without it)."""

import json
import platform
import re

import pytest

from .harness.fake_openai import FakeOpenAI, FunctionCall
from .harness.helpers import entries, eventually, finished, node_binary, ready, served
from .test_acp_claude import AGENTS

ARCH = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def codex_command() -> str:
    """The platform binary of `codex-acp` in tests/agents (`npm ci` when missing)."""
    node_binary(AGENTS, "codex-acp", "Codex's ACP adapter")
    package = f"codex-acp-{platform.system().lower()}-{ARCH[platform.machine()]}"
    return str(AGENTS / "node_modules" / "@zed-industries" / package / "bin" / "codex-acp")


@pytest.fixture
def openai(jp_asyncio_loop):
    yield from served(FakeOpenAI(answers), jp_asyncio_loop)


def answers(request):
    """Codex echoes the prompt's last line; "run <command>" runs it, then says what it got."""
    if request.tool_results:
        return f"Done: {request.tool_results[-1].strip()[-60:]}"
    last = request.texts[-1].splitlines()[-1]
    if match := re.fullmatch(r"\[\w+\]: run (.+)", last):
        return FunctionCall("exec_command", {"cmd": match.group(1)})
    return f"Hello from Codex: {last}"


@pytest.fixture
def room_config(openai, monkeypatch, tmp_path):
    """Codex as `docs/hosts.md` says: an existing CODEX_HOME whose config.toml names the
    provider, its key passed by `env_from`, the mode that asks before it changes anything."""
    monkeypatch.setenv("FAKE_OPENAI_KEY", "fake-openai-key")
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.4"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{openai.base_url}"\nenv_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n'
    )
    codex = {
        "acp": [codex_command()],
        "title": "Codex",
        "env": {"CODEX_HOME": str(codex_home)},
        "env_from": ["FAKE_OPENAI_KEY"],
    }
    return {"default_agent": "codex", "agents": {"codex": codex}}


async def test_codex_answers_in_the_room(api, room, openai, connect):
    await ready(api, room)
    alice = await connect("alice")
    asked = (await api("bob", "POST", "prompts", body={"text": "hi"})).json
    await eventually(lambda: asked["id"] in finished(room), timeout=60, what="Codex's turn")
    assert finished(room)[asked["id"]]["state"] == "completed"
    [reply] = entries(room, "assistant")
    assert reply["body"] == "Hello from Codex: [bob]: hi"
    assert reply["agent"] == "Codex"
    await eventually(lambda: alice.replies() and alice.replies()[-1]["body"] == reply["body"])
    # The room's rules, then bob's words, reached the model; Codex was told of the notebook tools.
    [request] = openai.requests
    assert "several people in one Jupyter server steer you" in request.texts[-1]
    assert any("notebook_read" in str(tool) for tool in request.body["tools"])
    assert (await api("alice", "GET", "room")).json["agent"]["title"] == "Codex"


async def test_a_command_codex_deems_safe_still_waits_on_a_card(api, room, jp_root_dir):
    """Codex runs `ls` unasked under its own modes; under the room's profile it asks, and a
    rejected command never runs."""
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "run ls > listed.txt"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    assert card["kind"] == "shell" and "ls > listed.txt" in card["summary"], card
    await api("bob", "POST", "approvals", request_id, body={"decision": "reject"})
    await eventually(lambda: asked["id"] in finished(room), timeout=60, what="the turn to end")
    assert not (jp_root_dir / "listed.txt").exists()

    listed = (await api("bob", "POST", "prompts", body={"text": "run echo approved"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=60, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await eventually(lambda: listed["id"] in finished(room), timeout=60, what="the turn to end")
    assert entries(room, "assistant")[-1]["body"].startswith("Done:"), entries(room, "assistant")
    assert "approved" in entries(room, "assistant")[-1]["body"]
    # Codex says its usage only as the context's size (`usage_update`): booked from its growth.
    records = (json.loads(line) for line in room.transcript.read_text().splitlines())
    booked = [r["payload"] for r in records if r["kind"] == "usage"]
    assert booked and all(b["input_tokens"] > 0 for b in booked), booked
