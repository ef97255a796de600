"""History benchmark: restart, memory, compaction, late join and paging of long transcripts.

    python benchmarks/history.py            # about 3 minutes on 2 cores

For 10,000- and 100,000-entry transcripts (written as `fanout.write_transcript` does), prints
with the target beside each: restart-to-serving time and the longest event-loop stall (a ticker
task sleeping 5 ms on the room's loop, the largest gap between its wake-ups) from a valid
snapshot and without one (a full rebuild), the package imported first as a server does when it
loads the extension (the import's own time is printed apart); the room's memory after a restart
from the snapshot in a fresh process against the window's JSONL size and against pycrdt's own
Doc of that window; the longest stall while the served document is compacted; a history page's
latency; and the late join of the 100,000-entry room, served by a real server (fanout.py's
subprocess). See benchmarks/README.md.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fanout import Server, late_join, settled_rss, write_transcript
from quick import sized

SIZES = sized((10_000, 100_000), (1_000,))
WINDOW = sized(None, 100)  # the room's document_window (None: the room's default)
PAGES = sized(20, 3)  # history pages timed after the first
TICK = 0.005
RECORD_EVERY = 0.001  # seconds between records while measuring a compaction's stall
TARGET_RESTART = dict(zip(SIZES, (1.0, 3.0)))  # noqa: B905 (one size when quick)
TARGET_STALL, TARGET_MEMORY, TARGET_JOIN = 0.100, 3.0, 0.300
TARGET_OVER_DOC = 1.5  # the room's memory against pycrdt's own Doc of its window


def import_room() -> float:
    """Import what a room needs (a server does it when it loads the extension, before its loop
    serves anything); the seconds it took."""
    started = time.perf_counter()
    import jupyter_copilot_room.room.room  # noqa: F401 (the settings and admissions with it)

    return time.perf_counter() - started


def make_room(state: Path):
    from jupyter_copilot_room.access.admissions import AdmissionBook
    from jupyter_copilot_room.room.room import Room
    from jupyter_copilot_room.room.room_spec import RoomSpec
    from jupyter_copilot_room.settings import RoomSettings, SettingsStore

    window = {} if WINDOW is None else {"document_window": WINDOW}
    return Room(
        RoomSpec(state, **window),
        book=AdmissionBook(hosts=frozenset({"alice"})),
        settings=SettingsStore(state / "settings.json", RoomSettings()),
    )


class Stalls:
    """The longest event-loop stall while it runs: a ticker task on the loop sleeps `TICK` at a
    time, and the largest delay of a wake-up past that is the stall."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task | None = None

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(TICK)
            now = loop.time()
            self.longest = max(self.longest, now - last - TICK)
            last = now

    async def __aenter__(self) -> Stalls:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(TICK * 2)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def timed_start(state: Path) -> tuple[object, float, float]:
    """Start a room on `state`: (room, seconds, longest stall)."""
    async with Stalls() as stalls:
        started = time.perf_counter()
        room = make_room(state)
        await room.ensure_started()
        seconds = time.perf_counter() - started
    return room, seconds, stalls.longest


async def restart_growth(state: str) -> int:
    """RSS growth (gc + trim) of a room's restart from the snapshot in `state`, the package
    imported first; run in a fresh process, where nothing freed before can be reused (in the
    process that had rebuilt the room the figure once came out negative)."""
    import_room()
    before = settled_rss()
    room = make_room(Path(state))
    await room.ensure_started()
    growth = settled_rss() - before
    await room.stop()
    return growth


def fresh_process(*args: str) -> int:
    """The number this script prints when run with `args`, in a process of its own."""
    import subprocess

    out = subprocess.run(
        [sys.executable, __file__, *args], check=True, capture_output=True, text=True
    )
    return int(out.stdout.strip().splitlines()[-1])


