"""What the room relies on of other packages' private parts, each used in one adapter module
only, pinned here so that an upgrade which changes it fails this test rather than the room:
JupyterHub's user cache on a handler (`handlers/hub_user_cache.py`), the Copilot SDK's runtime
process (`agent/copilot/runtime_process.py`), the interpreter's and AnyIO's thread hooks
(`worker_threads.py`); and the shared notebook's output layout the cell sink writes with
pycrdt's public types (`notebooks/cell_sink.py`), as jupyter_ydoc itself writes it."""

import asyncio
import subprocess
import sys
import textwrap
import threading

import anyio
import psutil
from jupyter_ydoc import YNotebook
from jupyterhub.services.auth import HubAuth
from jupyterhub.singleuser.extension import JupyterHubIdentityProvider
from pycrdt import Text

from jupyter_copilot_room import worker_threads
from jupyter_copilot_room.agent.copilot.shared_runtime import SharedRuntime
from jupyter_copilot_room.agent.runtime import find_runtime
from jupyter_copilot_room.handlers.hub_user_cache import forget_hub_user
from jupyter_copilot_room.notebooks.cell_sink import youtput


class Handler:
    """A request handler as far as JupyterHub's caches go: attributes set on it."""


def test_jupyterhub_answers_from_the_user_it_cached_on_the_handler_until_we_forget_it():
    handler = Handler()
    handler._jupyterhub_user = "the provider's cached user"
    handler._cached_hub_user = "HubAuth's cached user"
    # Neither reads its own state before the cache: `self` is not needed to answer from it.
    provided = asyncio.run(JupyterHubIdentityProvider.get_user(None, handler))
    authed = asyncio.run(HubAuth._get_user(None, handler))
    assert (provided, authed) == ("the provider's cached user", "HubAuth's cached user")
    forget_hub_user(handler)
    assert vars(handler) == {}


class Holder:
    def busy(self) -> bool:
        return False


def test_the_copilot_sdk_keeps_the_runtime_process_it_spawned(tmp_path):
    async def lease_and_release() -> tuple[int | None, set[int], int | None]:
        runtime = SharedRuntime(tmp_path, find_runtime().path, {}, logged_in=False)
        holder = Holder()
        await runtime.lease(holder)
        try:
            started, children = runtime.pid, {p.pid for p in psutil.Process().children()}
        finally:
            await runtime.release(holder)
        return started, children, runtime.pid

    started, children, after = asyncio.run(lease_and_release())
    assert started in children, "the pid is the runtime process this one started"
    assert after is None


def test_interpreter_exit_runs_threadings_hook_before_joining_threads():
    """A non-daemon thread that waits for the hook does not hold the interpreter's exit."""
    script = textwrap.dedent(
        """
        import threading
        stop = threading.Event()
        threading.Thread(target=stop.wait).start()
        threading._register_atexit(stop.set)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], timeout=60, capture_output=True)
    assert done.returncode == 0, done.stderr


def test_an_idle_anyio_worker_thread_stops_when_told():
    def workers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "AnyIO worker thread"]

    async def run_then_stop() -> list[threading.Thread]:
        await anyio.to_thread.run_sync(lambda: None)
        idle = workers()
        assert idle, "the call left an idle worker"
        worker_threads._stop_workers()
        for thread in idle:
            thread.join(timeout=10)
        return idle

    stopped = anyio.run(run_then_stop)
    assert not any(thread.is_alive() for thread in stopped)


def test_the_cell_sink_writes_outputs_as_jupyter_ydoc_does():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": ["a\n", "b\n"]},
        {"output_type": "display_data", "data": {"text/plain": "x"}, "metadata": {}},
    ]
    notebook = YNotebook()
    notebook.append_cell({"cell_type": "code", "source": "", "metadata": {}, "outputs": outputs})
    notebook.append_cell({"cell_type": "code", "source": "", "metadata": {}, "outputs": []})
    ours = notebook.ycells[1]["outputs"]
    for output in outputs:
        ours.append(youtput(output))
    theirs = notebook.ycells[0]["outputs"]
    assert isinstance(ours[0]["text"], Text) and isinstance(theirs[0]["text"], Text)
    cells = notebook.get()["cells"]
    assert cells[1]["outputs"] == cells[0]["outputs"]
    assert outputs[0]["text"] == ["a\n", "b\n"], "the output it was given is left as it was"
