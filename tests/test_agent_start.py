"""When the agent cannot run: a real server whose Copilot runtime is missing says what to do (one
line in its log, a short paragraph in the room), keeps prompts waiting, and a host's retry finds a
runtime installed since, without a server restart.
"""

import re
from pathlib import Path

import pytest

from jupyter_copilot_room.agent.runtime import (
    RUNTIME_VERSION,
    RuntimeMissing,
    cache_dir,
    find_runtime,
)
from jupyter_copilot_room.agent.scripted_model import Reply

from .harness.config import MODEL_KEY, MODEL_KEY_ENV, copilot_agent
from .harness.helpers import READY, eventually


async def test_a_missing_runtime_is_advice_and_a_host_retry_starts_the_agent(
    servers, model, tmp_path
):
    installed = cache_dir() / "node_modules"
    assert installed.is_dir(), "the tests need `jupyter copilot-room install-runtime`"
    model.script = lambda request: Reply(f"Back: {request.prompt}")
    runtime_dir = tmp_path / "no-runtime-yet"  # where install-runtime will put it
    server = servers(
        room=copilot_agent(model.base_url),
        env={MODEL_KEY_ENV: MODEL_KEY, "JUPYTER_COPILOT_ROOM_RUNTIME_DIR": str(runtime_dir)},
    )

    async def state_is(state):
        return (await server.room())["agent"].get("state") == state

    await server.start_async()
    await eventually(lambda: state_is("unavailable"), timeout=READY, what="unavailable")
    meta = (await server.room())["agent"]
    advice, details = meta["agent_detail"], meta["agent_error"]
    assert advice.startswith("The Copilot runtime is not installed on this server.")
    assert "`jupyter copilot-room install-runtime`" in advice and "Try again" in advice
    assert str(runtime_dir) not in advice and "http" not in advice  # short, for people
    assert str(runtime_dir / RUNTIME_VERSION) in details

    log = server.log.read_text()
    assert "Traceback" not in log
    assert "github.com" not in log  # the SDK never tried a download of its own
    [line] = [line for line in log.splitlines() if "the agent is unavailable" in line]
    assert "install-runtime" in line

    # Prompts are accepted meanwhile and wait until the agent is back.
    waiting = await server.call("bob", "POST", "prompts", {"text": "are you there?"})
    assert waiting.code == 202

    # Only hosts may retry, and `me.can` says so.
    assert "start_agent" in (await server.room("alice"))["me"]["can"]
    for person in ("bob", "carol"):
        assert "start_agent" not in (await server.room(person))["me"]["can"]
        refused = await server.call(person, "POST", "agent/start", {})
        assert refused.code == 403, (person, refused.body)

    # Still missing: a retry is answered, and the room is unavailable again, with one more line.
    retried = await server.call("alice", "POST", "agent/start", {})
    assert retried.code == 202, retried.body
    await eventually(
        lambda: server.log.read_text().count("the agent is unavailable") == 2,
        timeout=READY,
        what="the second attempt",
    )
    await eventually(lambda: state_is("unavailable"), timeout=READY, what="unavailable again")

    # The runtime appears where install-runtime puts it; a host's retry finds it, no restart.
    (runtime_dir / RUNTIME_VERSION).mkdir(parents=True)
    (runtime_dir / RUNTIME_VERSION / "node_modules").symlink_to(installed)
    retried = await server.call("alice", "POST", "agent/start", {})
    assert retried.code == 202, retried.body
    await eventually(lambda: state_is("idle"), timeout=READY, what="the agent to start")
    assert (await server.room())["agent"]["agent_error"] == ""
    await eventually(
        lambda: any(r.prompt == "[bob]: are you there?" for r in model.requests),
        timeout=30,
        what="the waiting prompt to run",
    )

    again = await server.call("alice", "POST", "agent/start", {})
    assert again.code == 409 and b"agent_not_unavailable" in again.body
    assert "Traceback" not in server.log.read_text()


def test_the_room_finds_only_the_pinned_runtime_and_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.delenv("COPILOT_CLI_PATH", raising=False)
    monkeypatch.setenv("JUPYTER_COPILOT_ROOM_RUNTIME_DIR", str(tmp_path))
    with pytest.raises(RuntimeMissing) as missing:
        find_runtime()
    assert "install-runtime" in missing.value.advice
    with pytest.raises(RuntimeMissing) as misconfigured:
        find_runtime(str(tmp_path / "nowhere" / "copilot"))
    assert "c.CopilotRoom.cli_path" in misconfigured.value.advice
    assert str(tmp_path / "nowhere") in misconfigured.value.details


def test_the_docs_name_the_one_runtime_version():
    """What install-runtime installs and the room runs is the version the docs name."""
    root = Path(__file__).parents[1]
    named = set()
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        named |= set(re.findall(r"@github/copilot-[\w<>-]+@(\d+\.\d+\.\d+)", doc.read_text()))
    assert named == {RUNTIME_VERSION}
