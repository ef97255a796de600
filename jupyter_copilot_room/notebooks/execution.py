"""The agent runs notebook cells in the kernel the people in the notebook are attached to.

The kernel is the one of the notebook's jupyter_server session (what JupyterLab attached to);
without one, a session is started with the notebook's kernelspec, so people who open the notebook
later join that kernel. Cells run one at a time, each only once the kernel is idle: a person's own
execution is never interleaved with the agent's, it is waited for. Outputs go into the shared
notebook as they arrive (streams joined the way JupyterLab joins them, `clear_output` honoured),
so every collaborator sees them live and the saved file holds them; a closed notebook gets them
through the contents manager at the end. The model gets a bounded summary (`outputs.py`).

Control: each cell has the room's execution timeout, after which the kernel is interrupted; an
abort of the turn interrupts it at once (`interrupt`); a kernel that dies or restarts mid-run is a
clear failure. The room sees the kernel's state through `on_kernel` (`busy`, `idle`, `waiting`),
and after a run keeps following that kernel, so people's own executions show too.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import inspect
import logging
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import nbformat
from jupyter_client.session import Session

from ..kernel import summaries
from .outputs import Image, summarize
from .tools import METADATA_KEY, NotebookToolError

log = logging.getLogger(__name__)

#: Seconds between checks of the kernel (alive, same process, abort asked) while a cell runs.
POLL = 0.2
#: Seconds between looks at the kernel's state once the agent has used it.
FOLLOW = 0.5
#: The server's view of a kernel right after the room's run ended in it: not news (`_connected`).
LAGGING = ("busy", "starting")
#: Characters of each cell's code an approval card shows.
MAX_CARD_SOURCE = 4000


class KernelGone(NotebookToolError):
    """The kernel died or restarted: the run cannot go on."""


@dataclass
class KernelChoice:
    """Which kernel a run uses: a session's (`kernel_id`) or a new one of `kernel_name`."""

    kernel_id: str | None
    kernel_name: str

    def words(self, path: str) -> str:
        if self.kernel_id is None:
            return (
                f"No kernel is running for {path}: a new {self.kernel_name} kernel will be "
                "started for it (people who open the notebook join it)."
            )
        return f"In the notebook's running {self.kernel_name} kernel, the one its people use."


@dataclass
class Ran:
    """What running the cells gave: a summary for the model and any images."""

    text: str
    images: list[Image] = field(default_factory=list)


class CellSink:
    """Where one cell's outputs go as they arrive: the live shared cell or a file's cell."""

    def __init__(self, live, cell: dict | None, cell_id: str, ran: dict):
        self.live, self.cell, self.cell_id, self.ran = live, cell, cell_id, ran
        self.outputs: list[dict] = []  # what the model is told about
        self._clear_on_next = False

    def _ycell(self):
        for index in range(self.live.cell_number):
            ycell = self.live.ycells[index]
            if ycell.get("id") == self.cell_id:
                return ycell
        return None  # deleted meanwhile: the outputs still reach the model

    def start(self) -> None:
        if self.live is None:
            assert self.cell is not None
            self.cell["outputs"], self.cell["execution_count"] = [], None
            self.cell["metadata"][METADATA_KEY] = {
                **self.cell["metadata"].get(METADATA_KEY, {}),
                "ran": self.ran,
            }
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is None:
                return
            ycell["outputs"].clear()
            ycell["execution_count"] = None
            ycell["execution_state"] = "busy"
            before = ycell["metadata"].get(METADATA_KEY)
            before = before if isinstance(before, dict) else {}
            ycell["metadata"][METADATA_KEY] = {**before, "ran": self.ran}

    def add(self, output: dict) -> None:
        if self._clear_on_next:
            self.clear(wait=False)
        self.outputs.append(output)
        if self.live is None:
            assert self.cell is not None
            _append_plain(self.cell["outputs"], output)
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is not None:
                _append_live(self.live, ycell["outputs"], output)

    def clear(self, *, wait: bool) -> None:
        if wait:
            self._clear_on_next = True
            return
        self._clear_on_next = False
        self.outputs.clear()
        if self.live is None:
            assert self.cell is not None
            self.cell["outputs"] = []
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is not None:
                ycell["outputs"].clear()

    def finish(self, execution_count: int | None) -> None:
        if self.live is None:
            assert self.cell is not None
            self.cell["execution_count"] = execution_count
            return
        with self.live.ydoc.transaction():
            if (ycell := self._ycell()) is not None:
                ycell["execution_count"] = execution_count
                ycell["execution_state"] = "idle"


