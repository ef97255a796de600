"""Plain helpers of the tests: waiting for the room, and reading what it shows."""

import ast
import asyncio
import inspect
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import jupyter_copilot_room
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .people import HOST

DATA = Path(__file__).parent.parent / "data"

READY = 60  # seconds the first runtime start may take on a cold machine


async def eventually(predicate, timeout=5.0, what="condition"):
    """Wait until `predicate()` (plain or async) is true, or fail saying what never happened."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def ready(api, room):
    """The room's agent started and is idle (as the host sees it first)."""
    await api(HOST, "GET", "room")
    await eventually(
        lambda: room.document.meta.get("state") in ("idle", "unavailable"),
        timeout=READY,
        what="the agent to start",
    )
    assert room.document.meta.get("state") == "idle", room.document.meta.to_py()


def replies(room):
    """The assistant's replies in the room's live document."""
    return entries(room, "assistant")


def entries(room, kind):
    """The live document's transcript entries of one kind."""
    return [e for e in room.document.transcript.to_py() if e["kind"] == kind]


def finished(room):
    """`{prompt id: its prompt.finished payload}` from the JSONL transcript."""
    # One record a line, split on "\n" only: a record's text may hold U+2028 and the like.
    lines = room.transcript.read_text().split("\n")
    records = [json.loads(line) for line in lines if line.strip()]
    return {r["payload"]["id"]: r["payload"] for r in records if r["kind"] == "prompt.finished"}


def transcript_copy(transcript: Path, into: Path) -> Path:
    """`into`, a new state dir holding `transcript` as it is on disk now: what a room restarted
    now replays, also after a crash (a record counts once it is on disk). The room that wrote it
    goes on, to be stopped at the test's end (one whose transcript a test closed cannot stop)."""
    into.mkdir()
    shutil.copy(transcript, into / "transcript.jsonl")
    return into


def forged_transcript(state_dir: Path) -> None:
    """A transcript in `state_dir` (made if need be) ending with a record the room did not
    write: its chain does not follow from the records before it (`transcript_tampered`)."""
    lines = (DATA / "transcript-0.1.jsonl").read_bytes().splitlines(keepends=True)
    forged = {**json.loads(lines[-1]), "seq": len(lines) + 1, "chain": "0" * 64}
    state_dir.mkdir(parents=True, exist_ok=True)
    (state_dir / "transcript.jsonl").write_bytes(
        b"".join(lines) + json.dumps(forged).encode() + b"\n"
    )


def ask_to_run(request):
    """A scripted model's turn: it asks to run one command, then says what it printed."""
    if request.tool_results:
        return Reply("It printed: " + " | ".join(request.tool_results))
    return Reply(
        "Running it.",
        tool_calls=(ToolCall("bash", {"command": "echo 3 passed", "description": "the tests"}),),
    )


def ask_which(request):
    """A scripted model's turn: it asks the user to choose red or blue, then says the answer."""
    if request.tool_results:
        return Reply("You chose: " + " | ".join(request.tool_results))
    return Reply(
        tool_calls=(ToolCall("ask_user", {"question": "Which?", "choices": ["red", "blue"]}),)
    )


def no_script(request):
    """The scripted model's answer while a test has set no script of its own."""
    return Reply("(no script)")


async def slow_turn_in_flight(api, room, model, *, length=300):
    """A room with history (alice's "kiwi" turn done), alice's slow turn streaming and bob's
    prompt queued behind it: the stage for breaking the runtime mid-turn. Returns the prompts'
    `(slow, after)` as POST returned them."""

    def script(request):
        if "slow" in request.prompt:
            return Reply("Slowly " * length, chunk_size=4, delay=0.05)
        return Reply(f"Fine: {request.prompt}")

    model.script = script
    await ready(api, room)
    first = (await api("alice", "POST", "prompts", body={"text": "remember the word kiwi"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30)
    slow = (await api("alice", "POST", "prompts", body={"text": "slow please"})).json
    after = (await api("bob", "POST", "prompts", body={"text": "are you back?"})).json
    await eventually(
        lambda: any(
            e["kind"] == "assistant" and e["state"] == "streaming" and e["body"]
            for e in room.document.transcript.to_py()
        ),
        timeout=30,
        what="the slow reply to stream",
    )
    return slow, after


def pending_tasks_of_the_room():
    """The asyncio tasks still pending whose coroutine is the room's code: after the room stopped,
    each is one asyncio reports as "Task was destroyed but it is pending!" when the loop goes."""
    package = str(Path(jupyter_copilot_room.__file__).parent)
    pending = []
    for task in asyncio.all_tasks():
        code = getattr(task.get_coro(), "cr_code", None)
        if not task.done() and code is not None and code.co_filename.startswith(package):
            pending.append(f"{code.co_qualname} ({code.co_filename[len(package) + 1 :]})")
    return pending


def served(service, loop):
    """A fixture's body for a local service (the scripted model, a provider's fake): started,
    yielded, stopped in the test's event loop after it."""
    service.start()
    yield service
    loop.run_until_complete(service.stop())


def node_binary(folder: Path, name: str, what: str) -> Path:
    """`folder/node_modules/.bin/name`, installed with `npm ci` from `folder`'s package-lock.json
    when missing (`.ci/run` does it beforehand); `what` says what needs it."""
    local = folder / "node_modules" / ".bin" / name
    if not local.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"{what} needs {name}: install Node and npm.")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder, check=True, timeout=300)
    return local


def link_notes(room, about: str = "this room") -> list[tuple[str, str]]:
    """The transcript's lines on who linked what (by default the room to a channel or a pull
    request; `about`: the words they hold), as (actor, template)."""
    records = (json.loads(line) for line in room.transcript.read_text().splitlines())
    return [
        (r["actor"], r["payload"]["text"])
        for r in records
        if r["kind"] == "system" and about in r["payload"]["text"]
    ]


def parsed(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, in a fresh interpreter when this one cannot: CPython 3.11.7 raises "AST
    constructor recursion depth mismatch" in a process whose earlier test ended in a
    RecursionError (python/cpython#106905; full runs saw it in two tests that parse)."""
    try:
        return ast.parse(source, filename)
    except SystemError:
        dump = (
            "import ast, sys; print(ast.dump(ast.parse(sys.stdin.read()), include_attributes=True))"
        )
        out = subprocess.run(
            [sys.executable, "-c", dump], input=source, capture_output=True, text=True, check=True
        )
        return eval(out.stdout, vars(ast))  # ast.dump of our own source, read back
