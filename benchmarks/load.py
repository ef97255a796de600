"""A full room under load, against the real Copilot runtime and the scripted model.

    python benchmarks/load.py               # 10 minutes of submissions, then the checks
    python benchmarks/load.py --minutes 3   # shorter

5 members submit 100 prompts each (under the room's max_waiting_prompts, as the panel would),
some asking for a shell command's approval, some asking the author a question, both answered by
the members' scripts over the REST API; 50 viewers keep a websocket open for the whole run. Then
it prints, with the target beside each figure: every accepted prompt ran exactly once and in
submission order, every viewer's document equals the server's, the transcript is complete and
valid, the server's RSS slope after warm-up, the turn rate, and fan-out latency at 50 viewers
during the load and next to jupyter-collaboration's (fanout.py's method) on the same server.

The server is fanout.py's (`serve`, `Server`), with the real agent and its own people; the model
runs in a third process. Not part of the test suite. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from pathlib import Path

import fanout as fo
from quick import sized

MEMBERS = [f"member{i}" for i in range(1, sized(6, 3))]
VIEWERS = [f"viewer{i:02d}" for i in range(1, sized(51, 4))]
GUEST = "bench-guest"  # fanout.py's clients (its token) are this viewer
PROMPTS_EACH = sized(100, 5)
WITHDRAW_EVERY = sized(25, 5)  # a member withdraws one of every so many prompts while it waits
SAMPLE = 16  # 1 in SAMPLE updates (by checksum) is timed from server write to viewer
RSS_EVERY = sized(10.0, 0.5)  # seconds between server memory samples
MINUTE = sized(60.0, 0.2)  # seconds in one of --minutes (quick runs are short)
MODEL_KEY = "load-bench-key"


def kind_of(n: int) -> str:
    """What a member's n-th prompt asks for: a shell command, a question, or a short reply."""
    return "shell" if n % 5 == 2 else "ask" if n % 7 == 3 else "say"


# ================================================================================================
# the model (its own process): short replies, a shell command or a question when asked
# ================================================================================================


def model_script(request):
    from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

    fast = {"chunk_size": 8, "delay": 0.005}
    prompt = request.prompt
    if request.tool_results:
        return Reply(f"Done: {request.tool_results[-1][:40]}", **fast)
    if " shell " in f" {prompt} ":
        command = {"command": f"echo load-{zlib.crc32(prompt.encode())}", "description": "load"}
        return Reply("Running it.", tool_calls=(ToolCall("bash", command),), **fast)
    if " ask " in f" {prompt} ":
        question = {"question": "Go on?", "choices": ["yes", "no"]}
        return Reply(tool_calls=(ToolCall("ask_user", question),), **fast)
    return Reply(f"Short reply to {prompt}: all done here, nothing else to add.", **fast)


async def run_model() -> None:
    from jupyter_copilot_room.agent.scripted_model import ScriptedModelServer

    server = ScriptedModelServer(model_script)
    server.start()
    print(server.base_url, flush=True)
    await asyncio.Event().wait()


# ================================================================================================
# the server's additions (in fanout.py's server process)
# ================================================================================================


def make_identity_provider():
    from jupyter_server.auth.identity import IdentityProvider, User

    known = {*MEMBERS, *VIEWERS, "bench-host"}

    class BenchUsers(IdentityProvider):
        """`Authorization: token <name>` signs in <name>; fanout.py's token is the guest."""

        def get_user(self, handler):
            name = handler.request.headers.get("Authorization", "").removeprefix("token ").strip()
            name = GUEST if name == fo.TOKEN else name
            if name not in known | {GUEST}:
                return None
            handler._token_authenticated = True
            return User(username=name, display_name=name.title())

    return BenchUsers


def configure(c) -> None:
    c.ServerApp.identity_provider_class = make_identity_provider()
    c.CopilotRoom.agent_class = "jupyter_copilot_room.agent.copilot.CopilotAgent"
    c.CopilotRoom.model = "scripted-model"
    c.CopilotRoom.provider = {
        "type": "openai",
        "base_url": os.environ["LOAD_MODEL_URL"],
        "api_key_env": "SCRIPTED_MODEL_KEY",
    }
    c.CopilotRoom.members = MEMBERS
    c.CopilotRoom.viewers = [*VIEWERS, GUEST]
    if window := os.environ.get("LOAD_WINDOW"):
        c.CopilotRoom.document_window = int(window)