def _append_live(live, youtputs, output: dict) -> None:
    """Append an output as JupyterLab would: a stream continues the last one of its name."""
    if output["output_type"] == "stream" and len(youtputs):
        last = youtputs[len(youtputs) - 1]
        if last.get("output_type") == "stream" and last.get("name") == output["name"]:
            text = last["text"]
            if hasattr(text, "insert"):
                text.insert(len(text), output["text"])
                return
    youtputs.append(live._create_youtputs([output])[0])


def _append_plain(outputs: list, output: dict) -> None:
    if output["output_type"] == "stream" and outputs:
        last = outputs[-1]
        if last.get("output_type") == "stream" and last.get("name") == output["name"]:
            last["text"] = last["text"] + output["text"]
            return
    outputs.append(nbformat.from_dict(output))


class _Cell:
    """One cell's execution as its iopub messages say: outputs to the sink, count, status."""

    def __init__(self, msg_id: str, sink: CellSink):
        self.msg_id, self.sink = msg_id, sink
        self.count: int | None = None
        self.status = "ok"
        self.done = False

    def take(self, msg: dict) -> None:
        if msg["parent_header"].get("msg_id") != self.msg_id:
            return  # someone else's request, or our own kernel_info
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content.get("execution_state") == "idle":
            self.done = True
        elif kind == "execute_input":
            self.count = content.get("execution_count")
        elif kind == "clear_output":
            self.sink.clear(wait=bool(content.get("wait")))
        elif kind in ("stream", "display_data", "execute_result", "error"):
            output = dict(nbformat.v4.output_from_msg(msg))
            output.pop("transient", None)
            if kind == "error":
                self.status = "error"
            self.sink.add(output)


