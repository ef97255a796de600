"""Rooms benchmark: what each room costs on the server's one Copilot runtime, how 20 rooms' turns
share it, and how long a room whose session was closed takes to answer.

    python benchmarks/rooms.py        # about 35 s on 2 cores

The server (in process, pytest-jupyter) with the REAL Copilot runtime and the scripted model, no
`max_active_rooms`:

- memory: after one finished turn in each of 1, 5, then 20 rooms (main, then rooms created by
  `POST rooms`), the server's RSS (after `gc.collect()` and `malloc_trim`) and the RSS of the
  runtime processes with their children, by psutil; and how many runtime processes there are;
- 20 rooms' turns at once, 5 at a time (a semaphore): wall time, and each turn's prompt ->
  first delta;
- resume: prompt submitted -> the reply's first delta in a room's document, RUNS times with its
  session open (the prompt right after the last turn) and RUNS times with it closed (after the
  room's idle timeout, here 1 s; the other rooms keep the runtime running, so the next prompt
  resumes the session on it). p50 and max of each.

Not part of the test suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import statistics
import sys
import time
from pathlib import Path

import psutil
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from quick import sized

from jupyter_copilot_room.agent.scripted_model import Reply
from tests.harness.helpers import READY, eventually, finished, ready, replies

RUNS = sized(5, 1)
ROOMS = sized(20, 3)  # rooms in all; memory is also measured at MIDWAY
MIDWAY = sized(5, 2)
MB = 1024 * 1024


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "room_idle_timeout": 0}


def server_rss() -> int:
    gc.collect()
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return psutil.Process().memory_info().rss


def runtimes() -> list[psutil.Process]:
    """The runtime processes this process started (not those a runtime started itself)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "--stdio" in child.cmdline():
                found.append(child)
    pids = {p.pid for p in found}
    return [p for p in found if p.ppid() not in pids]


def runtime_rss() -> int:
    """The runtime processes with their children."""
    return sum(p.memory_info().rss for r in runtimes() for p in [r, *r.children(recursive=True)])


async def turn(api, room, path, text) -> float:
    """Submit a prompt; seconds until its reply's first delta is in the room's document."""
    before = len(replies(room))
    start = time.monotonic()
    made = (await api("alice", "POST", *path, "prompts", body={"text": text})).json

    def first_delta():
        now = replies(room)
        return len(now) > before and bool(now[-1]["body"])

    await eventually(first_delta, timeout=READY, what="the first delta")
    took = time.monotonic() - start
    await eventually(lambda: made["id"] in finished(room), timeout=30, what="the turn's end")
    return took


async def test_rooms(api, room, room_app, model, jp_root_dir):
    model.script = lambda request: Reply("Noted. " * 20, chunk_size=8, delay=0.01)
    await ready(api, room)
    rooms, paths = [room], [()]
    await turn(api, room, (), "hello main")
    memory = {1: (server_rss(), runtime_rss(), len(runtimes()))}
    for n in range(2, ROOMS + 1):
        name = f"room-{n}"
        (jp_root_dir / name).mkdir()
        made = await api("alice", "POST", "rooms", body={"name": name, "repository": name})
        assert made.code == 201, made
        rooms.append(room_app.rooms.loaded(name))
        paths.append(("rooms", name))
        await turn(api, rooms[-1], paths[-1], f"hello {name}")
        if n in (MIDWAY, ROOMS):
            memory[n] = (server_rss(), runtime_rss(), len(runtimes()))

    five = asyncio.Semaphore(5)

    async def limited(r, path, text):
        async with five:
            return await turn(api, r, path, text)

    start = time.monotonic()
    together = await asyncio.gather(
        *(limited(r, path, "all at once") for r, path in zip(rooms, paths, strict=True))
    )
    wall = time.monotonic() - start

    sleeper, path = rooms[1], paths[1]
    awake, asleep = [], []
    for run in range(RUNS):
        awake.append(await turn(api, sleeper, path, f"awake {run}"))
    sleeper.turns.life.idle_timeout = (
        1.0  # from the next quiet moment on (config: room_idle_timeout)
    )
    await turn(api, sleeper, path, "from now on, sleep when idle")
    for run in range(RUNS):
        await eventually(
            lambda: sleeper.document.meta.get("state") == "sleeping", timeout=10, what="sleep"
        )
        asleep.append(await turn(api, sleeper, path, f"asleep {run}"))
    assert len(runtimes()) == 1

    print()
    print("Memory with N rooms, each after one finished turn")
    server_1, runtime_1, _ = memory[1]
    for count, (rss, runtime, processes) in memory.items():
        extra = (rss + runtime - server_1 - runtime_1) / max(count - 1, 1) / MB
        print(
            f"  {count:2} rooms: server RSS {rss / MB:7.1f} MB   runtime {runtime / MB:7.1f} MB "
            f"({processes} process{'es' if processes != 1 else ''})   "
            + (f"+{extra:5.1f} MB per room beyond the first" if count > 1 else "")
        )
    print(
        f"{len(rooms)} rooms' turns at once, 5 at a time: {wall:5.1f} s wall; prompt -> first "
        f"delta p50 {statistics.median(together) * 1000:6.0f} ms, "
        f"max {max(together) * 1000:6.0f} ms"
    )
    print(f"Prompt submitted -> first delta in one room, {RUNS} runs each")
    for name, values in (("session open", awake), ("session closed (resumed)", asleep)):
        print(
            f"  {name:<26} p50 {statistics.median(values) * 1000:7.0f} ms   "
            f"max {max(values) * 1000:7.0f} ms"
        )


if __name__ == "__main__":
    from with_pytest import run

    sys.exit(run(__file__))
