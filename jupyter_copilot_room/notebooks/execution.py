"""The agent runs notebook cells in the kernel the people in the notebook are attached to.

The kernel is the one of the notebook's jupyter_server session (what JupyterLab attached to);
without one, a session is started with the notebook's kernelspec, so people who open the notebook
later join that kernel. Cells run one at a time, each only once the kernel is idle, on a link of
the run's own (`kernel_link.py`: waiting for people's executions, timeouts, a kernel that dies);
outputs go into the shared notebook as they arrive (`cell_sink.py`), so every collaborator sees
them live and the saved file holds them. The model gets a bounded summary (`outputs.py`).

This module decides which kernel a run uses and owns what lives between runs: one run at a time
per kernel, an abort of the turn interrupting every run at once (`interrupt`), and the kernel's
state shown to the room through `on_kernel` (`busy`, `idle`, `waiting`), which after a run keeps
following that kernel, so people's own executions show too.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from .cell_sink import CellSink, RunningCell
from .kernel_link import KernelGone, KernelLink
from .outputs import OutputImage, summarize
from .tools import NotebookToolError

log = logging.getLogger(__name__)

#: The kernel API's summaries, read as source (importing them would import `kernel/`'s client).
SUMMARIES = Path(__file__).resolve().parent.parent / "kernel" / "summaries.py"
#: Seconds between looks at the kernel's state once the agent has used it.
FOLLOW = 0.5
#: The server's view of a kernel right after the room's run ended in it: not news (`_connected`).
LAGGING = ("busy", "starting")


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
    images: list[OutputImage] = field(default_factory=list)


class Executions:
    """Runs cells for the agent against the server's session and kernel managers.

    `server_settings` is the Jupyter web app's settings (looked up per call), `timeout` the
    room's execution timeout now; `on_kernel` listeners hear each kernel's state (the room's).
    """

    def __init__(
        self,
        server_settings: Callable[[], dict],
        timeout: Callable[[], float] = lambda: 300.0,
    ):
        self._settings = server_settings
        self.timeout = timeout
        self._kernel_listeners: list[Callable[[str, str], None]] = []
        self._running: dict[str, asyncio.Event] = {}  # kernel id -> set when asked to stop
        self._locks: dict[str, asyncio.Lock] = {}
        self._cleanups: set[asyncio.Future] = set()
        self._following: asyncio.Task | None = None
        self._stopped = False  # the room stopped: no kernel is followed any more

    def on_kernel(self, listener: Callable[[str, str], None]) -> None:
        """Tell `listener` each kernel's state: (notebook path, state). The room's document
        listens, from the room's construction (`room/room.py`)."""
        self._kernel_listeners.append(listener)

    def _show_kernel(self, path: str, state: str) -> None:
        for listener in self._kernel_listeners:
            listener(path, state)

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
        self._show_kernel(path, "starting")
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
                self._show_kernel(path, "shut down")
                return
            state = km.execution_state
            if state != shown and state != "starting":
                self._show_kernel(path, state)
                shown = state

    def stop_following(self) -> None:
        if self._following is not None:
            self._following.cancel()
            self._following = None

    async def stop(self) -> None:
        """The room stops: no kernel is followed from now on, and the tasks that follow or
        interrupt one have ended when this returns (none is left pending for the loop's end)."""
        self._stopped = True
        if self._following is not None:
            self._following.cancel()
            await asyncio.gather(self._following, return_exceptions=True)
            self._following = None
        while self._cleanups:  # a run cancelled meanwhile may add its own
            tasks = list(self._cleanups)
            for task in tasks:
                task.cancel()
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
        async with self._connected(path, kernel_id) as link:
            return await self._run_cells(kernel_id, link, cells)

    async def inspect(self, path: str, choice: KernelChoice, names: list[str]) -> str:
        """A summary of each named variable in the notebook's kernel, changing nothing there
        (a silent request: no execution count, no output in the notebook)."""
        if choice.kernel_id is None:
            raise NotebookToolError(
                f"No kernel is running for {path}, so it has no variables yet: run its cells first."
            )
        async with self._connected(path, choice.kernel_id) as link:
            self._show_kernel(path, "busy")
            msg_id = link.client.execute(
                "",
                silent=True,
                store_history=False,
                allow_stdin=False,
                user_expressions={"summary": inspection(names)},
            )
            reply = await link.reply(msg_id)
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
            link = None
            try:
                link = KernelLink(
                    path,
                    self._kernel(kernel_id, path),
                    stop,
                    report=lambda state: self._show_kernel(path, state),
                    interrupt=functools.partial(self._interrupt, kernel_id),
                    timeout=self.timeout,
                )
                # A busy kernel answers nobody's kernel_info until it is idle: wait in the open.
                await link.wait_for_idle()
                link.open()
                await link.connect()
                yield link
            finally:
                self._running.pop(kernel_id, None)
                if link is not None:
                    link.close()
                km = _kernel_or_none(self._settings()["kernel_manager"], kernel_id)
                if km is None:
                    self._show_kernel(path, "shut down")
                else:
                    # Our client saw the kernel go idle. The server's own view of it catches up
                    # a moment later ("busy" here is that lag, not a new run), or has not heard
                    # from the kernel at all yet ("starting", see `_track`).
                    state = "idle" if km.execution_state in LAGGING else km.execution_state
                    self._show_kernel(path, state)
                    self._follow(path, kernel_id, state)

    async def _run_cells(
        self, kernel_id: str, link: KernelLink, cells: list[tuple[str, str, CellSink]]
    ) -> Ran:
        said: list[str] = []
        images: list[OutputImage] = []
        for n, (cell_id, code, sink) in enumerate(cells, 1):
            await link.wait_for_idle()
            self._show_kernel(link.path, "busy")
            sink.start()
            cell = RunningCell(
                link.client.execute(code, store_history=True, allow_stdin=False), sink
            )
            try:
                await link.execute(cell)
            except asyncio.CancelledError:
                # The runtime cancels a tool call when its turn is aborted: stop the cell too,
                # and show how it ended (KeyboardInterrupt), as a person's interrupt would.
                await asyncio.shield(self._cleanup(self._interrupt(kernel_id)))
                await asyncio.shield(self._cleanup(link.drain(cell)))
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
                self._cleanup(self._interrupt(kernel_id))

    def _cleanup(self, work: Awaitable) -> asyncio.Future:
        """Work that outlives the run it ends (an interrupt, the last outputs): the room's stop
        awaits it, so none is left pending when the loop ends."""
        task = asyncio.ensure_future(work)
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)
        return task