class Executions:
    """Runs cells for the agent against the server's session and kernel managers.

    `server_settings` is the Jupyter web app's settings (looked up per call), `timeout` the
    room's execution timeout now, `on_kernel(path, state)` tells the room the kernel's state.
    """

    def __init__(
        self,
        server_settings: Callable[[], dict],
        timeout: Callable[[], float] = lambda: 300.0,
    ):
        self._settings = server_settings
        self.timeout = timeout
        self.on_kernel: Callable[[str, str], None] = lambda path, state: None
        self._running: dict[str, asyncio.Event] = {}  # kernel id -> set when asked to stop
        self._locks: dict[str, asyncio.Lock] = {}
        self._interrupting: set[asyncio.Future] = set()
        self._following: asyncio.Task | None = None
        self._stopped = False  # the room stopped: no kernel is followed any more

    # -- which kernel ----------------------------------------------------------------------------

    async def choose(self, path: str, kernelspec: str | None) -> KernelChoice:
        sessions = self._settings()["session_manager"]
        for session in await sessions.list_sessions():
            if _session_path(session.get("path") or "") == path and session.get("kernel"):
                kernel = session["kernel"]
                return KernelChoice(kernel["id"], kernel.get("name") or kernelspec or "")
        kernels = self._settings()["kernel_manager"]
        return KernelChoice(None, kernelspec or kernels.default_kernel_name)

    def busy(self, choice: KernelChoice) -> bool:
        if choice.kernel_id is None:
            return False
        km = _kernel_or_none(self._settings()["kernel_manager"], choice.kernel_id)
        return km is not None and km.execution_state == "busy"

    async def _kernel_for(self, path: str, choice: KernelChoice) -> str:
        """The kernel id to run in: the session's, or a new session's kernel."""
        if choice.kernel_id is not None:
            return choice.kernel_id
        again = await self.choose(path, choice.kernel_name)  # someone may have opened it since
        if again.kernel_id is not None:
            return again.kernel_id
        self.on_kernel(path, "starting")
        sessions = self._settings()["session_manager"]
        try:
            model = await sessions.create_session(
                path=path,
                name=path.rsplit("/", 1)[-1],
                type="notebook",
                kernel_name=choice.kernel_name,
            )
        except Exception as err:
            raise NotebookToolError(
                f"Could not start a {choice.kernel_name} kernel for {path}: {err}"
            ) from None
        return model["kernel"]["id"]

    # -- the kernel's state between runs ---------------------------------------------------------

    def _follow(self, path: str, kernel_id: str, shown: str) -> None:
        """Keep showing the state of the kernel the agent last used (a person's run: `busy`);
        not once the room stopped (a run the stop cut short ends after it)."""
        self.stop_following()
        if not self._stopped:
            self._following = asyncio.ensure_future(self._track(path, kernel_id, shown))

    async def _track(self, path: str, kernel_id: str, shown: str) -> None:
        """The server's view of the kernel (`execution_state`, from jupyter_server's own iopub
        subscriber), except "starting": that subscriber can miss a new kernel's messages for
        tens of seconds under load (seen in CI) while the kernel has answered the room."""
        kernels = self._settings()["kernel_manager"]
        while True:
            await asyncio.sleep(FOLLOW)
            if kernel_id in self._running:
                continue  # a run reports its own states (`waiting`, `busy`)
            if (km := _kernel_or_none(kernels, kernel_id)) is None:
                self.on_kernel(path, "shut down")
                return
            state = km.execution_state
            if state != shown and state != "starting":
                self.on_kernel(path, state)
                shown = state

    def stop_following(self) -> None:
        if self._following is not None:
            self._following.cancel()
            self._following = None

    async def stop(self) -> None:
        """The room stops: no kernel is followed from now on, and the tasks that follow or
        interrupt one have ended when this returns (none is left pending for the loop's end)."""
        self._stopped = True
        tasks = [task for task in (self._following, *self._interrupting) if task is not None]
        for task in tasks:
            task.cancel()
        self._following = None
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- running ---------------------------------------------------------------------------------

    async def run(
        self,
        path: str,
        choice: KernelChoice,
        cells: list[tuple[str, str, CellSink]],
    ) -> Ran:
        """Run `cells` (id, code, sink) in order; stop at the first error."""
        kernel_id = await self._kernel_for(path, choice)
        async with self._connected(path, kernel_id) as (km, client, stop):
            return await self._run_cells(path, kernel_id, km, client, cells, stop)

    async def inspect(self, path: str, choice: KernelChoice, names: list[str]) -> str:
        """A summary of each named variable in the notebook's kernel, changing nothing there
        (a silent request: no execution count, no output in the notebook)."""
        if choice.kernel_id is None:
            raise NotebookToolError(
                f"No kernel is running for {path}, so it has no variables yet: run its cells first."
            )
        async with self._connected(path, choice.kernel_id) as (km, client, stop):
            self.on_kernel(path, "busy")
            msg_id = client.execute(
                "",
                silent=True,
                store_history=False,
                allow_stdin=False,
                user_expressions={"summary": inspection(names)},
            )
            reply = await self._reply(path, choice.kernel_id, km, client, msg_id, stop)
        found = reply.get("user_expressions", {}).get("summary", {})
        if found.get("status") != "ok":
            raise NotebookToolError(
                f"The kernel of {path} could not describe them ({found.get('ename', 'no answer')}: "
                f"{found.get('evalue', '')}); notebook_inspect needs a Python (IPython) kernel."
            )
        return ast.literal_eval(found["data"]["text/plain"])

    @contextlib.asynccontextmanager
    async def _connected(self, path: str, kernel_id: str):
        """The kernel to ourselves: after other runs of the room and people's running cells,
        with a client of our own; afterwards the room follows the kernel's state."""
        lock = self._locks.setdefault(kernel_id, asyncio.Lock())
        async with lock:
            stop = self._running[kernel_id] = asyncio.Event()
            client = None
            try:
                km = self._kernel(kernel_id, path)
                # A busy kernel answers nobody's kernel_info until it is idle: wait in the open.
                await self._wait_for_idle(path, kernel_id, km, stop)
                client = km.client(session=_own_session(km))
                client.start_channels()
                await self._connect(client, km, path, stop)
                yield km, client, stop
            finally:
                self._running.pop(kernel_id, None)
                if client is not None:
                    client.stop_channels()
                km = _kernel_or_none(self._settings()["kernel_manager"], kernel_id)
                if km is None:
                    self.on_kernel(path, "shut down")
                else:
                    # Our client saw the kernel go idle. The server's own view of it catches up
                    # a moment later ("busy" here is that lag, not a new run), or has not heard
                    # from the kernel at all yet ("starting", see `_track`).
                    state = "idle" if km.execution_state in LAGGING else km.execution_state
                    self.on_kernel(path, state)
                    self._follow(path, kernel_id, state)

    async def _run_cells(self, path, kernel_id, km, client, cells, stop) -> Ran:
        said: list[str] = []
        images: list[Image] = []
        for n, (cell_id, code, sink) in enumerate(cells, 1):
            await self._wait_for_idle(path, kernel_id, km, stop)
            self.on_kernel(path, "busy")
            sink.start()
            cell = _Cell(client.execute(code, store_history=True, allow_stdin=False), sink)
            try:
                await self._execute(path, kernel_id, km, client, cell, stop)
            except asyncio.CancelledError:
                # The runtime cancels a tool call when its turn is aborted: stop the cell too,
                # and show how it ended (KeyboardInterrupt), as a person's interrupt would.
                await asyncio.shield(self._interrupt(kernel_id))
                await asyncio.shield(self._drain(client, cell))
                raise
            finally:
                sink.finish(cell.count)
            summary = summarize(sink.outputs)
            images.extend(summary.images)
            head = f"Cell {cell_id} ({n} of {len(cells)}), execution count {cell.count}"
            said.append(f"{head}:\n{summary.text or '(no output)'}")
            if cell.status != "ok":
                rest = len(cells) - n
                if rest:
                    said.append(f"It raised an error, so the {rest} cell(s) after it did not run.")
                break
        return Ran("\n\n".join(said), images)

    async def _execute(self, path, kernel_id, km, client, cell: _Cell, stop) -> None:
        """One cell: its iopub messages into the sink until the kernel is idle again."""
        pid = _pid(km)
        timeout = self.timeout()
        deadline = time.monotonic() + timeout
        while not cell.done:
            if stop.is_set():  # `interrupt` has interrupted the kernel
                await self._drain(client, cell)
                raise NotebookToolError(
                    "The turn was stopped, so the kernel was interrupted mid-cell."
                )
            if time.monotonic() > deadline:
                await self._interrupt(kernel_id)
                await self._drain(client, cell)
                raise NotebookToolError(
                    f"The cell ran longer than {timeout:.0f} s (the room's execution timeout), "
                    "so the kernel was interrupted."
                )
            try:
                cell.take(await client.get_iopub_msg(timeout=POLL))
            except queue.Empty:
                await self._check_alive(path, km, pid)

    async def _drain(self, client, cell: _Cell, seconds: float = 1.5) -> None:
        """After an interrupt: the cell's last outputs (its KeyboardInterrupt) until idle."""
        until = time.monotonic() + seconds
        with contextlib.suppress(Exception):
            while not cell.done and time.monotonic() < until:
                with contextlib.suppress(queue.Empty):
                    cell.take(await client.get_iopub_msg(timeout=POLL))

    async def _reply(self, path, kernel_id, km, client, msg_id: str, stop) -> dict:
        """The shell reply to our request, within the room's execution timeout."""
        pid = _pid(km)
        timeout = self.timeout()
        deadline = time.monotonic() + timeout
        while True:
            if stop.is_set():
                raise NotebookToolError("The turn was stopped, so the kernel was interrupted.")
            if time.monotonic() > deadline:
                await self._interrupt(kernel_id)
                raise NotebookToolError(
                    f"The kernel took longer than {timeout:.0f} s (the room's execution timeout) "
                    "to answer, so it was interrupted."
                )
            try:
                msg = await client.get_shell_msg(timeout=POLL)
            except queue.Empty:
                await self._check_alive(path, km, pid)
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                return msg["content"]

    async def _connect(self, client, km, path: str, stop: asyncio.Event) -> None:
        """Until a kernel_info request's status comes back on iopub, the new iopub subscription
        may miss messages (ZeroMQ's slow joiner): ask until it does."""
        deadline = time.monotonic() + 30
        pid = _pid(km)
        while time.monotonic() < deadline and not stop.is_set():
            msg_id = client.kernel_info()
            until = time.monotonic() + 1.0
            while time.monotonic() < until:
                try:
                    msg = await client.get_iopub_msg(timeout=0.1)
                except queue.Empty:
                    await self._check_alive(path, km, pid)
                    continue
                if msg["parent_header"].get("msg_id") == msg_id:
                    return
        raise KernelGone(f"The kernel of {path} did not answer; nothing was run.")

    async def _wait_for_idle(self, path, kernel_id, km, stop) -> None:
        """A person's execution is running: wait for it rather than interleave."""
        pid = _pid(km)
        while km.execution_state == "busy" and not stop.is_set():
            self.on_kernel(path, "waiting")
            await asyncio.sleep(POLL / 2)
            await self._check_alive(path, km, pid)
        if stop.is_set():
            raise NotebookToolError("The turn was stopped before the cell ran.")

    async def _check_alive(self, path: str, km, pid) -> None:
        if not await km.is_alive():
            raise KernelGone(
                f"The kernel of {path} died; the cell did not finish. Someone must restart the "
                "kernel before cells can run again."
            )
        if _pid(km) != pid:
            raise KernelGone(
                f"The kernel of {path} was restarted mid-run: its variables are gone and the "
                "cell did not finish. Run the cells it needs again if that is wanted."
            )

    def _kernel(self, kernel_id: str, path: str):
        km = _kernel_or_none(self._settings()["kernel_manager"], kernel_id)
        if km is None:
            raise KernelGone(f"The kernel of {path} is gone (shut down).")
        return km

    async def _interrupt(self, kernel_id: str) -> None:
        try:
            await self._settings()["kernel_manager"].interrupt_kernel(kernel_id)
        except Exception:
            log.exception("Could not interrupt kernel %s", kernel_id)

    def interrupt(self) -> None:
        """The turn is being stopped: every run in progress interrupts its kernel and ends."""
        for kernel_id, stop in self._running.items():
            if not stop.is_set():
                stop.set()
                task = asyncio.ensure_future(self._interrupt(kernel_id))
                self._interrupting.add(task)
                task.add_done_callback(self._interrupting.discard)


