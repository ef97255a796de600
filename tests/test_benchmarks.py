"""Every benchmark command the docs show runs as written and prints its figures.

The commands are read out of the docs (README.md, benchmarks/README.md, docs/, CONTRIBUTING.md),
so a doc change that breaks one fails here. Each runs at its quick size (`BENCH_QUICK=1`,
benchmarks/quick.py): seconds instead of minutes, figures that mean nothing, the same code
paths. A command the docs mark "not run in CI: <why>" is skipped with that reason. The runs
are slow alone but partly waiting (servers starting, models streaming), so a few run at once.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*ROOT.glob("*.md"), *ROOT.glob("docs/*.md"), *ROOT.glob("benchmarks/*.md")]
DOCS.remove(ROOT / "CHANGELOG.md")  # history, not instructions
COMMAND = re.compile(r"python (benchmarks/\w+\.py)([^`\n#]*)")
NOT_IN_CI = re.compile(r"not run in CI: ([^)\n]+)")
AT_ONCE = 3  # runs at the same time (each mostly waits on its servers and models)
HELPERS = {"quick.py", "with_pytest.py"}  # imported by the benchmarks, not run alone
SLOWEST = ("acp_agents.py", "panel_frames.py", "fanout.py", "history.py")  # started first

#: What each benchmark prints (benchmarks/README.md describes each figure).
FIGURES = {
    "fanout.py": (
        "Streamed-delta latency",
        "Ratio room / jupyter-collaboration",
        "Bytes per delta",
        "connect -> fully synced",
        "Server log",
    ),
    "load.py": (
        "accepted",
        "Checks (target: all ok)",
        "viewers whose document equals the server's",
        "Server memory",
        "Fan-out during the load",
        "Fan-out at",
    ),
    "history.py": (
        "Restart to serving",
        "compaction while serving",
        "Server memory for the room after a restart",
        "History page of 100 entries",
        "Late join of the",
    ),
    "panel_frames.py": ("p95 ms", "CPU while it streamed"),
    "execution.py": (
        "agent: approval -> second client",
        "person: execute -> own client",
        "agent p50 over person p50",
    ),
    "checkpoints.py": (
        "worktree snapshot",
        "prompt.started -> agent.send, checkpoints",
        "prompt.started -> agent.send, without",
    ),
    "rooms.py": ("Memory with N rooms", "rooms' turns at once", "session closed (resumed)"),
    "loop.py": ("under load:", "GET room", "p99 under load / idle"),
    "soak.py": ("soak: ", "the agent made"),
    "acp_agents.py": ("bare ACP client", "room: member", "the room adds per chunk"),
}
#: What a command's options add to what it prints.
OPTION_FIGURES = {"--trace": "Python allocations that grew after warm-up"}


def documented() -> list[tuple[str, str | None]]:
    """Each documented benchmark command once, with why it is not run in CI (or None)."""
    found: dict[str, str | None] = {}
    for doc in DOCS:
        for line in doc.read_text().splitlines():
            why = NOT_IN_CI.search(line)
            for match in COMMAND.finditer(line):
                command = " ".join(match.group(0).split())
                found.setdefault(command, why.group(1).strip() if why else None)
    return list(found.items())


COMMANDS = documented()


def script(command: str) -> str:
    """The benchmark a command runs: `fanout.py`."""
    return command.split()[1].removeprefix("benchmarks/")


def run(command: str) -> subprocess.CompletedProcess[str]:
    """`command` as written, from the repository root, at its quick size."""
    argv = shlex.split(command)
    env = {**os.environ, "BENCH_QUICK": "1"}
    env.pop("PYTHONSAFEPATH", None)  # as a person's shell runs it
    # This checkout's package, in its servers too, wherever an editable install points.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))
    return subprocess.run(
        [sys.executable, *argv[1:]], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def runs(request):
    """The selected runnable commands, AT_ONCE at a time, all queued when the first test asks."""
    selected = {
        item.callspec.params["command"]
        for item in request.session.items
        if item.name.startswith(f"{RUNS_AND_PRINTS}[")
    }
    runnable = [command for command, why in COMMANDS if why is None and command in selected]
    runnable.sort(key=lambda c: SLOWEST.index(script(c)) if script(c) in SLOWEST else len(SLOWEST))
    with ThreadPoolExecutor(AT_ONCE) as pool:
        yield {command: pool.submit(run, command) for command in runnable}


def test_the_docs_show_every_benchmark():
    shown = {script(command) for command, _ in COMMANDS}
    scripts = {path.name for path in (ROOT / "benchmarks").glob("*.py")} - HELPERS
    assert shown == scripts
    assert set(FIGURES) == scripts


RUNS_AND_PRINTS = "test_a_documented_benchmark_command_runs_and_prints_its_figures"


@pytest.mark.timeout(900)  # waits for its run, which may have waited for others' (AT_ONCE)
@pytest.mark.parametrize(("command", "why"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_a_documented_benchmark_command_runs_and_prints_its_figures(
    command: str, why: str | None, runs: dict[str, Future]
):
    if why is not None:
        pytest.skip(f"{command}: not run in CI: {why}")
    done = runs[command].result()
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stderr[-3000:]}"
    options = command.split()[2:]
    wanted = [*FIGURES[script(command)], *(OPTION_FIGURES.get(word) for word in options)]
    missing = [figure for figure in wanted if figure and figure not in done.stdout]
    assert not missing, f"{command} did not print {missing}:\n{done.stdout[-3000:]}"


def test_the_size_switch_refuses_a_value_it_does_not_know():
    env = {**os.environ, "BENCH_QUICK": "yes"}
    done = subprocess.run(
        [sys.executable, "benchmarks/soak.py"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "BENCH_QUICK='yes': set 1 for small sizes" in done.stderr
