"""A third real agent (issue 45): Codex through `@zed-industries/codex-acp` (tests/agents), against
a local fake of OpenAI's Responses API (Codex speaks no other wire API: `wire_api = "chat"` is
refused at start). Its platform binary is started directly: the package's node wrapper leaves it
running when stopped. Codex's shell needs bubblewrap, which the test machines lack, so its
commands are not run here; its replies are."""

import platform

import pytest

from .harness.fake_openai import FakeOpenAI
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
    fake = FakeOpenAI(lambda request: f"Hello from Codex: {request.texts[-1].splitlines()[-1]}")
    yield from served(fake, jp_asyncio_loop)


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