def inspection(names: list[str]) -> str:
    """The expression that describes `names` in an IPython kernel: the kernel API's summaries
    (`kernel/summaries.py`, sent as source: the kernel's environment may lack this package),
    run in a namespace of their own so the people's variables are only read."""
    source = inspect.getsource(summaries)
    return (
        f"(lambda ns: (exec({source!r}, ns), "
        f"ns['describe_variables']({names!r}, get_ipython().user_ns))[1])({{}})"
    )


def card_code(cells: list[tuple[str, str]]) -> str:
    """The code of each cell, as the approval card shows it."""
    parts = []
    for n, (cell_id, source) in enumerate(cells, 1):
        shown = source if len(source) <= MAX_CARD_SOURCE else source[:MAX_CARD_SOURCE] + "\n[...]"
        parts.append(f"# ── cell {n} of {len(cells)} ({cell_id}) ──\n{shown}")
    return "\n\n".join(parts)


def _session_path(path: str) -> str:
    """A session's notebook path; JupyterLab's collaborative drive may prefix it with `RTC:`."""
    return path.removeprefix("RTC:")


def _kernel_or_none(kernels, kernel_id: str):
    """The kernel's manager, None once it is shut down (jupyter_server's kernel manager answers
    an unknown id with an HTTP 404 error, jupyter_client's with KeyError)."""
    return kernels.get_kernel(kernel_id) if kernel_id in kernels else None


def _own_session(km) -> Session:
    """A session of our own for the kernel's key. The manager's session id is also the shell
    socket's identity: a second client with it takes the replies meant for the first one (a
    person's client opened in the server, e.g. by another extension, went deaf after our run)."""
    return Session(key=km.session.key, signature_scheme=km.session.signature_scheme)


def _pid(km) -> Any:
    """The kernel process's id: a restart starts a new process."""
    return getattr(getattr(km, "provisioner", None), "pid", None)
