"""Checkpoints benchmark: what a turn's start snapshot costs, and what it adds to the time from a
prompt starting to the agent getting it.

    python benchmarks/checkpoints.py        # about 30 s on 2 cores

A git repository of 2,000 files (200 folders of 10 files, 1-4 KB each, committed) in a
temporary directory, one file changed between runs as an agent would. Prints p50/p99 of:
the worktree snapshot alone (`git add -A` into the checkpoints' index, then `write-tree`), and
`prompt.started` -> `Agent.send` for a room whose agent ends each turn at once, with
checkpoints and without (the room's `Turns.checkpoints` set to None). See benchmarks/README.md.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent))

from quick import sized

from jupyter_copilot_room.access.admissions import AdmissionBook
from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.agent.seam import Agent, AgentSettings, AgentTurn
from jupyter_copilot_room.checkpoints.turn_checkpoints import Checkpoints
from jupyter_copilot_room.events import AgentStatus, TurnEnded
from jupyter_copilot_room.request_bodies import PromptBody
from jupyter_copilot_room.room.room import Room
from jupyter_copilot_room.room.room_spec import RoomSpec
from jupyter_copilot_room.settings import RoomSettings, SettingsStore

FOLDERS, FILES = sized(200, 10), 10
RUNS = sized(60, 5)
WARMUP = sized(5, 1)


def make_repository(root: Path) -> None:
    for folder in range(FOLDERS):
        (root / f"pkg{folder:03}").mkdir(parents=True)
        for n in range(FILES):
            lines = 20 + (folder * FILES + n) % 60
            text = "".join(f"line {i} of module {folder}.{n}\n" for i in range(lines))
            (root / f"pkg{folder:03}" / f"mod{n}.py").write_text(text)
    git = ["git", "-c", "user.name=B", "-c", "user.email=b@x"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=root, check=True)


def touch(root: Path, run: int) -> None:
    """One file changed, as the agent's last turn would leave it."""
    path = root / f"pkg{run % FOLDERS:03}" / "mod0.py"
    path.write_text(path.read_text() + f"# run {run}\n")


class Sent(Agent):
    """Notes when each turn reaches it and ends the turn at once."""

    label = "bench"

    def __init__(self, settings: AgentSettings):
        super().__init__(settings)
        self.reached: dict[str, float] = {}

    async def start(self, host) -> None:
        self.host = host
        await host.publish(AgentStatus(state="ready", label=self.label))

    async def send(self, turn: AgentTurn) -> None:
        self.reached[turn.prompt_id] = time.perf_counter()
        asyncio.get_running_loop().call_soon(
            lambda: asyncio.ensure_future(self.host.publish(TurnEnded()))
        )

    async def steer(self, author: str, text: str) -> None: ...

    async def models(self) -> list[str]:
        return []

    async def use_model(self, model: str) -> None: ...

    async def abort(self) -> None: ...

    async def restart(self) -> None: ...

    async def stop(self) -> None: ...


def quantiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered), p99


async def snapshots(root: Path, state: Path) -> list[float]:
    checkpoints = Checkpoints(root, state)
    took = []
    for run in range(WARMUP + RUNS):
        touch(root, run)
        start = time.perf_counter()
        await checkpoints._snapshot()
        if run >= WARMUP:
            took.append(time.perf_counter() - start)
    return took


async def prompt_to_send(root: Path, state: Path, with_checkpoints: bool) -> list[float]:
    state.mkdir(parents=True)
    agent = Sent(AgentSettings(repository=root, state_dir=state))
    room = Room(
        RoomSpec(state, root),
        book=AdmissionBook(hosts=frozenset({"alice"})),
        settings=SettingsStore(state / "settings.json", RoomSettings()),
        agent=agent,
    )
    if not with_checkpoints:
        room.turns.checkpoints = None
    started: dict[str, float] = {}
    room.recorder.listen(
        lambda record: (
            record.kind == "prompt.started"
            and started.setdefault(record.payload["id"], time.perf_counter())
        )
    )
    await room.ensure_started()
    alice = Identity("alice", "Alice", True)
    took = []
    try:
        for run in range(WARMUP + RUNS):
            touch(root, run)
            prompt_id, _ = room.prompt_commands.submit(
                alice, PromptBody(text=f"change something, run {run}")
            )
            while prompt_id not in agent.reached or room.turns.queue.in_flight is not None:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.05)  # the turn's end snapshot and checkpoint
            if run >= WARMUP:
                took.append(agent.reached[prompt_id] - started[prompt_id])
    finally:
        await room.stop()
    return took


def line(label: str, values: list[float]) -> str:
    p50, p99 = quantiles(values)
    return f"  {label:<40} p50 {p50 * 1000:7.1f} ms   p99 {p99 * 1000:7.1f} ms"


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, state = Path(tmp) / "repo", Path(tmp) / "state"
        make_repository(root)
        files = FOLDERS * FILES
        print(f"Checkpoints: a repository of {files} files, {RUNS} runs each")
        print(line("worktree snapshot (git add -A, write-tree)", await snapshots(root, state)))
        with_them = await prompt_to_send(root, Path(tmp) / "state-with", True)
        without = await prompt_to_send(root, Path(tmp) / "state-without", False)
        print(line("prompt.started -> agent.send, checkpoints", with_them))
        print(line("prompt.started -> agent.send, without", without))


if __name__ == "__main__":
    asyncio.run(main())
