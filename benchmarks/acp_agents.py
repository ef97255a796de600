"""ACP benchmark: what the room adds to each supported ACP agent's streamed reply.

    python benchmarks/acp_agents.py                # every agent, about two minutes on 2 cores
    python benchmarks/acp_agents.py claude gemini  # those named: copilot, claude, codex, gemini

One run per agent, each under the room's profile: the pinned Copilot runtime (`copilot --acp`)
with the tests' scripted model, Claude Code, Codex and Gemini CLI (tests/agents) with the tests'
fakes of their model APIs; each model streams a reply of CHUNKS numbered chunks, DELAY seconds
apart. Each chunk is timed when the model sends it and when it arrives:

1. at a bare ACP client (the `acp` library's, nothing else): the runtime's own latency;
2. at two people's clients of the room: a Jupyter server with the room in its own process, the
   same agent its agent, and two Yjs clients of its document over the websocket in this process
   (the agent's `session/update` -> the room's document, redaction and recording -> both
   clients' copies).

Printed per agent: prompt -> first chunk, and per-chunk latency p50 / p99 / max for the bare
client and each person, and the room's addition (the later person's p50 and p99 minus the bare
client's).
Timestamps are CLOCK_MONOTONIC, one clock: the model and the clients are in this process. See
benchmarks/README.md. Not part of the tests.
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from quick import sized

CHUNKS = sized(200, 20)
DELAY = 0.01  # seconds between the model's chunks
TARGET_ADDED_P99 = 0.005
MARK = re.compile(r"c(\d{3}) ")


def reply_text() -> str:
    return "".join(f"c{n:03d} " for n in range(CHUNKS))  # 5 characters a chunk


@dataclass
class Bench:
    """One agent as the benchmark runs it: its `c.CopilotRoom.agents` entry, the variables its
    key is in (the server's, passed by `env_from`), and its model, whose chunks' send times
    land in `sent`."""

    name: str
    entry: dict
    keys: dict[str, str]
    model: object
    sent: dict[int, float] = field(default_factory=dict)

    def spec(self):
        from jupyter_copilot_room.agent.acp.agent_spec import AcpAgentSpec

        return AcpAgentSpec.parse(self.name, {**self.entry, "env_from": list(self.keys)})


def noted(sent: dict[int, float]) -> Callable[[str], None]:
    """A piece of text the model wrote: each chunk number in it, timed once."""

    def note(text: str) -> None:
        now = time.monotonic()
        for match in MARK.finditer(text):
            sent.setdefault(int(match.group(1)), now)

    return note


def copilot(work: Path) -> Bench:
    """The pinned runtime as `copilot --acp`, its model the scripted one (5 characters a chunk)."""
    from jupyter_copilot_room.agent import scripted_model
    from jupyter_copilot_room.agent.runtime import find_runtime
    from jupyter_copilot_room.agent.scripted_model import Reply, ScriptedModelServer

    sent: dict[int, float] = {}
    send = scripted_model._Completions._send

    async def timed(self, chunk: dict) -> None:
        await send(self, chunk)
        noted(sent)(chunk.get("choices", [{}])[0].get("delta", {}).get("content") or "")

    scripted_model._Completions._send = timed  # type: ignore[method-assign]
    server = ScriptedModelServer(lambda request: Reply(reply_text(), chunk_size=5, delay=DELAY))
    server.start()
    env = {
        "COPILOT_PROVIDER_BASE_URL": server.base_url,
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_MODEL": "scripted-model",
        "COPILOT_OFFLINE": "true",
    }
    entry = {"acp": [find_runtime().path, "--acp"], "title": "Copilot over ACP", "env": env}
    return Bench("copilot-acp", entry, {"COPILOT_PROVIDER_API_KEY": "bench"}, server, sent)


def claude(work: Path) -> Bench:
    from tests.harness.fake_anthropic import Answer, FakeAnthropic
    from tests.test_acp_claude import claude_command

    model = FakeAnthropic(lambda request: Answer(reply_text()))
    model.start()
    env = {"ANTHROPIC_BASE_URL": model.base_url, "DISABLE_TELEMETRY": "1"}
    env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    entry = {"acp": [claude_command()], "title": "Claude Code", "env": env}
    return Bench("claude", entry, {"ANTHROPIC_API_KEY": "bench"}, model)


def codex(work: Path) -> Bench:
    from tests.harness.fake_openai import FakeOpenAI
    from tests.test_acp_codex import codex_command

    model = FakeOpenAI(lambda request: reply_text())
    model.start()
    home = work / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "gpt-5.4"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{model.base_url}"\nenv_key = "BENCH_OPENAI_KEY"\nwire_api = "responses"\n'
    )
    entry = {"acp": [codex_command()], "title": "Codex", "env": {"CODEX_HOME": str(home)}}
    return Bench("codex", entry, {"BENCH_OPENAI_KEY": "bench"}, model)


def gemini(work: Path) -> Bench:
    from tests.harness.fake_gemini import Answer, FakeGemini
    from tests.test_acp_gemini import gemini_command

    model = FakeGemini(lambda request: Answer(reply_text()))
    model.start()
    env = {"GOOGLE_GEMINI_BASE_URL": model.base_url, "GEMINI_MODEL": "gemini-2.5-flash"}
    entry = {"acp": gemini_command(), "title": "Gemini CLI", "env": env}
    return Bench("gemini", entry, {"GEMINI_API_KEY": "bench"}, model)


AGENTS = {"copilot": copilot, "claude": claude, "codex": codex, "gemini": gemini}


async def bare(bench: Bench, work: Path) -> tuple[float, dict[int, float]]:
    """Prompt sent -> each numbered chunk's arrival at a bare ACP client (the agent started as
    the room starts it: its profile's settings, arguments and authentication)."""
    import acp
    from acp import schema

    arrived: dict[int, float] = {}

    class Client:
        async def session_update(self, session_id, update, **_):
            if isinstance(update, schema.AgentMessageChunk):
                for match in MARK.finditer(getattr(update.content, "text", "")):
                    arrived.setdefault(int(match.group(1)), time.monotonic())

        async def request_permission(self, *_, **__):
            raise NotImplementedError

        def on_connect(self, conn):
            pass

    spec = bench.spec()
    home = work / f"bare-home-{bench.name}"
    home.mkdir()
    env = spec.environment({**os.environ, **bench.keys}, home)
    start = spec.profile.start(home, env)
    command = [*spec.command, *start.args]
    env |= start.env
    async with acp.spawn_agent_process(Client(), *command, env=env, cwd=work) as (conn, _):
        init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        if spec.profile.auth_method in {m.id for m in init.auth_methods or ()}:
            await conn.authenticate(method_id=spec.profile.auth_method)
        meta = dict(spec.profile.session_meta)
        session = await conn.new_session(cwd=str(work), mcp_servers=[], **meta)
        started = time.monotonic()
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("[alice]: go")])
    return started, arrived


