"""Frame-time benchmark of the room panel: does it keep up with a long reply in a long room?

    python benchmarks/panel_frames.py                 # this checkout's panel, about 2 minutes
    python benchmarks/panel_frames.py --before HEAD~3 # and the panel built at another revision
    python benchmarks/panel_frames.py --trace t.json  # and Chrome's trace of the 1-page stream

A real `jupyter lab` with the room and the real Copilot runtime, whose model is the scripted model
streaming a 50 KB Markdown reply at 50 deltas per second, into a room whose transcript already
holds 1,000 entries. Headless chromium pages (Playwright, Debian's chromium as the browser tests
use it) show the room; each records, while the reply streams, the time between animation frames
(requestAnimationFrame) and Chrome's long tasks (PerformanceObserver 'longtask'). Run once with 1
page and once with 5 (the machine's cores are shared by the lab, the runtime and every page: the
5-page figures include that contention). Prints p95 and longest frame and the longest task per
page, with the targets beside them, and the CPU time the pages' renderers and the GPU process
took while the reply streamed. Not part of the test suite; see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from fanout import write_transcript  # noqa: E402
from quick import sized  # noqa: E402

from jupyter_copilot_room.agent.scripted_model import Reply, ScriptedModelServer  # noqa: E402
from tests.browser.panel import send, show_room  # noqa: E402
from tests.harness import config, people  # noqa: E402
from tests.harness.browser_fixtures import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.harness.pages import new_page, wait_for_lab  # noqa: E402
from tests.harness.server import JupyterServer  # noqa: E402

# The lab's HOME is its own: the runtime `install-runtime` put in the real home must stay found.
os.environ.setdefault(
    "JUPYTER_COPILOT_ROOM_RUNTIME_DIR",
    str(Path.home() / ".cache" / "jupyter-copilot-room" / "runtime"),
)

ENTRIES = sized(1_000, 50)
REPLY_BYTES = sized(50_000, 2_000)
DELTA_CHARS = 100  # 500 deltas
DELTA_SECONDS = 0.02  # 50 deltas per second
PAGE_COUNTS = sized((1, 5), (1,))
USERS = ("alice", "bob", "carol", "alice", "bob")  # five admitted readers (two tabs each)
TARGET_P95_MS = 16.0
TARGET_TASK_MS = 50.0

# In each page: frame intervals and long tasks while a reply streams (from the first frame that
# shows a streaming reply to the first that shows none).
RECORDER = """() => {
    const rec = window.__frames = {frames: [], tasks: [], start: null, end: null, idle: [],
                                   sent: null};
    new PerformanceObserver(list => {
        for (const e of list.getEntries()) rec.tasks.push([e.startTime, e.duration]);
    }).observe({type: 'longtask', buffered: false});
    let last = 0;
    // The newest reply is the one that streams. Found from the log's end: a query of the whole
    // page each frame cost the page it measures 0.8 ms a frame (Chrome's profile).
    let log = null;
    const streamingNow = () => {
        if (!log || !log.isConnected) log = document.querySelector('.jp-CopilotRoom-entries');
        for (let entry = log && log.lastElementChild; entry; entry = entry.previousElementSibling) {
            if (entry.classList.contains('jp-CopilotRoom-reply')) {
                return entry.dataset.state === 'streaming';
            }
        }
        return false;
    };
    const tick = now => {
        const streaming = streamingNow();
        if (streaming && rec.start === null) rec.start = now;
        if (!streaming && rec.start !== null && rec.end === null) rec.end = now;
        if (last && rec.start !== null && rec.end === null) rec.frames.push(now - last);
        if (last && rec.sent === null) rec.idle.push(now - last);
        last = now;
        if (rec.end === null) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""

RESULT = """async () => {
    // The reply's last text renders up to 50 ms after it ends (reply.tsx, RENDER_MS) and the
    // transcript follows it a frame later: read the page once both are done.
    await new Promise(done => setTimeout(done, 200));
    await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
    const rec = window.__frames;
    const tasks = rec.tasks.filter(([t]) => t >= rec.start && t <= rec.end).map(([, d]) => d);
    const replies = document.querySelectorAll('.jp-CopilotRoom-reply');
    const reply = replies[replies.length - 1];
    const log = document.querySelector('.jp-CopilotRoom-transcript');
    // A reader who never scrolled is still at the bottom, and was not told of more below.
    const follows = !!log && log.scrollHeight - log.scrollTop - log.clientHeight < 24
        && !document.querySelector('.jp-CopilotRoom-jump');
    return {frames: rec.frames, idle: rec.idle, tasks, follows,
            seconds: (rec.end - rec.start) / 1000,
            chars: reply ? reply.querySelector('.jp-CopilotRoom-markdown').textContent.length : 0,
            renderers: reply ? reply.querySelectorAll(
                '.jp-CopilotRoom-markdown > .jp-RenderedMarkdown').length : 0};
}"""


def reply_text(size: int = REPLY_BYTES) -> str:
    """About `size` characters of the Markdown a model writes: headings, paragraphs, lists, code
    fences (with blank lines inside), tables."""
    parts, n = [], 0
    while sum(map(len, parts)) < size:
        n += 1
        parts.append(f"## Step {n}: look at the data again\n")
        parts.append(
            f"The notebook reads **{n} files** from `data/` and joins them on the `id` column; "
            "rows without a match are dropped, which is why the counts below differ. " * 2 + "\n"
        )
        parts.append(f"- first, load the frames ({n} of them)\n- then, join\n- finally, plot\n")
        parts.append(
            f"```python\nimport pandas as pd\n\nframes = [pd.read_csv(p) for p in paths[:{n}]]\n\n"
            "merged = frames[0]\nfor frame in frames[1:]:\n    merged = merged.merge(frame)\n```\n"
        )
        parts.append(f"| file | rows |\n|---|---|\n| a.csv | {n * 10} |\n| b.csv | {n * 7} |\n")
    return "\n".join(parts)[:size]


@contextlib.contextmanager
def scripted_model(text: str):
    """The scripted model in a thread with its own loop, always streaming `text`."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    server = ScriptedModelServer(
        lambda request: Reply(text=text, chunk_size=DELTA_CHARS, delay=DELTA_SECONDS)
    )

    def serve():
        asyncio.set_event_loop(loop)
        server.start()
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    started.wait(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@contextlib.contextmanager
def panel_at(revision: str | None):
    """The built panel (a labextension directory): this checkout's, or one built at `revision`
    in a temporary git worktree."""
    if revision is None:
        yield None
        return
    tree = Path(tempfile.mkdtemp(prefix="panel-at-"))
    try:
        git = ["git", "-C", str(REPO)]
        subprocess.run([*git, "worktree", "add", "--detach", str(tree), revision], check=True)
        (tree / "labextension" / "node_modules").symlink_to(REPO / "labextension" / "node_modules")
        subprocess.run(["jlpm", "build"], cwd=tree / "labextension", check=True)
        yield tree / "jupyter_copilot_room" / "labextension"
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(tree, ignore_errors=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] if ordered else 0.0


# Chrome's trace categories: DevTools' Performance panel reads the file.
TRACE_CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "disabled-by-default-v8.cpu_profiler",
    "v8.execute",
    "blink.user_timing",
]


def run(
    browser, lab: JupyterServer, pages_wanted: int, pages: list, trace: Path | None = None
) -> list[dict]:
    """Open pages up to `pages_wanted`, stream one reply, return each page's figures; with
    `trace`, Chrome's trace of the first page while it streams is saved there."""
    while len(pages) < pages_wanted:
        page = new_page(browser, USERS[len(pages)])
        page.goto(f"{lab.url}/lab?token={people.token(page.user)}")
        wait_for_lab(page)
        show_room(page)
        page.wait_for_selector(".jp-CopilotRoom-reply")
        pages.append(page)
    time.sleep(sized(2.0, 0.5))  # the room's first rendering settles
    for page in pages[:pages_wanted]:
        page.evaluate(RECORDER)
    time.sleep(sized(1.0, 0.3))
    for page in pages[:pages_wanted]:
        page.evaluate("() => { window.__frames.sent = performance.now(); }")
    # CPU time of every renderer and of the GPU process (software compositing): what the pages
    # cost, steadier than frame times, which depend on what else had a core at that moment.
    before = cpu_seconds(browser)
    if trace is not None:
        browser.start_tracing(page=pages[0], categories=TRACE_CATEGORIES)
    send(pages[0], f"Explain the data pipeline ({pages_wanted} pages).")
    for page in pages[:pages_wanted]:
        page.wait_for_function("() => window.__frames.end !== null", timeout=180_000)
    after = cpu_seconds(browser)
    if trace is not None:
        trace.write_bytes(browser.stop_tracing())
    results = [page.evaluate(RESULT) for page in pages[:pages_wanted]]
    results[0]["cpu"] = {kind: after[kind] - before.get(kind, 0.0) for kind in after}
    return results


def cpu_seconds(browser) -> dict[str, float]:
    """CPU seconds so far of the browser's renderer processes together, and of its GPU process."""
    session = browser.new_browser_cdp_session()
    try:
        processes = session.send("SystemInfo.getProcessInfo")["processInfo"]
    finally:
        session.detach()
    totals: dict[str, float] = {}
    for process in processes:
        if process["type"] in ("renderer", "GPU"):
            totals[process["type"]] = totals.get(process["type"], 0.0) + process["cpuTime"]
    return totals


def measure(
    label: str,
    panel: Path | None,
    work: Path,
    trace: Path | None = None,
    counts: tuple[int, ...] = PAGE_COUNTS,
) -> list[tuple[str, int, list[dict]]]:
    from playwright.sync_api import sync_playwright

    rows = []
    text = reply_text()
    with scripted_model(text) as model:
        env = {}
        if panel is not None:  # $JUPYTER_PATH comes first on the labextension path
            extensions = work / f"{label}-jupyter-path" / "labextensions"
            extensions.mkdir(parents=True)
            (extensions / "jupyter-copilot-room").symlink_to(panel)
            env["JUPYTER_PATH"] = str(extensions.parent)
        lab = JupyterServer(
            work / label, app="lab", room=config.copilot_agent(model.base_url), env=env
        )
        lab.state_dir.mkdir(parents=True, exist_ok=True)
        write_transcript(lab.state_dir / "transcript.jsonl", ENTRIES)
        lab.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
                )
                pages: list = []
                for count in counts:
                    traced = trace if count == 1 else None
                    rows.append((label, count, run(browser, lab, count, pages, traced)))
                browser.close()
        finally:
            lab.stop(grace=15)
    return rows


def report(rows: list[tuple[str, int, list[dict]]]) -> None:
    print(
        f"\n{ENTRIES:,} entries in the room; a {REPLY_BYTES // 1000} KB reply in "
        f"{DELTA_CHARS}-character deltas every {DELTA_SECONDS * 1000:.0f} ms "
        f"({1 / DELTA_SECONDS:.0f}/s). Frame times are requestAnimationFrame intervals while the "
        "reply streams;\nlong tasks are Chrome's (over 50 ms by definition). 2 cores shared by "
        "the lab, the runtime and every page.\n"
    )
    head = (
        f"{'panel':<8}{'pages':>6}{'page':>5}{'stream s':>9}{'frames':>7}"
        f"{'p95 ms':>8}{'(<16)':>6}{'max ms':>8}{'long tasks':>11}{'longest ms':>11}{'(<=50)':>7}"
        f"{'idle p95':>9}{'blocks':>7}{'follows':>8}"
    )
    print(head)
    print("-" * len(head))
    for label, count, results in rows:
        for n, r in enumerate(results, 1):
            p95 = percentile(r["frames"], 0.95)
            longest = max(r["tasks"], default=0.0)
            print(
                f"{label:<8}{count:>6}{n:>5}{r['seconds']:>9.1f}{len(r['frames']):>7}"
                f"{p95:>8.1f}{'ok' if p95 < TARGET_P95_MS else 'MISS':>6}"
                f"{max(r['frames'], default=0):>8.0f}{len(r['tasks']):>11}{longest:>11.0f}"
                f"{'ok' if longest <= TARGET_TASK_MS else 'MISS':>7}"
                f"{percentile(r['idle'], 0.95):>9.1f}{r['renderers']:>7}"
                f"{'yes' if r['follows'] else 'NO':>8}"
            )
        cpu = results[0]["cpu"]
        print(
            f"{'':<8}{count:>6}  CPU while it streamed: renderers {cpu.get('renderer', 0):.1f} s, "
            f"GPU process {cpu.get('GPU', 0):.1f} s"
        )
    print(
        "\n'idle p95': the same page's frames in the second before the prompt, for scale. "
        "'blocks': the Markdown renderers of the finished reply (1: all re-rendered each frame).\n"
        "'follows': the page, never scrolled, ended at the latest output without 'New activity "
        "below'.\n'CPU': the CPU time of all the pages' renderer processes together and of the GPU "
        "process (software compositing), from the prompt to the last page's end."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--before", metavar="REV", help="also measure the panel built at this git revision"
    )
    parser.add_argument(
        "--trace",
        metavar="FILE",
        type=Path,
        help="save Chrome's trace of this checkout's 1-page stream (open it in DevTools' "
        "Performance panel; tracing slows the page, so its figures are not comparable)",
    )
    parser.add_argument(
        "--pages",
        type=int,
        nargs="+",
        choices=range(1, len(USERS) + 1),
        default=PAGE_COUNTS,
        help="how many pages, one run each (default: 1 5)",
    )
    args = parser.parse_args()
    counts = tuple(args.pages)
    if not Path(CHROMIUM).exists():
        sys.exit(f"No chromium at {CHROMIUM}: apt-get install chromium (or set $CHROMIUM).")
    rows = []
    with tempfile.TemporaryDirectory(prefix="panel-frames-") as work:
        if args.before:
            with panel_at(args.before) as panel:
                rows += measure("before", panel, Path(work), counts=counts)
        rows += measure("now", None, Path(work), args.trace, counts)
    report(rows)


if __name__ == "__main__":
    main()