def extend(app, room) -> None:
    """`/load/rss` (memory), `/load/doc` (the served document), `/load/flush` (the write stamps:
    a sampled update's checksum and the time the server wrote it, in a file, not in memory)."""
    from pycrdt import Array, Map
    from tornado import web

    stamps = open(Path(app.root_dir).parent / "stamps.txt", "w")  # noqa: SIM115
    observed = {}

    def stamp(event) -> None:
        checksum = zlib.crc32(event.update)
        if checksum % SAMPLE == 0:
            stamps.write(f"{checksum} {fo.now_ns()}\n")

    def observe() -> None:  # again after a compaction replaced the served document
        if observed.get("doc") is not room.records.sync.ydoc:
            # pycrdt's observer holds its Doc: a served document left observed is never freed
            # (this benchmark once measured its own leak of one window per compaction).
            if "doc" in observed:
                observed["doc"].unobserve(observed["subscription"])
            observed["doc"] = room.records.sync.ydoc
            observed["subscription"] = room.records.sync.ydoc.observe(stamp)

    observe()
    traced = {}
    if os.environ.get("LOAD_TRACEMALLOC"):
        import tracemalloc

        tracemalloc.start(8)

    class Load(web.RequestHandler):
        def check_xsrf_cookie(self) -> None:
            pass

        def post(self, action: str) -> None:
            observe()
            if action == "rss":
                doc = room.records.sync.ydoc
                self.finish(
                    {
                        "rss": fo.rss_bytes(),
                        "settled": fo.settled_rss(),
                        **fo.malloc_split(),
                        **fo.rss_split(),
                        "threads": threading.active_count(),
                        "state": len(doc.get_update()),
                        "entries": len(doc.get("transcript", type=Array)),
                    }
                )
            elif action == "doc":
                doc = room.records.sync.ydoc
                roots = {"meta": Map, "participants": Map, "queue": Array, "transcript": Array}
                roots["approvals"] = Map
                self.finish({name: doc.get(name, type=t).to_py() for name, t in roots.items()})
            elif action == "mark":  # --trace: Python allocations
                import tracemalloc

                if tracemalloc.is_tracing():
                    fo.settled_rss()
                    traced["mark"] = tracemalloc.take_snapshot()
                self.finish({})
            elif action == "grown":
                import tracemalloc

                if "mark" not in traced:
                    self.finish({"top": [], "grew_kib": 0})
                    return
                fo.settled_rss()
                stats = tracemalloc.take_snapshot().compare_to(traced["mark"], "traceback")
                grew = sum(s.size_diff for s in stats if s.size_diff > 0) / 1024
                stats.sort(key=lambda s: s.size_diff, reverse=True)
                top = [
                    {
                        "kib": s.size_diff / 1024,
                        "count": s.count_diff,
                        "where": s.traceback.format(),
                    }
                    for s in stats[:12]
                ]
                self.finish({"top": top, "grew_kib": grew})
            elif action == "flush":
                stamps.flush()
                self.finish({"path": stamps.name})
            else:
                raise web.HTTPError(404)

    app.web_app.add_handlers(".*$", [(r"/load/(\w+)", Load)])


# ================================================================================================
# the driver
# ================================================================================================


class Viewer:
    """A viewer's websocket for the whole run; reconnects (fresh document) if the server closes
    it, as the panel does, and times the sampled updates it applies."""

    def __init__(self, server: fo.Server, name: str):
        self.server, self.name = server, name
        self.arrivals: list[tuple[int, int]] = []
        self.reconnects = 0
        self.client: fo.YClient | None = None
        self.stopping = False

    def on_message(self, client, message: bytes) -> None:
        from pycrdt import YSyncMessageType, read_message

        if message[1] == YSyncMessageType.SYNC_UPDATE:
            checksum = zlib.crc32(read_message(message[2:]))
            if checksum % SAMPLE == 0:
                self.arrivals.append((checksum, fo.now_ns()))

    async def connect(self) -> None:
        self.client = fo.YClient(f"{self.server.ws}/copilot-room/ws", lambda doc: None, self.name)
        self.client.on_message = self.on_message
        await self.client.connect()
        await asyncio.wait_for(self.client.synced.wait(), 60)

    async def keep(self) -> None:
        while not self.stopping:
            assert self.client is not None
            with contextlib.suppress(Exception):
                await self.client.reader
            if not self.stopping:
                self.reconnects += 1
                await asyncio.sleep(0.1)
                await self.connect()

    def roots(self) -> dict:
        from pycrdt import Array, Map

        assert self.client is not None
        doc = self.client.doc
        types = {"meta": Map, "participants": Map, "queue": Array, "transcript": Array}
        types["approvals"] = Map
        return {name: doc.get(name, type=t).to_py() for name, t in types.items()}


