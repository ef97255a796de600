"""Fan-out benchmark of the room document, against jupyter-collaboration's own broadcast.

    python benchmarks/fanout.py            # the whole run, about a minute

Prints, from one run:

1. streamed-delta latency (server write -> applied in each client's doc), N = 1, 10, 50 clients,
   p50 / p99 / max in ms, for the room and for a jupyter-collaboration text-file room;
2. bytes a client receives for one delta;
3. the room/jupyter-collaboration latency ratio per N;
4. late-join time and server memory for a 10,000-entry transcript.

The server runs in a subprocess (this same file with `--serve`), the websocket clients in this
process, so client-side decoding does not steal the server's event loop. Timestamps on both sides
are CLOCK_MONOTONIC, which is shared by all processes of the machine. See benchmarks/README.md.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import logging
import math
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

from quick import sized

TOKEN = "fanout-bench-token"
ENTRY_ID = "bench-stream"
COLLAB_FILE = "bench.txt"
DELTA_LEN = 16  # every delta is "some text NNNNN " (16 characters), so length says which arrived
CLIENT_COUNTS = sized((1, 10, 50), (10,))
INTERVAL = {1: 0.010, 10: 0.015, 50: 0.030}  # spacing between deltas, seconds (no pile-up)
BLOCK = sized(100, 10)  # deltas per measured block; each target gets BLOCKS blocks, interleaved
BLOCKS = sized(3, 1)
WARMUP = sized(20, 2)
LATE_ENTRIES = sized(10_000, 200)
LATE_JOINS = sized(5, 1)
MARK_START, MARK_STOP = "=== bench server serving ===", "=== bench server stopping ==="


def now_ns() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def delta_text(k: int) -> str:
    return f"some text {k % 100_000:05d} "


# ================================================================================================
# server side (subprocess): a ServerApp with both extensions, plus a tiny unauthenticated control
# API on 127.0.0.1 under /bench/ that this benchmark alone uses
# ================================================================================================


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def malloc_split() -> dict[str, int]:
    """glibc's own account of its heap over all its arenas (`mallinfo2`): bytes handed out
    (`in_use`: native code's, pycrdt's, and Python objects over 512 bytes; Python's small
    objects live in its own mmap'd arenas) and bytes freed but kept (`kept`, what fragmentation
    holds). Empty where the C library is not glibc >= 2.33."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
    except (OSError, AttributeError):
        return {}
    info = libc.mallinfo2()
    return {"in_use": info.uordblks + info.hblkhd, "kept": info.fordblks}


