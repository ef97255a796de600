"""Loop benchmark: does one member's heavy request stall the server for everyone (issue 27)?

    python benchmarks/loop.py            # about 2 minutes on 2 cores

A server (fanout.py's subprocess, `serve`) on a 100,000-entry transcript. A prober calls
`GET copilot-room/api/room` (cheap: the caller's view of the room) every 20 ms and times each
answer, first with the server idle, then while one client uploads four 10 MiB PNG images again
and again (`POST attachments`: each checked whole by Pillow) and another reads the whole
transcript again and again (`GET transcript`), both from a process of their own. Prints p50,
p99 and the longest answer of each phase, their ratio, and the target: p99 under 50 ms under
load. See benchmarks/README.md.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fanout import TOKEN, Server, cli, write_transcript
from quick import sized

ENTRIES = sized(100_000, 1_000)
PROBE_EVERY = 0.02  # seconds between two probes
PHASE = sized(20.0, 1.0)  # seconds each phase is probed
IMAGES, IMAGE_SIDE = sized((4, 1800), (1, 200))  # 1800 x 1800 RGB noise: a PNG of about 9.7 MB each
TARGET_P99 = 0.050

HEADERS = {"Authorization": f"token {TOKEN}"}


def noise_png() -> bytes:
    from PIL import Image

    image = Image.frombytes("RGB", (IMAGE_SIDE, IMAGE_SIDE), os.urandom(IMAGE_SIDE**2 * 3))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


async def probe(server: Server, seconds: float) -> list[float]:
    from tornado.httpclient import AsyncHTTPClient

    client, times = AsyncHTTPClient(force_instance=True), []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        await client.fetch(f"{server.http}/copilot-room/api/room", headers=HEADERS)
        times.append(time.perf_counter() - started)
        await asyncio.sleep(PROBE_EVERY)
    client.close()
    return times


async def upload_again_and_again(server: Server, images: list[bytes], stop: asyncio.Event) -> int:
    from tornado.httpclient import AsyncHTTPClient

    client, sent = AsyncHTTPClient(force_instance=True), 0
    while not stop.is_set():
        for data in images:
            await client.fetch(
                f"{server.http}/copilot-room/api/attachments",
                method="POST",
                body=data,
                headers={**HEADERS, "Content-Type": "image/png"},
                request_timeout=120,
            )
            sent += 1
    client.close()
    return sent


async def read_again_and_again(server: Server, stop: asyncio.Event) -> int:
    from tornado.httpclient import AsyncHTTPClient

    client, reads = AsyncHTTPClient(force_instance=True, max_body_size=1 << 31), 0
    while not stop.is_set():
        await client.fetch(
            f"{server.http}/copilot-room/api/transcript", headers=HEADERS, request_timeout=300
        )
        reads += 1
    client.close()
    return reads


def figures(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return statistics.median(ordered), p99, ordered[-1]


async def load(http: str, seconds: float) -> None:
    """The heavy clients, in a process of their own (`--load`): on the prober's loop, reading
    the 100,000-entry transcript would delay the prober's own answers and be counted as the
    server's. Prints `ready`, then after `seconds` the uploads and reads done."""
    images = [noise_png() for _ in range(IMAGES)]
    server = type("Remote", (), {"http": http})()
    print(f"ready {statistics.mean(len(i) for i in images) / 1e6:.1f}", flush=True)
    stop = asyncio.Event()
    heavy = [
        asyncio.create_task(upload_again_and_again(server, images, stop)),
        asyncio.create_task(read_again_and_again(server, stop)),
    ]
    await asyncio.sleep(seconds)
    stop.set()
    uploads, reads = await asyncio.gather(*heavy)
    print(uploads, reads, flush=True)


async def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="loop-bench-"))
    try:
        root, state = work / "root", work / "state"
        root.mkdir()
        state.mkdir()
        write_transcript(state / "transcript.jsonl", ENTRIES)
        server = Server(work, root, state, script=__file__)
        await server.start()
        try:
            idle = await probe(server, PHASE)
            argv = [__file__, "--load", server.http, str(PHASE + 1)]
            loader = await asyncio.create_subprocess_exec(
                sys.executable, *argv, stdout=asyncio.subprocess.PIPE
            )
            assert loader.stdout is not None
            size = float((await loader.stdout.readline()).split()[1])
            await asyncio.sleep(sized(1.0, 0.2))  # the first upload and read under way
            loaded = await probe(server, PHASE)
            uploads, reads = map(int, (await loader.stdout.readline()).split())
            await loader.wait()
        finally:
            await server.stop()
        megabytes = (state / "transcript.jsonl").stat().st_size / 1e6
        print(f"transcript: {ENTRIES:,} entries, {megabytes:.0f} MB; {IMAGES} images of")
        print(f"  {size:.1f} MB each")
        print(f"under load: {uploads} uploads, {reads} whole-transcript reads in {PHASE:.0f} s")
        print("GET room        p50 ms   p99 ms   max ms   probes")
        for name, times in (("idle", idle), ("under load", loaded)):
            p50, p99, top = figures(times)
            ms = f"{p50 * 1e3:7.1f}  {p99 * 1e3:7.1f}  {top * 1e3:7.1f}"
            print(f"  {name:<12} {ms}  {len(times):7d}")
        ratio = figures(loaded)[1] / figures(idle)[1]
        p99 = figures(loaded)[1]
        verdict = "met" if p99 < TARGET_P99 else "NOT met"
        target = f"target p99 < {TARGET_P99 * 1e3:.0f} ms: {verdict}"
        print(f"p99 under load / idle: {ratio:.1f}x; {target}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        cli()  # fanout.py's server, for Server(script=__file__)
    elif "--load" in sys.argv:
        at = sys.argv.index("--load")
        asyncio.run(load(sys.argv[at + 1], float(sys.argv[at + 2])))
    else:
        asyncio.run(main())
