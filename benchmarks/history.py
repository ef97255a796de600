"""History benchmark: restart, memory, late join and paging of rooms with long transcripts.

    python benchmarks/history.py            # about 3 minutes on 2 cores

For 10,000- and 100,000-entry transcripts (written as `fanout.write_transcript` does), prints
with the target beside each: restart-to-serving time and the longest event-loop stall (a ticker
task sleeping 5 ms on the room's loop, the largest gap between its wake-ups) from a valid
snapshot and, for information, without one (a full rebuild); the room's memory against the
window's JSONL size; a history page's latency; and the late join of the 100,000-entry room,
served by a real server (fanout.py's subprocess). See benchmarks/README.md.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fanout import Server, late_join, settled_rss, write_transcript

SIZES = (10_000, 100_000)
TICK = 0.005
TARGET_RESTART = {10_000: 1.0, 100_000: 3.0}
TARGET_STALL, TARGET_MEMORY, TARGET_JOIN = 0.100, 3.0, 0.300


def make_room(state: Path):
    from jupyter_copilot_room.access.admissions import AdmissionBook
    from jupyter_copilot_room.room.room import Room
    from jupyter_copilot_room.settings import RoomSettings, SettingsStore

    return Room(
        state_dir=state,
        book=AdmissionBook(hosts=frozenset({"alice"})),
        settings=SettingsStore(state / "settings.json", RoomSettings()),
    )


async def timed_start(state: Path) -> tuple[object, float, float, int]:
    """Start a room on `state`: (room, seconds, longest stall, RSS growth after start)."""
    loop = asyncio.get_running_loop()
    gaps = [0.0]

    async def tick() -> None:
        last = loop.time()
        while True:
            await asyncio.sleep(TICK)
            now = loop.time()
            gaps.append(now - last - TICK)
            last = now

    before = settled_rss()
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(TICK * 2)
    started = time.perf_counter()
    room = make_room(state)
    await room.ensure_started()
    seconds = time.perf_counter() - started
    ticker.cancel()
    return room, seconds, max(gaps), settled_rss() - before


def window_bytes(room) -> int:
    """Bytes of the transcript records from the one that created the window's oldest entry."""
    oldest = int(room.document.transcript[0]["seq"])
    total = 0
    with open(room.transcript.path, "rb") as f:
        for line in f:
            if line.startswith(b'{"seq":') and int(line[7 : line.index(b",")]) >= oldest:
                total += len(line)
    return total


async def page_latency(room) -> tuple[float, float]:
    from jupyter_copilot_room.access.identity import Identity

    alice = Identity("alice", "Alice", verified=True)
    oldest = int(room.document.transcript[0]["seq"])
    started = time.perf_counter()
    await room.history_page(alice, oldest, 100)  # the first builds the archive's index
    cold = time.perf_counter() - started
    warm = []
    for k in range(20):
        started = time.perf_counter()
        page = await room.history_page(alice, oldest - 37 * k, 100)
        warm.append(time.perf_counter() - started)
        assert len(page["entries"]) == 100
    return cold, statistics.median(warm)


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


async def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="copilot-room-history-"))
    rows = []
    try:
        for size in SIZES:
            state = work / f"state-{size}"
            state.mkdir()
            print(f"[{size:,}] writing the transcript", flush=True)
            write_transcript(state / "transcript.jsonl", size)
            jsonl = (state / "transcript.jsonl").stat().st_size
            print(f"[{size:,}] full rebuild (no snapshot)", flush=True)
            room, full_s, full_stall, _ = await timed_start(state)
            await room.stop()  # writes the snapshot
            del room
            print(f"[{size:,}] restart from the snapshot", flush=True)
            room, snap_s, snap_stall, growth = await timed_start(state)
            window = window_bytes(room)
            cold, warm = await page_latency(room)
            await room.stop()
            del room
            rows.append((size, jsonl, full_s, full_stall, snap_s, snap_stall, growth, window))
            rows[-1] += (cold, warm)

        print("[late join] a real server on the 100,000-entry room (restarts from its snapshot)")
        big = work / f"state-{SIZES[-1]}"
        for name in ("data", "runtime", "root"):
            (work / name).mkdir(exist_ok=True)
        server = Server(work, work / "root", big)
        await server.start()
        try:
            joins = await late_join(server)
        finally:
            await server.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print()
    print("Restart to serving (room.ensure_started) and the longest event-loop stall")
    for size, jsonl, full_s, full_stall, snap_s, snap_stall, *_ in rows:
        target = TARGET_RESTART[size]
        print(f"  {size:>7,} entries ({jsonl / 2**20:.0f} MB JSONL)")
        print(
            f"    from the snapshot: {snap_s:6.2f} s (target < {target:.0f} s, "
            f"{mark(snap_s < target)}), longest stall {snap_stall * 1000:5.0f} ms "
            f"(target < 100 ms, {mark(snap_stall < TARGET_STALL)})"
        )
        print(
            f"    full rebuild:      {full_s:6.2f} s (for information), longest stall "
            f"{full_stall * 1000:5.0f} ms ({mark(full_stall < TARGET_STALL)})"
        )
    print()
    print("Server memory for the room after a restart from the snapshot (RSS growth, gc + trim)")
    for size, *_, growth, window, _cold, _warm in rows:
        ratio = growth / window
        print(
            f"  {size:>7,} entries: {growth / 2**20:5.1f} MB for a window whose JSONL is "
            f"{window / 2**20:.1f} MB: {ratio:.1f}x (target <= 3x, {mark(ratio <= TARGET_MEMORY)})"
        )
    print()
    print("History page of 100 entries (GET history's work, in process)")
    for size, *_, cold, warm in rows:
        print(
            f"  {size:>7,} entries: first {cold * 1000:.1f} ms (builds the index), then "
            f"median {warm * 1000:.1f} ms"
        )
    print()
    times = joins["times"]
    print(
        f"Late join of the {SIZES[-1]:,}-entry room: median {statistics.median(times) * 1:.0f} ms, "
        f"max {times[-1]:.0f} ms (target < 300 ms, {mark(times[-1] < TARGET_JOIN * 1000)}); "
        f"sync message {joins['sync_bytes'] / 2**20:.2f} MB"
    )


if __name__ == "__main__":
    asyncio.run(main())
