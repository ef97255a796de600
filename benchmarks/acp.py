"""ACP benchmark: what the room adds to an ACP agent's streamed reply.

    python benchmarks/acp.py            # about a minute on 2 cores

One run, one agent: the pinned Copilot runtime as an ACP agent (`copilot --acp`) with the tests'
scripted model, which streams a reply of CHUNKS numbered chunks, DELAY seconds apart. Each chunk
is timed when the model sends it and when it arrives:

1. at a bare ACP client (the `acp` library's, nothing else): the runtime's own latency;
2. at two people's clients of the room: a Jupyter server with the room in its own process, the
   same agent its agent, and two Yjs clients of its document over the websocket in this process
   (the agent's `session/update` -> the room's document, redaction and recording -> both
   clients' copies).

Printed: prompt -> first chunk, and per-chunk latency p50 / p99 / max for the bare client and
each person, and the room's addition (the later person's p50 and p99 minus the bare client's).
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
from pathlib import Path

CHUNKS = 200
DELAY = 0.01  # seconds between the model's chunks
TARGET_ADDED_P99 = 0.005
MARK = re.compile(r"c(\d{3}) ")


def reply_text() -> str:
    return "".join(f"c{n:03d} " for n in range(CHUNKS))  # 5 characters a chunk


def model_with_send_times():
    """The scripted model, each content chunk's send time noted by its number."""
    from jupyter_copilot_room.agent import scripted_model
    from jupyter_copilot_room.agent.scripted_model import Reply, ScriptedModelServer

    sent: dict[int, float] = {}
    send = scripted_model._Completions._send

    async def noted(self, chunk: dict) -> None:
        await send(self, chunk)
        delta = chunk.get("choices", [{}])[0].get("delta", {})
        if match := MARK.fullmatch(delta.get("content") or ""):
            sent.setdefault(int(match.group(1)), time.monotonic())

    scripted_model._Completions._send = noted  # type: ignore[method-assign]
    server = ScriptedModelServer(lambda request: Reply(reply_text(), chunk_size=5, delay=DELAY))
    server.start()
    return server, sent


def agent_spec(base_url: str):
    from jupyter_copilot_room.agent.acp.agent_spec import AcpAgentSpec
    from jupyter_copilot_room.agent.runtime import find_runtime

    env = {
        "COPILOT_PROVIDER_BASE_URL": base_url,
        "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "bench",
        "COPILOT_MODEL": "scripted-model",
        "COPILOT_OFFLINE": "true",
    }
    return AcpAgentSpec("copilot-acp", (find_runtime().path, "--acp"), "Copilot over ACP", env)


async def bare(spec, work: Path) -> tuple[float, dict[int, float]]:
    """Prompt sent -> each numbered chunk's arrival at a bare ACP client."""
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

    home = work / "bare-home"
    home.mkdir()
    env = spec.environment(os.environ, home)
    async with acp.spawn_agent_process(Client(), *spec.command, env=env, cwd=work) as (conn, _):
        await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(work), mcp_servers=[])
        started = time.monotonic()
        await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("[alice]: go")])
    return started, arrived


async def through_the_room(base_url: str, work: Path) -> tuple[float, list[dict[int, float]]]:
    """Prompt submitted -> each numbered chunk's arrival at each of two people's clients: a
    Jupyter server with the room (its own process, `copilot --acp` its agent), and two Yjs
    clients of the room's document over its websocket, in this process (one clock with the
    model's)."""
    from jupyter_copilot_room.agent.acp.agent_spec import AcpAgentSpec
    from tests.harness import config, people
    from tests.harness.server import JupyterServer

    spec = agent_spec(base_url)
    assert isinstance(spec, AcpAgentSpec)
    server = JupyterServer(
        work / "server",
        room={
            "default_agent": spec.name,
            "agents": {
                spec.name: {"acp": list(spec.command), "title": spec.title, "env": dict(spec.env)}
            },
        },
        env={config.ACP_KEY_ENV: config.MODEL_KEY},
    )
    await server.start_async()
    try:
        while (await server.room())["agent"].get("state") != "idle":
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
        await asyncio.sleep(1)
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


async def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="copilot-room-acp-"))
    model, sent = model_with_send_times()
    spec = agent_spec(model.base_url)
    print("bare ACP client", flush=True)
    bare_started, bare_arrived = await bare(spec, work)
    bare_sent = dict(sent)
    sent.clear()
    print("through the room, to two people's clients", flush=True)
    room_started, room_arrivals = await through_the_room(model.base_url, work)
    await model.stop()
    b = figures(bare_started, bare_arrived, bare_sent)
    people = [figures(room_started, arrived, sent) for arrived in room_arrivals]
    r = max(people, key=lambda f: f["p99"])  # the later of the two
    added_p50, added_p99 = r["p50"] - b["p50"], r["p99"] - b["p99"]
    print()
    print(f"{CHUNKS} chunks, {DELAY * 1000:.0f} ms apart; latency: the model's send -> here")
    looks = [("bare ACP client", b), ("room: host", people[0]), ("room: member", people[1])]
    for name, f in looks:
        print(
            f"  {name:16} first chunk {f['first'] * 1000:7.1f} ms after the prompt;"
            f" per chunk p50 {f['p50'] * 1000:5.2f} ms, p99 {f['p99'] * 1000:5.2f} ms,"
            f" max {f['max'] * 1000:5.2f} ms"
        )
    print(
        f"  the room adds per chunk: p50 {added_p50 * 1000:5.2f} ms, p99 {added_p99 * 1000:5.2f} ms"
        f" (target <= {TARGET_ADDED_P99 * 1000:.0f} ms: "
        f"{'ok' if added_p99 <= TARGET_ADDED_P99 else 'MISSED'})"
    )


if __name__ == "__main__":
    # This file's folder first on the path would make `import acp` this file, not the library.
    here = Path(__file__).parent.resolve()
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    sys.path.insert(0, str(here.parent))  # the tests' harness starts the server
    # The runtime unpacks itself once in the real home's cache, not in the server's own HOME.
    os.environ.setdefault("COPILOT_PKG_CACHE_HOME", str(Path.home() / ".cache" / "copilot"))
    asyncio.run(main())