def inspection(names: list[str]) -> str:
    """The expression that describes `names` in an IPython kernel: the kernel API's summaries
    (`kernel/summaries.py`, sent as source: the kernel's environment may lack this package),
    run in a namespace of their own so the people's variables are only read."""
    source = SUMMARIES.read_text(encoding="utf-8")
    return (
        f"(lambda ns: (exec({source!r}, ns), "
        f"ns['describe_variables']({names!r}, get_ipython().user_ns))[1])({{}})"
    )


def card_code(cells: list[tuple[str, str]]) -> str:
    """The code of each cell, whole: the room's card cuts it and says how much it hid
    (`room/cards/card_content.py`)."""
    parts = []
    for n, (cell_id, source) in enumerate(cells, 1):
        parts.append(f"# ── cell {n} of {len(cells)} ({cell_id}) ──\n{source}")
    return "\n\n".join(parts)


def _session_path(path: str) -> str:
    """A session's notebook path; JupyterLab's collaborative drive may prefix it with `RTC:`."""
    return path.removeprefix("RTC:")


def _kernel_or_none(kernels, kernel_id: str):
    """The kernel's manager, None once it is shut down (jupyter_server's kernel manager answers
    an unknown id with an HTTP 404 error, jupyter_client's with KeyError)."""
    return kernels.get_kernel(kernel_id) if kernel_id in kernels else None
