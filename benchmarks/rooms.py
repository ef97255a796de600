"""Rooms benchmark: what each active room costs in memory, and how long a sleeping room's agent
takes to wake for a prompt.

    python benchmarks/rooms.py        # about a minute

The server (in process, pytest-jupyter) with the REAL Copilot runtime and the scripted model,
`max_active_rooms = 3`:

- memory: after one finished turn in each of 1, 2, then 3 rooms (main, then rooms created by
  `POST rooms`), the server's RSS (after `gc.collect()` and `malloc_trim`) and, apart, the RSS of
  every runtime process (each room's agent is one, with its children), by psutil;
- resume: prompt submitted -> the reply's first delta in the room's document, RUNS times with the
  agent awake (the prompt right after the last turn) and RUNS times with it asleep (after
  `room_idle_timeout`, here 1 s: the runtime process ended, the next prompt starts it again and
  resumes the session). p50 and max of each.

Not part of the test suite.
"""

from __future__ import annotations

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

from jupyter_copilot_room.agent.scripted_model import Reply
from tests.harness.helpers import READY, eventually, finished, ready, replies

RUNS = 5
MB = 1024 * 1024


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "max_active_rooms": 3, "room_idle_timeout": 0}


def server_rss() -> int:
    gc.collect()
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return psutil.Process().memory_info().rss


def runtime_rss(rooms) -> list[int]:
    """Each running agent's runtime process with its children."""
    sizes = []
    for room in rooms:
        pid = room.agent.connection.pid if room.agent.connection is not None else None
        if pid is None:
            continue
        process = psutil.Process(pid)
        sizes.append(sum(p.memory_info().rss for p in [process, *process.children(True)]))
    return sizes


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
    memory = [(server_rss(), runtime_rss(rooms))]
    for name in ("second", "third"):
        (jp_root_dir / name).mkdir()
        made = await api("alice", "POST", "rooms", body={"name": name, "repository": name})
        assert made.code == 201, made
        rooms.append(room_app.rooms.loaded(name))
        paths.append(("rooms", name))
        await turn(api, rooms[-1], paths[-1], f"hello {name}")
        memory.append((server_rss(), runtime_rss(rooms)))

    awake, asleep = [], []
    for run in range(RUNS):
        awake.append(await turn(api, room, (), f"awake {run}"))
    room.turns.idle_timeout = 1.0  # from the next quiet moment on (config: room_idle_timeout)
    await turn(api, room, (), "from now on, sleep when idle")
    for run in range(RUNS):
        await eventually(
            lambda: room.document.meta.get("state") == "sleeping", timeout=10, what="sleep"
        )
        asleep.append(await turn(api, room, (), f"asleep {run}"))

    print()
    print("Memory with N rooms' agents running (each after one finished turn)")
    base = memory[0][0]
    for count, (rss, runtimes) in enumerate(memory, 1):
        print(
            f"  {count} active: server RSS {rss / MB:7.1f} MB (+{(rss - base) / MB:5.1f} MB over "
            f"1)   runtimes {sum(runtimes) / MB:7.1f} MB "
            f"({', '.join(f'{r / MB:.0f}' for r in runtimes)} MB each)"
        )
    print(f"Prompt submitted -> first delta, {RUNS} runs each")
    for name, values in (("agent awake", awake), ("agent asleep (resumed)", asleep)):
        print(
            f"  {name:<24} p50 {statistics.median(values) * 1000:7.0f} ms   "
            f"max {max(values) * 1000:7.0f} ms"
        )


if __name__ == "__main__":
    from with_pytest import run

    sys.exit(run(__file__))