def finished_turns(first_seq: int, turns: int):
    """(record, payload) of `turns` finished turns (a prompt and an answer each), as
    `fanout.write_transcript` writes them, numbered from `first_seq`."""
    from jupyter_copilot_room.events import (
        AssistantMessage,
        PromptFinished,
        PromptRef,
        PromptSubmitted,
        Record,
    )

    seq = first_seq
    for i in range(turns):
        prompt_id = f"more-{i:05d}"
        answer = " ".join(["the agent edits a cell"] * (12 + i % 40))
        for kind, actor, payload in (
            ("prompt.submitted", "alice", PromptSubmitted(id=prompt_id, text=f"prompt {i}")),
            ("prompt.started", "alice", PromptRef(id=prompt_id)),
            (
                "assistant.message",
                None,
                AssistantMessage(entry_id=f"answer-more-{i:05d}", prompt_id=prompt_id, text=answer),
            ),
            ("prompt.finished", None, PromptFinished(id=prompt_id, state="completed")),
        ):
            data = payload.model_dump(mode="json", exclude_none=True)
            yield Record(seq=seq, ts=2e9 + seq, kind=kind, actor=actor, payload=data), payload
            seq += 1


async def compaction_stall(room) -> tuple[float, int]:
    """(longest stall, compactions) while a document like the room's (its window, loaded from
    its state) takes new entries, a record every `RECORD_EVERY`, until it was compacted twice
    (a window of evictions each)."""
    from jupyter_copilot_room.room.live.document import RoomDocument

    compacted: list[object] = []
    document = RoomDocument(room.document.window, on_compacted=compacted.append)
    await document.load(room.document.ydoc.get_update())
    records = finished_turns(room.transcript.position().seq + 1, 5 * room.document.window)
    async with Stalls() as stalls:
        for record, payload in records:
            document.apply(record, payload)
            # A record a millisecond, far more than a busy room writes. Back to back with only
            # sleep(0) between them the loop never waits, keeps the GIL and starves the worker
            # thread building the compacted Doc: no compaction finished in 20,000 records.
            await asyncio.sleep(RECORD_EVERY)
            if len(compacted) >= 2:
                break
    return stalls.longest, len(compacted)


#: How the window's entries could be held in a pycrdt Doc: as the room does (a `Map` per entry,
#: its body a `Text`, so a streamed reply grows in place), as plain values (one item per entry),
#: as one JSON string per entry, or (issue 42) finished entries as plain values and only those
#: that can still change as Maps. Only the first and the last keep the document's contract with
#: clients (an entry's fields and a reply's `Text` change in place while it can change at all).
LAYOUTS = sized(
    ("maps", "plain values", "JSON strings", "finished as values"), ("maps", "finished as values")
)


def still_changing(state: dict) -> set[str]:
    """Ids of the entries the room may still change, by the rule its eviction follows (an
    evicted entry is final, `RoomDocument._evict`): its turn running, a row open (a tool, a
    sub-agent, a streaming reply), a request pending."""
    from jupyter_copilot_room.room.live.document_build import open_rows_of, turn_of

    open_rows, running = open_rows_of(state["transcript"])
    return {
        e["id"]
        for e in state["transcript"]
        if turn_of(e) in running or e["id"] in open_rows or e["id"] in state["approvals"]
    }


def layout_growth(layout: str, plain_path: str) -> int:
    """RSS growth (after gc + trim) of building only a Doc of the window's entries in `layout`,
    from the room's plain state in `plain_path`; run in a fresh process per layout."""
    from pycrdt import Array, Doc

    from jupyter_copilot_room.room.live.document_build import entry_map

    state = json.loads(Path(plain_path).read_text())
    entries, changing = state["transcript"], still_changing(state)
    del state
    before = settled_rss()
    doc = Doc()
    if layout == "maps":
        items = [entry_map(e) for e in entries]
    elif layout == "finished as values":
        items = [entry_map(e) if e["id"] in changing else e for e in entries]
    elif layout == "plain values":
        items = entries
    else:
        items = [json.dumps(e) for e in entries]
    with doc.transaction():
        doc.get("transcript", type=Array).extend(items)
    del entries, items
    return settled_rss() - before


def layouts_memory(room, work: Path, layouts=LAYOUTS) -> dict[str, int]:
    """`layout_growth` of each of `layouts` for the room's window, each in its own process."""
    plain_path = work / "window.json"
    plain_path.write_text(json.dumps(room.document.plain()))
    return {layout: fresh_process("--layout", layout, str(plain_path)) for layout in layouts}


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
    await room.history_commands.history_page(
        alice, oldest, 100
    )  # the first builds the archive's index
    cold = time.perf_counter() - started
    warm = []
    for k in range(PAGES):
        started = time.perf_counter()
        page = await room.history_commands.history_page(alice, oldest - 37 * k, 100)
        warm.append(time.perf_counter() - started)
        assert len(page["entries"]) == 100
    return cold, statistics.median(warm)


def mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


async def main() -> None:
    imports = import_room()
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
            room, full_s, full_stall = await timed_start(state)
            await room.stop()  # writes the snapshot
            del room
            print(f"[{size:,}] restart from the snapshot", flush=True)
            room, snap_s, snap_stall = await timed_start(state)
            window = window_bytes(room)
            cold, warm = await page_latency(room)
            if size == SIZES[0]:
                print(f"[{size:,}] compactions while serving", flush=True)
                compaction = await compaction_stall(room)
                print(f"[{size:,}] the window's Doc alone, by layout", flush=True)
                layouts = layouts_memory(room, work)
                changing = len(still_changing(room.document.plain()))
                doc_alone = layouts["maps"]
            else:
                doc_alone = layouts_memory(room, work, ("maps",))["maps"]
            await room.stop()
            del room
            print(f"[{size:,}] memory of a restart from the snapshot, in a fresh process")
            growth = fresh_process("--restart", str(state))
            rows.append((size, jsonl, full_s, full_stall, snap_s, snap_stall, growth, window))
            rows[-1] += (doc_alone, cold, warm)

        print(f"[late join] a real server on the {SIZES[-1]:,}-entry room (from its snapshot)")
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
    print(
        "Restart to serving (room.ensure_started) and the longest event-loop stall, the package "
        f"imported beforehand (as a server does when it loads the extension: {imports:.2f} s here, "
        "the loop blocked meanwhile)"
    )
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
            f"{full_stall * 1000:5.0f} ms (target < 100 ms, {mark(full_stall < TARGET_STALL)})"
        )
    stall, compactions = compaction
    print(
        f"  compaction while serving (the window's document rebuilt, {compactions} times): "
        f"longest stall {stall * 1000:.0f} ms (target < 100 ms, {mark(stall < TARGET_STALL)})"
    )
    print()
    print(
        "Server memory for the room after a restart from the snapshot, in a fresh process (RSS "
        "growth, gc + trim), against the window's JSONL and pycrdt's Doc of the window alone"
    )
    for size, *_, growth, window, doc_alone, _cold, _warm in rows:
        ratio, over_doc = growth / window, growth / doc_alone
        print(
            f"  {size:>7,} entries: {growth / 2**20:5.1f} MB for a window whose JSONL is "
            f"{window / 2**20:.1f} MB: {ratio:.1f}x (target <= 3x, "
            f"{mark(ratio <= TARGET_MEMORY)}); "
            f"the Doc alone {doc_alone / 2**20:.1f} MB: {over_doc:.2f}x "
            f"(target <= {TARGET_OVER_DOC}x, {mark(over_doc <= TARGET_OVER_DOC)})"
        )
    window = rows[0][7]
    print(f"  pycrdt's Doc of the {SIZES[0]:,}-entry room's window alone, in a fresh process:")
    for layout, growth in layouts.items():
        print(f"    {layout:<18} {growth / 2**20:5.1f} MB: {growth / window:.1f}x")
    # What the room adds to its Doc (indexes, the restart's leftovers), unchanged on another Doc.
    # The Maps' Python side is in both figures: the layout's freed wrappers stay in the heap.
    estimate = rows[0][6] - layouts["maps"] + layouts["finished as values"]
    print(
        f"  the room with finished entries as values ({changing} of its window's entries can still "
        "change), estimated as its restart's growth less the maps Doc plus the finished-as-values "
        f"Doc: {estimate / 2**20:.1f} MB: {estimate / window:.1f}x "
        f"(target <= 3x, {mark(estimate / window <= TARGET_MEMORY)})"
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
    if sys.argv[1:2] == ["--layout"]:
        print(layout_growth(sys.argv[2], sys.argv[3]))
    elif sys.argv[1:2] == ["--restart"]:
        print(asyncio.run(restart_growth(sys.argv[2])))
    else:
        asyncio.run(main())