def rss_split() -> dict[str, int]:
    """The resident memory by kind (`/proc/self/status`): anonymous (heaps, stacks, Python's
    arenas) and file-backed (code and data of the loaded libraries, mapped files)."""
    split = {}
    with open("/proc/self/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("RssAnon", "RssFile"):
                split[name.removeprefix("Rss").lower()] = int(value.split()[0]) * 1024
    return split


def settled_rss() -> int:
    """RSS after a full collection and giving freed heap back to the OS (what stays live)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_bytes()


async def serve(opts: argparse.Namespace, configure=None, extend=None) -> None:
    """The server; `configure(c)` may change its config, `extend(app, room)` add routes (the load
    benchmark's, `load.py`)."""
    from jupyter_server.serverapp import ServerApp
    from pycrdt import Text
    from tornado import web
    from traitlets.config import Config

    from jupyter_copilot_room.events import AssistantStarted, Record
    from jupyter_copilot_room.room.live.document import RoomDocument

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    print(MARK_START, file=sys.stderr, flush=True)
    work = Path(opts.work)
    c = Config()
    c.ServerApp.jpserver_extensions = {
        "jupyter_server_fileid": True,
        "jupyter_server_ydoc": True,
        "jupyter_copilot_room": True,
    }
    c.ServerApp.ip = "127.0.0.1"
    c.ServerApp.port = opts.port
    c.ServerApp.port_retries = 0
    c.ServerApp.open_browser = False
    c.ServerApp.allow_root = True
    c.ServerApp.root_dir = opts.root
    c.ServerApp.log_level = "WARN"
    c.IdentityProvider.token = TOKEN
    c.CopilotRoom.state_dir = opts.state
    c.CopilotRoom.guest_admission = "viewer"
    c.CopilotRoom.hosts = ["bench-host"]  # someone is host, so no claim link is printed
    c.CopilotRoom.agent_class = None  # fan-out and replay only: no runtime in the way
    c.BaseFileIdManager.db_path = str(work / "file_id_manager.db")
    c.SQLiteYStore.db_path = str(work / "ystore.db")
    c.YDocExtension.session_store_path = str(work / "collaboration_sessions.json")
    if configure is not None:
        configure(c)

    app = ServerApp.instance(config=c)
    app.initialize(argv=[])
    app.start_app()
    copilot = app.extension_manager.extension_points["jupyter_copilot_room"].app
    room = copilot.room

    # The room starts lazily; start it here (the start hook would do the same a moment later) to
    # time the transcript replay and see what it costs in memory.
    rss_before = settled_rss()
    started = time.perf_counter()
    await room.ensure_started()
    rebuild_s = time.perf_counter() - started
    rss_after = settled_rss()
    await app._post_start()  # the other extensions' start hooks; the room's is a no-op now
    entries = len(room.document.transcript)
    info = {
        "entries": entries,
        "rebuild_s": rebuild_s,
        "rss_before": rss_before,
        "rss_growth": rss_after - rss_before,
        "rss": rss_after,
        "state_bytes": len(room.document.ydoc.get_update()),
        "transcript_bytes": room.transcript.path.stat().st_size,
    }
    if opts.measure_doc and entries:
        # The document alone: replay the same records into a second RoomDocument and see how much
        # that adds (records parsed first, so they are not counted).
        lines = room.transcript.path.read_bytes().splitlines()
        records = [Record.model_validate_json(line) for line in lines if line.strip()]
        parsed = [(record, record.parsed()) for record in records]
        base = settled_rss()
        twin = RoomDocument()
        for record, payload in parsed:
            twin.apply(record, payload)
        info["doc_rss"] = settled_rss() - base
        assert len(twin.transcript) == entries
        del twin, records, lines
        settled_rss()

    stopping = asyncio.Event()

    class Control(web.RequestHandler):
        def check_xsrf_cookie(self) -> None:
            pass

        async def post(self, action: str) -> None:
            body = json.loads(self.request.body or b"{}")
            if action == "entry":  # what the room records for a message's first delta
                room.recorder.commit(
                    "assistant.started",
                    None,
                    AssistantStarted(entry_id=ENTRY_ID, prompt_id="bench-prompt"),
                )
                self.finish({"entry": ENTRY_ID})
            elif action == "run":
                self.finish(await run(body))
            elif action == "stop":
                print(MARK_STOP, file=sys.stderr, flush=True)
                self.finish({})
                stopping.set()
            else:
                raise web.HTTPError(404)

    async def run(body: dict) -> dict:
        if body["target"] == "room":
            write = lambda text: room.document.stream(ENTRY_ID, text)  # noqa: E731
            base = len(room.document.streamed_text(ENTRY_ID))
        else:
            ydoc_ext = app.web_app.settings["jupyter_server_ydoc"]
            shared = await ydoc_ext.get_document(
                path=COLLAB_FILE, content_type="file", file_format="text", copy=False
            )
            source = shared.ydoc.get("source", type=Text)

            def write(text: str) -> None:
                source.insert(len(source), text)

            base = len(source)
        sent = []
        interval = body["interval"]
        for k in range(body["count"]):
            text = delta_text(body["first"] + k)
            t0 = now_ns()
            write(text)
            sent.append(t0)
            await asyncio.sleep(interval)
        return {"base": base, "t0": sent}

    app.web_app.add_handlers(".*$", [(r"/bench/(\w+)", Control)])
    if extend is not None:
        extend(app, room)
    print(json.dumps(info), flush=True)
    await stopping.wait()
    await asyncio.sleep(0.05)  # let the reply to `stop` leave
    with contextlib.suppress(Exception):
        await asyncio.wait_for(app._cleanup(), 10)


# ================================================================================================
# client side
# ================================================================================================


class YClient:
    """One websocket client speaking the Yjs sync protocol, as y-websocket does.

    It answers the server's SYNC_STEP1 with a SYNC_STEP2 (as every y-protocols client does), asks
    for the server's state with its own SYNC_STEP1, applies what comes, and after each applied
    message notes (time, length of the text it watches, message size) when the length changed.
    """

    def __init__(self, url: str, locate, token: str = TOKEN):
        from pycrdt import Doc

        self.url = url
        self.token = token
        self.locate = locate  # doc -> the Text to watch, or None while it is not there yet
        self.doc = Doc()
        self.text = None
        self.length = -1
        self.events: list[tuple[int, int, int]] = []  # (t_ns, text length, message bytes)
        self.synced = asyncio.Event()
        self.on_message = None

    async def connect(self) -> None:
        from pycrdt import create_sync_message
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        request = HTTPRequest(self.url, headers={"Authorization": f"token {self.token}"})
        self.ws = await websocket_connect(request, max_message_size=1 << 30)
        self.ws.write_message(create_sync_message(self.doc), binary=True)
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        from pycrdt import YMessageType, YSyncMessageType, handle_sync_message

        while (message := await self.ws.read_message()) is not None:
            if message[0] != YMessageType.SYNC:
                continue  # awareness and jupyter-collaboration's RAW messages
            reply = handle_sync_message(message[1:], self.doc)
            t = now_ns()
            if reply is not None:
                self.ws.write_message(reply, binary=True)
            if message[1] == YSyncMessageType.SYNC_STEP2:
                self.synced.set()
            if self.on_message is not None:
                self.on_message(self, message)
            if self.text is None:
                self.text = self.locate(self.doc)
                if self.text is None:
                    continue
            length = len(self.text)
            if length != self.length:
                self.length = length
                self.events.append((t, length, len(message)))

    async def close(self) -> None:
        self.ws.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.reader, 5)


def room_entry_text(doc):
    from pycrdt import Array

    for entry in doc.get("transcript", type=Array):
        if entry.get("id") == ENTRY_ID:
            return entry["body"]
    return None


def collab_source(doc):
    from pycrdt import Text

    return doc.get("source", type=Text)


class Server:
    """A server subprocess running `serve` above; `info` is what it printed once ready."""

    def __init__(
        self, work: Path, root: Path, state: Path, measure_doc: bool = False, script: str = __file__
    ):
        self.work, self.root, self.state = work, root, state
        self.measure_doc = measure_doc
        self.script = script  # the file run with --serve (load.py serves through `serve` too)
        self.log_path = work / "server.log"

    async def start(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        env = dict(os.environ)
        env.update(
            JUPYTER_NO_CONFIG="1",  # no user/system config: only the extensions listed above
            JUPYTER_DATA_DIR=str(self.work / "data"),
            JUPYTER_RUNTIME_DIR=str(self.work / "runtime"),
            TMPDIR=str(self.work),
            PYTHONWARNINGS="ignore",
        )
        argv = [sys.executable, self.script, "--serve", "--port", str(self.port)]
        argv += ["--root", str(self.root), "--state", str(self.state), "--work", str(self.work)]
        if self.measure_doc:
            argv.append("--measure-doc")
        self.log = open(self.log_path, "ab")  # noqa: SIM115
        self.proc = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.PIPE, stderr=self.log, env=env
        )
        line = await asyncio.wait_for(self.proc.stdout.readline(), 120)
        if not line:
            await self.proc.wait()
            raise RuntimeError(f"server did not start; see {self.log_path}:\n{self.tail()}")
        self.info = json.loads(line)
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"

    async def call(self, method: str, path: str, body: dict | None = None, timeout=120) -> dict:
        from tornado.httpclient import AsyncHTTPClient

        response = await AsyncHTTPClient().fetch(
            self.http + path,
            method=method,
            body=json.dumps(body or {}),
            headers={"Authorization": f"token {TOKEN}", "Content-Type": "application/json"},
            request_timeout=timeout,
        )
        return json.loads(response.body)

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await self.call("POST", "/bench/stop", timeout=5)
        try:
            await asyncio.wait_for(self.proc.wait(), 15)
        except TimeoutError:
            self.proc.kill()  # our own child, by its handle
            await self.proc.wait()
        self.log.close()

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


# ================================================================================================
# measurements
# ================================================================================================


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_values:
        return float("nan")
    rank = max(0, min(len(sorted_values) - 1, math.ceil(q / 100 * len(sorted_values)) - 1))
    return sorted_values[rank]


async def connect_all(clients: list[YClient]) -> None:
    for start in range(0, len(clients), 10):  # a few at a time, as people arrive
        batch = clients[start : start + 10]
        await asyncio.gather(*(client.connect() for client in batch))
    await asyncio.wait_for(asyncio.gather(*(client.synced.wait() for client in clients)), 30)


async def until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def run_block(server: Server, target: str, clients, count, interval, first, results):
    for client in clients:
        client.events.clear()
    reply = await server.call(
        "POST",
        "/bench/run",
        {"target": target, "count": count, "interval": interval, "first": first},
    )
    base, sent = reply["base"], reply["t0"]
    final = base + count * DELTA_LEN
    await until(lambda: all(client.length >= final for client in clients), 5.0)
    if results is None:
        return
    for client in clients:
        events = client.events
        i = 0
        for k, t0 in enumerate(sent):
            want = base + (k + 1) * DELTA_LEN
            while i < len(events) and events[i][1] < want:
                i += 1
            if i == len(events):
                results["lost"] += count - k
                break
            t, _, size = events[i]
            results["latency"].append((t - t0) / 1e6)
            if events[i][1] == want and (i == 0 or events[i - 1][1] == want - DELTA_LEN):
                results["bytes"].append(size)  # exactly one delta in this message


async def fanout(server: Server, counts=CLIENT_COUNTS) -> dict:
    from tornado.httpclient import AsyncHTTPClient

    await server.call("POST", "/bench/entry")
    session = json.loads(
        (
            await AsyncHTTPClient().fetch(
                f"{server.http}/api/collaboration/session/{COLLAB_FILE}",
                method="PUT",
                body=json.dumps({"format": "text", "type": "file"}),
                headers={"Authorization": f"token {TOKEN}"},
            )
        ).body
    )
    room_url = f"{server.ws}/copilot-room/ws"
    collab_url = (
        f"{server.ws}/api/collaboration/room/text:file:{session['fileId']}"
        f"?sessionId={session['sessionId']}"
    )
    figures = {}
    first = 0
    for n in counts:
        interval = INTERVAL[n]
        clients = {
            "room": [YClient(room_url, room_entry_text) for _ in range(n)],
            "collab": [YClient(collab_url, collab_source) for _ in range(n)],
        }
        for target, group in clients.items():
            await connect_all(group)
            assert all(client.text is not None for client in group), f"{target}: no text"
        await asyncio.sleep(0.5)  # joins settle (the room shows each newcomer to everyone)
        for target, group in clients.items():
            await run_block(server, target, group, WARMUP, interval, first, None)
            first += WARMUP
        for target in clients:
            figures[target, n] = {"latency": [], "bytes": [], "lost": 0}
        for block in range(BLOCKS):
            order = ("room", "collab") if block % 2 == 0 else ("collab", "room")
            for target in order:
                await run_block(
                    server, target, clients[target], BLOCK, interval, first, figures[target, n]
                )
                first += BLOCK
        for group in clients.values():
            await asyncio.gather(*(client.close() for client in group))
        await asyncio.sleep(0.3)
    return figures


def write_transcript(path: Path, entries: int) -> None:
    """A valid transcript.jsonl of `entries` transcript entries: entries/2 finished turns, each a
    prompt (one entry) and the assistant's answer (one entry), as the room itself records them."""
    from jupyter_copilot_room.events import (
        AssistantMessage,
        PersonSeen,
        PromptFinished,
        PromptRef,
        PromptSubmitted,
        Record,
    )

    words = [
        "the",
        "agent",
        "reads",
        "the",
        "notebook",
        "then",
        "edits",
        "a",
        "cell",
        "and",
        "runs",
        "the",
        "tests",
        "again",
    ]
    seq = 0
    t = 1_760_000_000.0
    with open(path, "wb") as f:

        def put(kind, actor, payload):
            nonlocal seq, t
            seq += 1
            t += 0.5
            data = payload.model_dump(mode="json", exclude_none=True)
            record = Record(seq=seq, ts=t, kind=kind, actor=actor, payload=data)
            f.write(record.model_dump_json().encode() + b"\n")

        put(
            "person.seen",
            "alice",
            PersonSeen(username="alice", display_name="Alice", verified=False),
        )
        for i in range(entries // 2):
            prompt_id = f"prompt-{i:05d}"
            prompt = " ".join(words[(i + j) % len(words)] for j in range(12 + i % 20))
            answer = " ".join(words[(i * 7 + j) % len(words)] for j in range(60 + (i * 13) % 180))
            put("prompt.submitted", "alice", PromptSubmitted(id=prompt_id, text=prompt))
            put("prompt.started", "alice", PromptRef(id=prompt_id))
            put(
                "assistant.message",
                None,
                AssistantMessage(entry_id=f"answer-{i:05d}", prompt_id=prompt_id, text=answer),
            )
            put("prompt.finished", None, PromptFinished(id=prompt_id, state="completed"))


async def late_join(server: Server) -> dict:
    from pycrdt import Array

    want = server.info["entries"]
    times, sizes = [], []
    for _ in range(LATE_JOINS):
        client = YClient(f"{server.ws}/copilot-room/ws", lambda doc: None)
        transcript = client.doc.get("transcript", type=Array)
        done = asyncio.Event()
        biggest = [0]

        def seen(client, message, transcript=transcript, done=done, biggest=biggest):
            biggest[0] = max(biggest[0], len(message))
            if len(transcript) >= want:
                done.set()

        client.on_message = seen
        started = now_ns()
        await client.connect()
        await asyncio.wait_for(done.wait(), 60)
        times.append((now_ns() - started) / 1e6)
        sizes.append(biggest[0])
        await client.close()
        await asyncio.sleep(0.2)
    return {"times": sorted(times), "sync_bytes": max(sizes)}


# ================================================================================================
# report
# ================================================================================================


def mb(n: float) -> str:
    return f"{n / 2**20:.1f} MB"


def report(figures: dict, late: dict, info_a: dict, info_b: dict, warnings: dict) -> None:
    print()
    print("Streamed-delta latency: server write -> applied in each client's doc (ms)")
    print(
        f"{'target':<8} {'N':>3} {'samples':>8} {'p50':>7} {'p99':>7} {'max':>7} "
        f"{'lost':>5} {'bytes/delta':>12}"
    )
    for target, label in (("room", "room"), ("collab", "jcollab")):
        for n in CLIENT_COUNTS:
            f = figures[target, n]
            lat = sorted(f["latency"])
            size = sorted(f["bytes"])
            print(
                f"{label:<8} {n:>3} {len(lat):>8} {percentile(lat, 50):>7.2f} "
                f"{percentile(lat, 99):>7.2f} {lat[-1] if lat else float('nan'):>7.2f} "
                f"{f['lost']:>5} {percentile(size, 50):>7.0f} B"
            )
    print()
    print("Ratio room / jupyter-collaboration (1.00 = same; < 1 = room faster)")
    print(f"{'N':>3} {'p50':>7} {'p99':>7}")
    for n in CLIENT_COUNTS:
        room = sorted(figures["room", n]["latency"])
        collab = sorted(figures["collab", n]["latency"])
        r50 = percentile(room, 50) / percentile(collab, 50)
        r99 = percentile(room, 99) / percentile(collab, 99)
        print(f"{n:>3} {r50:>7.2f} {r99:>7.2f}")
    print()
    print(
        f"Bytes per delta: a {DELTA_LEN}-character append arrives as one Yjs update message of "
        f"the size above (websocket frame header adds 2 B)."
    )
    print()
    times = late["times"]
    print(
        f"Late join, {info_b['entries']:,} transcript entries "
        f"(transcript.jsonl {mb(info_b['transcript_bytes'])}, "
        f"Yjs state {mb(info_b['state_bytes'])}):"
    )
    print(
        f"  connect -> fully synced: median {percentile(times, 50):.0f} ms, "
        f"max {times[-1]:.0f} ms over {len(times)} joins; sync message {mb(late['sync_bytes'])}"
    )
    print(f"  server start: transcript replay {info_b['rebuild_s']:.2f} s")
    print(
        f"  server RSS growth over the replay: {mb(info_b['rss_growth'])} "
        f"(empty room: {mb(info_a['rss_growth'])}); RSS {mb(info_b['rss'])} after it"
    )
    if "doc_rss" in info_b:
        print(
            f"  the room document alone (same records replayed into a second RoomDocument): "
            f"{mb(info_b['doc_rss'])}"
        )
    print()
    print("Server log: " + ", ".join(f"{k} {v}" for k, v in warnings.items()))


def scan_log(path: Path) -> dict:
    """Warnings and errors the servers logged while serving (shutdown noise left out)."""
    serving, lines = False, []
    for line in path.read_text(errors="replace").splitlines():
        if line in (MARK_START, MARK_STOP):
            serving = line == MARK_START
        elif serving:
            lines.append(line)
    warnings = [line for line in lines if line.startswith(("WARNING", "[W "))]
    errors = [line for line in lines if line.startswith(("ERROR", "CRITICAL", "[E ", "[C "))]
    return {
        "warnings": len(warnings),
        "of which 'Dropped a ...-byte frame'": sum("Dropped a " in line for line in warnings),
        "errors": len(errors),
    }


async def main() -> None:
    wall = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="copilot-room-fanout-"))
    try:
        for name in ("root-a", "root-b", "data", "runtime"):
            (work / name).mkdir()
        (work / "root-a" / COLLAB_FILE).write_text("benchmark file\n")

        print(f"[fan-out] server A (empty room + {COLLAB_FILE}), N = {CLIENT_COUNTS}", flush=True)
        server = Server(work, work / "root-a", work / "state-a")
        await server.start()
        try:
            figures = await fanout(server)
        except BaseException:
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            await server.stop()
        info_a = server.info

        print(f"[late join] writing a {LATE_ENTRIES:,}-entry transcript", flush=True)
        (work / "state-b").mkdir()
        write_transcript(work / "state-b" / "transcript.jsonl", LATE_ENTRIES)
        print("[late join] server B (replays it at start)", flush=True)
        server_b = Server(work, work / "root-b", work / "state-b", measure_doc=True)
        await server_b.start()
        try:
            # The live document holds only the newest `document_window` entries (the rest is
            # paged from the archive), so that is what a late joiner downloads.
            from jupyter_copilot_room.app import CopilotRoom

            window = CopilotRoom.document_window.default_value
            assert server_b.info["entries"] == min(LATE_ENTRIES, window), server_b.info
            late = await late_join(server_b)
        except BaseException:
            print(server_b.tail(), file=sys.stderr)
            raise
        finally:
            await server_b.stop()

        report(figures, late, info_a, server_b.info, scan_log(work / "server.log"))
        print(f"\nTotal wall time {time.perf_counter() - wall:.0f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--state", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--measure-doc", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    asyncio.run(serve(opts) if opts.serve else main())


if __name__ == "__main__":
    cli()