async def api(server: fo.Server, user: str, method: str, path: str, body=None):
    from tornado.httpclient import AsyncHTTPClient

    response = await AsyncHTTPClient().fetch(
        f"{server.http}/copilot-room/api/{path}",
        method=method,
        body=None if method in ("GET", "DELETE") else json.dumps(body or {}),
        headers={"Authorization": f"token {user}", "Content-Type": "application/json"},
        raise_error=False,
        request_timeout=60,
    )
    return response.code, json.loads(response.body) if response.body else None


class Member:
    """Submits its prompts while it has fewer waiting than the room allows, withdraws a few,
    and answers the approvals and questions of its own prompts."""

    def __init__(self, server: fo.Server, name: str, deadline: float):
        self.server, self.name, self.deadline = server, name, deadline
        self.accepted: list[str] = []
        self.refused = Counter()
        self.answered: set[str] = set()

    async def submit(self, spacing: float) -> None:
        """One prompt every `spacing` seconds at most (the run's length spread over the
        prompts), each only while this member has fewer waiting than the room allows."""
        began = time.monotonic()
        while len(self.accepted) < PROMPTS_EACH and time.monotonic() < self.deadline:
            n = len(self.accepted)
            await asyncio.sleep(max(0.0, began + n * spacing - time.monotonic()))
            _, room = await api(self.server, self.name, "GET", "room")
            mine = [p for p in room["queue"] if p["author"] == self.name]
            if (
                sum(p["state"] == "submitted" for p in mine)
                >= room["settings"]["max_waiting_prompts"]
            ):
                await asyncio.sleep(0.2)
                continue
            code, body = await api(
                self.server, self.name, "POST", "prompts", {"text": f"{kind_of(n)} {n}"}
            )
            if code == 202:
                self.accepted.append(body["id"])
                if n % WITHDRAW_EVERY == WITHDRAW_EVERY - 1:
                    await api(self.server, self.name, "DELETE", f"prompts/{body['id']}")
            else:
                self.refused[code] += 1
                await asyncio.sleep(0.3)

    async def answer(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            _, room = await api(self.server, self.name, "GET", "room")
            for request_id, card in (room or {}).get("approvals", {}).items():
                if card.get("author") != self.name or card.get("state") != "pending":
                    continue
                if request_id in self.answered:
                    continue
                self.answered.add(request_id)
                if card.get("kind") == "question":
                    await api(
                        self.server, self.name, "POST", f"questions/{request_id}", {"answer": "yes"}
                    )
                else:
                    await api(
                        self.server,
                        self.name,
                        "POST",
                        f"approvals/{request_id}",
                        {"decision": "approve"},
                    )
            await asyncio.sleep(0.2)


def check_transcript(path: Path, accepted: set[str]) -> dict:
    """Read the JSONL as the room would: every record valid, seq contiguous, chain intact; then
    the prompts: each accepted one submitted once, started once, in submission order."""
    from jupyter_copilot_room.events import Record

    skipped, broken, gaps = 0, 0, 0
    chain, seq = None, 0
    records = []
    for line in path.read_bytes().split(b"\n"):
        if not line.strip():
            continue
        try:
            record = Record.model_validate_json(line)
            record.parsed()
        except ValueError:
            skipped += 1
            continue
        if record.chain is not None or chain is not None:
            broken += record.chain != record.linked_to(chain)
            chain = record.chain
        gaps += record.seq != seq + 1
        seq = record.seq
        records.append(record)
    ids = lambda kind: [r.payload["id"] for r in records if r.kind == kind]  # noqa: E731
    submitted, started, finished = (
        ids("prompt.submitted"),
        ids("prompt.started"),
        ids("prompt.finished"),
    )
    withdrawn = set(ids("prompt.withdrawn"))
    expected = [i for i in submitted if i not in withdrawn]
    states = Counter(r.payload.get("state") for r in records if r.kind == "prompt.finished")
    return {
        "records": len(records),
        "skipped": skipped,
        "chain_breaks": broken,
        "seq_gaps": gaps,
        "submitted": len(submitted),
        "accepted_match": set(submitted) == accepted and len(submitted) == len(set(submitted)),
        "withdrawn": len(withdrawn),
        "started": len(started),
        "started_once": len(started) == len(set(started)),
        "in_order": started == expected[: len(started)],
        "all_ran": len(started) == len(expected),
        "finished_once": Counter(finished) == Counter(started),
        "states": dict(states),
        "first_started": next((r.ts for r in records if r.kind == "prompt.started"), None),
        "last_finished": next(
            (r.ts for r in reversed(records) if r.kind == "prompt.finished"), None
        ),
    }


def slope_mb_per_min(samples: list[tuple[float, int]]) -> float:
    """Least-squares slope of (seconds, bytes), in MB per minute."""
    if len(samples) < 2:
        return float("nan")
    n = len(samples)
    mx = sum(t for t, _ in samples) / n
    my = sum(v for _, v in samples) / n
    var = sum((t - mx) ** 2 for t, _ in samples)
    cov = sum((t - mx) * (v - my) for t, v in samples)
    return cov / var * 60 / 2**20 if var else float("nan")


async def wait_idle(server: fo.Server, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, room = await api(server, MEMBERS[0], "GET", "room")
        if room and not room["queue"] and room["agent"].get("state") == "idle":
            return True
        await asyncio.sleep(0.5)
    return False


async def main(minutes: float, trace: bool, window: int | None) -> None:
    wall = time.perf_counter()
    if window is not None:
        os.environ["LOAD_WINDOW"] = str(window)  # for the server's `configure`
    work = Path(tempfile.mkdtemp(prefix="copilot-room-load-"))
    model = None
    try:
        for name in ("root", "data", "runtime"):
            (work / name).mkdir()
        (work / "root" / fo.COLLAB_FILE).write_text("benchmark file\n")
        here = Path(__file__).resolve()
        model = await asyncio.create_subprocess_exec(
            sys.executable, str(here), "--model", stdout=asyncio.subprocess.PIPE
        )
        model_url = (await asyncio.wait_for(model.stdout.readline(), 30)).decode().strip()
        os.environ.update(LOAD_MODEL_URL=model_url, SCRIPTED_MODEL_KEY=MODEL_KEY)
        if trace:
            os.environ["LOAD_TRACEMALLOC"] = "1"
        os.environ.setdefault(
            "JUPYTER_COPILOT_ROOM_RUNTIME_DIR",
            str(Path.home() / ".cache" / "jupyter-copilot-room" / "runtime"),
        )
        server = fo.Server(work, work / "root", work / "state", script=str(here))
        print(f"[load] server (real runtime, scripted model at {model_url})", flush=True)
        await server.start()
        try:
            await load(server, minutes, work, wall, trace)
        except BaseException:
            print(server.tail(), file=sys.stderr)
            raise
        finally:
            await server.stop()
        print(
            "Server log: " + ", ".join(f"{k} {v}" for k, v in fo.scan_log(server.log_path).items())
        )
        print(f"\nTotal wall time {time.perf_counter() - wall:.0f} s")
    finally:
        if model is not None and model.returncode is None:
            model.terminate()  # our own child, by its handle
            await model.wait()
        shutil.rmtree(work, ignore_errors=True)


async def load(server: fo.Server, minutes: float, work: Path, wall: float, trace: bool) -> None:
    _, room = await api(server, "bench-host", "GET", "room")
    for _ in range(240):
        _, room = await api(server, "bench-host", "GET", "room")
        if room["agent"].get("state") in ("idle", "unavailable"):
            break
        await asyncio.sleep(0.5)
    assert room["agent"].get("state") == "idle", room["agent"]
    print(f"[load] {len(VIEWERS)} viewers connect", flush=True)
    viewers = [Viewer(server, name) for name in VIEWERS]
    for start in range(0, len(viewers), 10):
        await asyncio.gather(*(v.connect() for v in viewers[start : start + 10]))
    keeping = [asyncio.create_task(v.keep()) for v in viewers]

    rss: list[tuple[float, int, int]] = []
    grown: list[dict] = []  # the samples as the server gave them (the document's size too)
    stop_sampling = asyncio.Event()

    async def sample() -> None:
        began = time.monotonic()
        while not stop_sampling.is_set():
            r = await server.call("POST", "/load/rss")
            rss.append((time.monotonic() - began, r["rss"], r["settled"]))
            if trace and len(rss) == int(MINUTE / RSS_EVERY) + 1:
                await server.call("POST", "/load/mark")
            grown.append(r)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop_sampling.wait(), RSS_EVERY)

    sampling = asyncio.create_task(sample())
    began = time.monotonic()
    deadline = began + minutes * MINUTE
    members = [Member(server, name, deadline) for name in MEMBERS]
    stop_answering = asyncio.Event()
    answering = [asyncio.create_task(m.answer(stop_answering)) for m in members]
    print(f"[load] {len(MEMBERS)} members submit for up to {minutes:g} min", flush=True)
    await asyncio.gather(*(m.submit(0.9 * minutes * MINUTE / PROMPTS_EACH) for m in members))
    submitting_s = time.monotonic() - began
    print("[load] submissions over; the queue drains", flush=True)
    drained = await wait_idle(server, 300)
    stop_answering.set()
    await asyncio.gather(*answering)
    stop_sampling.set()
    await sampling

    # Every viewer's document equals the server's (updates may still be on their way: retry).
    same = 0
    for _ in range(60):
        served = await server.call("POST", "/load/doc")
        same = sum(v.roots() == served for v in viewers)
        if same == len(viewers):
            break
        await asyncio.sleep(0.5)
    stamps_path = (await server.call("POST", "/load/flush"))["path"]
    if trace:
        grown_py = await server.call("POST", "/load/grown")
        print(
            f"Python allocations that grew after warm-up: {grown_py['grew_kib']:.0f} KiB in all "
            "(tracemalloc; the 12 largest):"
        )
        for stat in grown_py["top"]:
            print(f"  {stat['kib']:+9.1f} KiB {stat['count']:+7d} blocks")
            for line in stat["where"][-6:]:
                print(f"      {line}")
    for v in viewers:
        v.stopping = True
        if v.client is not None:
            await v.client.close()
    for task in keeping:
        task.cancel()
    accepted = {i for m in members for i in m.accepted}
    checks = check_transcript(work / "state" / "transcript.jsonl", accepted)

    written = {}
    for line in Path(stamps_path).read_text().splitlines():
        checksum, t = line.split()
        written.setdefault(int(checksum), int(t))
    lags = sorted((t - written[c]) / 1e6 for v in viewers for c, t in v.arrivals if c in written)

    print(
        f"[load] fan-out at {fo.CLIENT_COUNTS[-1]} clients on the same server, room vs "
        "jupyter-collaboration",
        flush=True,
    )
    figures = await fo.fanout(server, counts=(fo.CLIENT_COUNTS[-1],))
    report(
        checks, members, viewers, same, drained, submitting_s, rss, grown, lags, figures, minutes
    )


def report(
    checks, members, viewers, same, drained, submitting_s, rss, grown, lags, figures, minutes
):
    pct = fo.percentile
    ok = lambda good: "ok" if good else "FAIL"  # noqa: E731
    accepted = sum(len(m.accepted) for m in members)
    refused = sum((m.refused for m in members), Counter())
    print()
    print(
        f"Load: {len(MEMBERS)} members x {PROMPTS_EACH} prompts, {len(VIEWERS)} viewers, "
        f"{minutes:g} min of submissions ({submitting_s:.0f} s used)"
    )
    print(
        f"  accepted {accepted} (target {len(MEMBERS) * PROMPTS_EACH}), withdrawn "
        f"{checks['withdrawn']}, refused while at the cap {dict(refused)}"
    )
    span = (checks["last_finished"] or 0) - (checks["first_started"] or 0)
    rate = checks["started"] / span * 60 if span > 0 else float("nan")
    print(
        f"  turns run {checks['started']}, {dict(checks['states'])}; {rate:.0f} turns/min "
        f"(500 in 10 min needs 50/min)"
    )
    answered = sum(len(m.answered) for m in members)
    print(f"  approvals and questions answered by the members' scripts: {answered}")
    print(f"  queue drained at the end: {ok(drained)}")
    print()
    print("Checks (target: all ok)")
    print(f"  every accepted prompt recorded once:         {ok(checks['accepted_match'])}")
    print(f"  each started exactly once:                   {ok(checks['started_once'])}")
    print(f"  started in submission order (minus withdrawn): {ok(checks['in_order'])}")
    print(f"  every accepted, not withdrawn prompt ran:    {ok(checks['all_ran'])}")
    print(f"  each finished exactly once:                  {ok(checks['finished_once'])}")
    print(
        f"  transcript: {checks['records']} records, {checks['skipped']} skipped, "
        f"{checks['chain_breaks']} chain breaks, {checks['seq_gaps']} seq gaps: "
        f"{ok(not (checks['skipped'] or checks['chain_breaks'] or checks['seq_gaps']))}"
    )
    print(
        f"  viewers whose document equals the server's: {same}/{len(viewers)}: "
        f"{ok(same == len(viewers))}"
    )
    print(
        f"  viewer reconnections: {sum(v.reconnects for v in viewers)} (target 0 unless the "
        f"room compacted its document)"
    )
    print()
    warm = max(MINUTE, rss[-1][0] * 0.2) if rss else 0
    after = [(t, s) for t, _, s in rss if t >= warm]
    raw_after = [(t, r) for t, r, _ in rss if t >= warm]
    first, last = rss[0], rss[-1]
    print(
        f"Server memory: RSS {fo.mb(first[1])} -> {fo.mb(last[1])} over {last[0]:.0f} s, "
        f"{len(rss)} samples"
    )
    print(
        f"  slope after {warm:.0f} s warm-up: {slope_mb_per_min(after):+.2f} MB/min settled "
        f"(after gc + malloc_trim), {slope_mb_per_min(raw_after):+.2f} MB/min raw "
        f"(target: flat, |slope| < 1 MB/min)"
    )
    minutes_seen = [g for (t, _, _), g in zip(rss, grown, strict=True) if t % MINUTE < RSS_EVERY]
    print(
        "  each minute, settled RSS (anonymous + file-backed) / malloc in use: "
        + ", ".join(
            f"{fo.mb(g['settled'])} ({fo.mb(g.get('anon', 0))} + {fo.mb(g.get('file', 0))}) / "
            f"{fo.mb(g.get('in_use', 0))}"
            for g in minutes_seen
        )
    )
    if "in_use" in grown[0]:
        split = [(t, g) for (t, _, _), g in zip(rss, grown, strict=True) if t >= warm]
        in_use = slope_mb_per_min([(t, g["in_use"]) for t, g in split])
        kept = slope_mb_per_min([(t, g["kept"]) for t, g in split])
        print(
            f"  of which malloc's heap in use {in_use:+.2f} MB/min (native code's, pycrdt's, and "
            f"Python objects over 512 bytes), freed but kept {kept:+.2f} MB/min; threads "
            f"{grown[0]['threads']} -> {grown[-1]['threads']}"
        )
    print(
        f"  meanwhile the room document: transcript entries {grown[0]['entries']} -> "
        f"{grown[-1]['entries']}, Yjs state {fo.mb(grown[0]['state'])} -> "
        f"{fo.mb(grown[-1]['state'])} (the live document keeps every entry unless the room "
        "windows its history)"
    )
    print()
    print(
        "Fan-out during the load (real turns; server write -> applied by each viewer, "
        f"1 in {SAMPLE} updates)"
    )
    print(
        f"  {len(lags)} samples: p50 {pct(lags, 50):.2f} ms, p99 {pct(lags, 99):.2f} ms, "
        f"max {lags[-1] if lags else float('nan'):.2f} ms"
    )
    n = fo.CLIENT_COUNTS[-1]
    print(f"Fan-out at {n} clients after the load, fanout.py's method (ms; target: ratio <= 1.2)")
    room = sorted(figures["room", n]["latency"])
    collab = sorted(figures["collab", n]["latency"])
    for label, lat, f in (
        ("room", room, figures["room", n]),
        ("jcollab", collab, figures["collab", n]),
    ):
        print(f"  {label:<8} p50 {pct(lat, 50):7.2f} p99 {pct(lat, 99):7.2f} lost {f['lost']}")
    r50, r99 = pct(room, 50) / pct(collab, 50), pct(room, 99) / pct(collab, 99)
    print(f"  ratio p50 {r50:.2f}, p99 {r99:.2f}")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="minutes of submissions")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="trace the server's Python allocations (slower) and print what grew after warm-up",
    )
    parser.add_argument(
        "--window",
        type=int,
        help="the room's document_window (default 1,000): a small one fills early, so the "
        "memory slope after warm-up is the room's own, not its history filling the window",
    )
    parser.add_argument("--model", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--state", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--measure-doc", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.model:
        asyncio.run(run_model())
    elif opts.serve:
        asyncio.run(fo.serve(opts, configure=configure, extend=extend))
    else:
        asyncio.run(main(opts.minutes, opts.trace, opts.window))


if __name__ == "__main__":
    cli()