async def through_the_room(bench: Bench, work: Path) -> tuple[float, list[dict[int, float]]]:
    """Prompt submitted -> each numbered chunk's arrival at each of two people's clients: a
    Jupyter server with the room (its own process, the agent its agent), and two Yjs clients
    of the room's document over its websocket, in this process (one clock with the model's)."""
    from tests.harness import people
    from tests.harness.server import JupyterServer

    entry = {**bench.entry, "env_from": list(bench.keys)}
    server = JupyterServer(
        work / f"server-{bench.name}",
        room={"default_agent": bench.name, "agents": {bench.name: entry}},
        env=bench.keys,
    )
    await server.start_async()
    try:
        while (agent := (await server.room())["agent"]).get("state") != "idle":
            if agent.get("state") == "unavailable":  # it will not start: say why, not hang
                raise RuntimeError(f"{bench.name} in the room: {agent.get('agent_detail')}")
            await asyncio.sleep(0.05)
        clients = [await server.watch(user) for user in (people.HOST, "bob")]
        arrivals: list[dict[int, float]] = [{} for _ in clients]
        for client, arrived in zip(clients, arrivals, strict=True):

            def heard(client=client, arrived=arrived) -> None:
                """A message applied to this client's copy: the reply's new chunks, timed."""
                now = time.monotonic()
                for entry in client.replies()[-1:]:
                    for match in MARK.finditer(entry["body"]):
                        arrived.setdefault(int(match.group(1)), now)

            client.after_message = heard
        # Both copies synced and settled before the prompt: a join's own sync is not timed.
        while any(client.meta.to_py().get("state") != "idle" for client in clients):
            await asyncio.sleep(0.05)
        await asyncio.sleep(sized(1.0, 0.2))
        started = time.monotonic()
        asked = await server.call("bob", "POST", "prompts", {"text": "go"})
        assert asked.code == 202, asked.body
        while any(len(arrived) < CHUNKS for arrived in arrivals):
            await asyncio.sleep(0.05)
        for client in clients:
            client.close()
        return started, arrivals
    finally:
        server.stop()


