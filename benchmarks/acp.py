"""ACP benchmark: what the room adds to an ACP agent's streamed reply.

    python benchmarks/acp.py            # about a minute on 2 cores

One run, one agent: the pinned Copilot runtime as an ACP agent (`copilot --acp`) with the tests'
scripted model, which streams a reply of CHUNKS numbered chunks, DELAY seconds apart. Each chunk
is timed when the model sends it and when it arrives:

1. at a bare ACP client (the `acp` library's, nothing else): the runtime's own latency;
2. in the room's live document (a room in this process with `AcpAgent`, the room's code path from
   the agent's `session/update` to the document's entry, redaction and recording included).

Printed: prompt -> first chunk, and per-chunk latency p50 / p99 / max for both, and the room's
addition (the room's p50 and p99 minus the bare client's). The document's fan-out to browsers is
benchmarks/fanout.py's (p99 per delta to N clients); the room's whole addition is this one's plus
that one's. Timestamps are CLOCK_MONOTONIC. See benchmarks/README.md. Not part of the tests.
"""

from __future__ import annotations

import asyncio
import logging
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


async def through_the_room(spec, work: Path) -> tuple[float, dict[int, float]]:
    """Prompt submitted -> each numbered chunk's arrival in the room's live document."""
    from jupyter_copilot_room.access.admissions import AdmissionBook
    from jupyter_copilot_room.access.identity import Identity
    from jupyter_copilot_room.agent.acp.acp_agent import AcpAgent
    from jupyter_copilot_room.agent.acp.agent_processes import AgentProcesses
    from jupyter_copilot_room.agent.seam import AgentSettings
    from jupyter_copilot_room.request_bodies import PromptBody
    from jupyter_copilot_room.room.room import Room
    from jupyter_copilot_room.settings import RoomSettings, SettingsStore

    state = work / "room-state"
    state.mkdir()
    processes = AgentProcesses(state / "agents", work, logging.getLogger("benchmark"))
    agent = AcpAgent(AgentSettings(repository=work, state_dir=state), spec, processes)
    room = Room(
        state_dir=state,
        repository=work,
        book=AdmissionBook(hosts=frozenset({"alice"})),
        settings=SettingsStore(state / "settings.json", RoomSettings(agent="copilot-acp")),
        agent=agent,
    )
    arrived: dict[int, float] = {}
    stream = room.document.stream

    def streamed(entry_id: str, text: str) -> None:
        """The document's write of a delta, timed once it is in the live document."""
        stream(entry_id, text)
        now = time.monotonic()
        for match in MARK.finditer(text):
            arrived.setdefault(int(match.group(1)), now)

    room.document.stream = streamed  # type: ignore[method-assign]
    await room.ensure_started()
    while room.document.meta.get("state") != "idle":
        await asyncio.sleep(0.05)
    alice = Identity("alice", "Alice", verified=True)
    started = time.monotonic()
    room.prompt_commands.submit(alice, PromptBody(text="go"))
    while len(arrived) < CHUNKS:
        await asyncio.sleep(0.05)
    await room.stop()
    return started, arrived


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
    print("through the room", flush=True)
    room_started, room_arrived = await through_the_room(spec, work)
    await model.stop()
    b = figures(bare_started, bare_arrived, bare_sent)
    r = figures(room_started, room_arrived, sent)
    added_p50, added_p99 = r["p50"] - b["p50"], r["p99"] - b["p99"]
    print()
    print(f"{CHUNKS} chunks, {DELAY * 1000:.0f} ms apart; latency: the model's send -> here")
    for name, f in (("bare ACP client", b), ("room's document", r)):
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
    asyncio.run(main())
