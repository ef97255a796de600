"""Shutdown completes within 5 s, every time: a real `jupyter server` with the REAL runtime (the
scripted model), a turn running and waiting on its permission card, a prompt queued, the room's
websockets open, a kernel, and a notebook open in a collaborative session; stopped by SIGTERM and
by `POST /api/shutdown` in turn, on the same state.

The notebook matters: jupyter-collaboration loads it in an AnyIO worker thread from its socket's
handler task, which is still pending when the loop stops, and the interpreter's exit then waited
on that idle thread forever (`worker_threads.py`).
"""

import asyncio
import json
import os
import signal
import time

import nbformat
import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness import config, people
from .harness.helpers import READY, eventually

STOPS = 3
LIMIT = 5.0  # seconds from the stop request to the process's exit


def reads_then_runs(request):
    """Reads the notebook through the room's tools, then asks to run a command: the turn then
    waits on its card."""
    if not request.last_tool_calls:
        return Reply("Reading.", tool_calls=(ToolCall("notebook_read", {"path": "n.ipynb"}),))
    if request.last_tool_calls == ["notebook_read"]:
        return Reply("Running.", tool_calls=(ToolCall("bash", {"command": "echo hi"}),))
    return Reply("Done.")


async def jupyter_api(server, method, path, body):
    """jupyter_server's own API (`/api/...`) as the host."""
    request = HTTPRequest(
        f"{server.url}/api/{path}",
        method=method,
        headers=people.authorization(people.HOST),
        body=json.dumps(body),
    )
    try:
        return await AsyncHTTPClient().fetch(request)
    except HTTPClientError as err:
        return err.response


async def open_notebook(server, path):
    """Join the notebook's collaborative session, as JupyterLab does when it opens it."""
    session = json.loads(
        (
            await jupyter_api(
                server,
                "PUT",
                f"collaboration/session/{path}",
                {"format": "json", "type": "notebook"},
            )
        ).body
    )
    url = (
        f"ws://127.0.0.1:{server.port}/api/collaboration/room/"
        f"json:notebook:{session['fileId']}?sessionId={session['sessionId']}"
    )
    return await websocket_connect(HTTPRequest(url, headers=people.authorization(people.HOST)))


async def test_shutdown_completes_within_5_s_every_time(servers, model, tmp_path):
    model.script = reads_then_runs
    collaboration = {
        "ServerApp": {
            "jpserver_extensions": {
                "jupyter_copilot_room": True,
                "jupyter_server_fileid": True,
                "jupyter_server_ydoc": True,
            }
        },
        "SQLiteYStore": {"db_path": str(tmp_path / "ystore.db")},
        "BaseFileIdManager": {"db_path": str(tmp_path / "file_id.db")},
    }
    server = servers(
        room=config.copilot_agent(model.base_url),
        extra=(collaboration,),
        env={config.MODEL_KEY_ENV: config.MODEL_KEY},
    )
    # What a stop waits on, in the log, if it ever takes too long.
    server.config_file.write_text(
        server.config_file.read_text()
        + "import faulthandler, signal\nfaulthandler.register(signal.SIGUSR2, all_threads=True)\n"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a = 1")])
    nbformat.write(notebook, server.root / "n.ipynb")

    async def idle():
        return (await server.room())["agent"].get("state") == "idle"

    took = []
    for n in range(STOPS):
        await server.start_async()
        await eventually(idle, timeout=READY, what="the agent to start")
        assert (await jupyter_api(server, "POST", "kernels", {"name": "python3"})).code == 201
        watchers = [await server.watch(user) for user in ("alice", "bob", "carol")]
        carol = watchers[-1]
        sockets = [*watchers, await open_notebook(server, "n.ipynb")]
        await server.call("bob", "POST", "prompts", {"text": f"work {n}"})
        await server.call("alice", "POST", "prompts", {"text": "queued"})
        await eventually(lambda c=carol: len(c.approvals) == 1, timeout=30, what="the card")

        started = time.monotonic()
        if n % 2:
            await jupyter_api(server, "POST", "shutdown", {})
        else:
            server.process.send_signal(signal.SIGTERM)
        while server.process.poll() is None and time.monotonic() - started < LIMIT + 5:
            await asyncio.sleep(0.05)
        took.append(time.monotonic() - started)
        if server.process.poll() is None:
            server.process.send_signal(signal.SIGUSR2)  # every thread's stack, into the log
            await asyncio.sleep(1)
        for socket in sockets:
            socket.close()
        assert took[-1] < LIMIT, f"stop {n} took {took[-1]:.1f} s\n{server.tail(60)}"
        server.stop()
    records = (server.state_dir / "transcript.jsonl").read_text().splitlines()
    failed = [json.loads(r)["payload"] for r in records if '"prompt.finished"' in r]
    assert sum("server stopped" in (f.get("reason") or "") for f in failed) >= STOPS, (
        "each stop recorded the turn it cut as failed"
    )


def runs_stdio(process):
    """Whether a child's command line has `--stdio`; a child that just ended (a zombie not yet
    reaped, as CI once showed) or is gone has none."""
    try:
        return "--stdio" in process.cmdline()
    except (psutil.ZombieProcess, psutil.NoSuchProcess):
        return False


def runtime_of(server):
    """The Copilot runtime process the server started (not a process the runtime started with
    its own command line: CI once showed one, named `copilot-runtime`, beside it)."""
    found = [
        p for p in psutil.Process(server.process.pid).children(recursive=True) if runs_stdio(p)
    ]
    started = [p for p in found if p.ppid() not in {f.pid for f in found}]
    assert len(started) == 1, found
    return started[0]


async def test_a_ctrl_c_in_the_servers_terminal_leaves_the_agent_running(servers, model):
    """A Ctrl-C goes to the terminal's whole foreground process group; jupyter_server asks
    whether to stop and, unanswered, goes on. Its agent must go on too: the runtime is not in
    that group, so the same runtime answers the next prompt."""
    model.script = lambda request: Reply("Still here.")
    server = servers(
        room=config.copilot_agent(model.base_url), env={config.MODEL_KEY_ENV: config.MODEL_KEY}
    )
    terminal, server.stdin = os.openpty()  # on a terminal, jupyter_server asks on a Ctrl-C
    try:
        await server.start_async()

        async def idle():
            return (await server.room())["agent"].get("state") == "idle"

        await eventually(idle, timeout=READY, what="the agent to start")
        runtime = runtime_of(server)
        os.killpg(os.getpgid(server.process.pid), signal.SIGINT)  # what the terminal sends
        # jupyter_server waits 5 s for an answer, then says it goes on
        await eventually(
            lambda: "resuming operation" in server.log.read_text(errors="replace"),
            timeout=30,
            what="the server going on after its unanswered question",
        )
        assert server.process.poll() is None, server.tail()
        assert runtime.is_running() and runtime.status() != psutil.STATUS_ZOMBIE, server.tail()
        bob = await server.watch("bob")
        await server.call("bob", "POST", "prompts", {"text": "are you there?"})
        await eventually(
            lambda: any("Still here." in str(r.get("body")) for r in bob.replies()),
            timeout=30,
            what="the reply",
        )
        bob.close()
        assert runtime_of(server).pid == runtime.pid, "the same runtime answered"
        assert "stopped answering" not in server.log.read_text(errors="replace")
    finally:
        os.close(terminal)
        os.close(server.stdin)