def figures(started: float, arrived: dict[int, float], sent: dict[int, float]) -> dict:
    latency = [arrived[n] - sent[n] for n in sorted(arrived) if n in sent]
    return {
        "first": arrived[0] - started,
        "latency": latency,
        "p50": statistics.median(latency),
        "p99": statistics.quantiles(latency, n=100)[98],
        "max": max(latency),
    }


async def measure(name: str, work: Path) -> None:
    from tests.harness import fake_service

    bench = AGENTS[name](work)
    fake_service.PIECE, fake_service.PAUSE = 5, DELAY  # the fakes' chunks, as the scripted one's
    fake_service.sent = noted(bench.sent)
    print(f"{name}: bare ACP client", flush=True)
    bare_started, bare_arrived = await bare(bench, work)
    bare_sent = dict(bench.sent)
    bench.sent.clear()
    print(f"{name}: through the room, to two people's clients", flush=True)
    room_started, room_arrivals = await through_the_room(bench, work)
    await bench.model.stop()  # type: ignore[attr-defined]
    b = figures(bare_started, bare_arrived, bare_sent)
    people = [figures(room_started, arrived, bench.sent) for arrived in room_arrivals]
    r = max(people, key=lambda f: f["p99"])  # the later of the two
    added_p50, added_p99 = r["p50"] - b["p50"], r["p99"] - b["p99"]
    print()
    print(
        f"{name}: {CHUNKS} chunks, {DELAY * 1000:.0f} ms apart; latency: the model's send -> here"
    )
    looks = [("bare ACP client", b), ("room: host", people[0]), ("room: member", people[1])]
    for label, f in looks:
        print(
            f"  {label:16} first chunk {f['first'] * 1000:7.1f} ms after the prompt;"
            f" per chunk p50 {f['p50'] * 1000:5.2f} ms, p99 {f['p99'] * 1000:5.2f} ms,"
            f" max {f['max'] * 1000:5.2f} ms"
        )
    print(
        f"  the room adds per chunk: p50 {added_p50 * 1000:5.2f} ms, p99 {added_p99 * 1000:5.2f} ms"
        f" (target <= {TARGET_ADDED_P99 * 1000:.0f} ms: "
        f"{'ok' if added_p99 <= TARGET_ADDED_P99 else 'MISSED'})",
        flush=True,
    )
    print()


async def main(names: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix="copilot-room-acp-"))
    for name in names:
        await measure(name, work)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parents[1]))  # the tests' harness starts the server
    # The runtime unpacks itself once in the real home's cache, not in the server's own HOME.
    os.environ.setdefault("COPILOT_PKG_CACHE_HOME", str(Path.home() / ".cache" / "copilot"))
    chosen = sys.argv[1:] or list(AGENTS)
    if unknown := set(chosen) - set(AGENTS):
        sys.exit(f"No agent {sorted(unknown)}: choose among {', '.join(AGENTS)}")
    asyncio.run(main(chosen))
