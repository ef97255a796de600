"""Real server processes for the end-to-end, browser and hub tests: started with a config file,
waited for, stopped.

`ServerProcess` is any such process (`jupyterhub` too, see `hub.py`); `JupyterServer` is a
`jupyter server` or `jupyter lab` with the room, the test people and a home of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from . import config, people
from .clients import YClient

REPO = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
READY = 90  # seconds a server may take to serve the room with an idle agent on a busy machine


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def python_path() -> str:
    """This checkout first, so `tests.*` import paths in config files resolve."""
    return os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])


class ServerProcess:
    """A process serving on 127.0.0.1, in a process group of its own, its output in `log`."""

    # jupyter_server runs its cleanup (extensions' `stop_extension`: the room records the turn
    # the stop interrupted and stops the Copilot runtime) on SIGTERM. SIGINT without a terminal
    # on stdin is a bare KeyboardInterrupt that skips that cleanup; JupyterHub treats both alike.
    stop_signal = signal.SIGTERM

    def __init__(self, folder: Path, name: str, *, strict_stop: bool = False):
        self.folder = folder
        self.name = name
        self.log = folder / f"{name}.log"
        self.strict_stop = strict_stop
        self.process: subprocess.Popen | None = None
        self.launched_at: float | None = None
        self.stdin: int = subprocess.DEVNULL  # a terminal's fd: the server asks on a Ctrl-C
        folder.mkdir(parents=True, exist_ok=True)

    def spawn(self, argv: list[str], env: dict[str, str], cwd: Path = REPO) -> None:
        self.launched_at = time.monotonic()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=self.stdin,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, with what it starts
            )

    def check_running(self) -> None:
        if self.process is None or self.process.poll() is not None:
            code = None if self.process is None else self.process.returncode
            raise AssertionError(f"{self.name} exited ({code})\n{self.tail()}")

    def wait_until(self, ready, timeout: float, what: str) -> None:
        """Poll `ready()` until it is true; fail with the log's tail if the process exits, or if
        `what` does not happen within `timeout` seconds. Connection errors count as not yet."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_running()
            with contextlib.suppress(OSError):
                if ready():
                    return
            time.sleep(0.1)
        raise AssertionError(f"no {what} after {timeout} s\n{self.tail()}")

    async def until(self, ready, timeout: float, what: str) -> None:
        """`wait_until` for async tests: `ready` may be a coroutine function; the loop runs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.check_running()
            with contextlib.suppress(OSError):
                result = ready()
                if inspect.isawaitable(result):
                    result = await result
                if result:
                    return
            await asyncio.sleep(0.1)
        raise AssertionError(f"no {what} after {timeout} s\n{self.tail()}")

    def stop(self, grace: float = 20) -> None:
        """`stop_signal`, `grace` seconds to stop; then SIGKILL to whatever it started that is
        still there. With `strict_stop`, needing the kill fails the test."""
        if not self._end(grace) and self.strict_stop:
            raise AssertionError(f"{self.name} did not stop within {grace} s\n{self.tail()}")

    def kill(self) -> None:
        """At once, with what it started (a test's leftovers)."""
        if self.process is not None and self.process.poll() is None:
            self._end(grace=0)

    def _end(self, grace: float) -> bool:
        """Whether it stopped by itself; afterwards nothing it started runs: its process group
        and descendants that made groups of their own (a hub's single-user servers) are killed."""
        if self.process is None:
            return True
        family = descendants(self.process.pid)
        stopped = True
        if self.process.poll() is None:
            self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                stopped = False
        for pid, leads_group in [(self.process.pid, True), *family]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if leads_group:
                    os.killpg(pid, signal.SIGKILL)
                else:
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        return stopped

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def descendants(pid: int) -> list[tuple[int, bool]]:
    """Every process below `pid` (from /proc), and whether it leads its own process group."""
    children: dict[int, list[tuple[int, bool]]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            ppid, pgid = int(fields[1]), int(fields[2])
            children.setdefault(ppid, []).append((int(entry.name), pgid == int(entry.name)))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


class JupyterServer(ServerProcess):
    """`jupyter server` (or `jupyter lab`) with the room on a free port, configured by
    `config.room` with `room` settings, then `extra` config sections, run by `python` (another
    virtual environment's for the oldest supported versions).

    Its files are in `folder`: the repository the room works in (`root`), the room's
    `state_dir`, the config file, the log, and a home with its own Jupyter directories.
    """

    def __init__(
        self,
        folder: Path,
        *,
        app: str = "server",
        room: dict | None = None,
        extra: tuple[dict, ...] = (),
        env: dict[str, str] | None = None,
        strict_stop: bool = False,
        python: Path | str = sys.executable,
    ):
        super().__init__(folder, app, strict_stop=strict_stop)
        self.app = app
        self.python = str(python)
        self.root = folder / "repo"
        self.state_dir = folder / "room-state"
        self.home = folder / "home"
        self.config_file = folder / f"{app}_config.py"
        self.env = env or {}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.startup_seconds: float | None = None
        self.config = config.merge(
            config.room(self.state_dir, **(room or {})),
            *([config.LAB] if app == "lab" else []),
            *extra,
        )
        self.root.mkdir(exist_ok=True)
        self.config_file.write_text(config.render(self.config))

    def launch(self) -> None:
        dirs = {name: self.home / name for name in ("config", "data", "runtime")}
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        write_user_settings(dirs["config"])
        env = {
            **os.environ,
            # JUPYTER_COPILOT_ROOM_RUNTIME_DIR comes from os.environ (the pytest plugin sets it)
            "PYTHONPATH": python_path(),
            config.MODEL_KEY_ENV: config.MODEL_KEY,
            "HOME": str(self.home),
            "JUPYTER_PLATFORM_DIRS": "1",
            "JUPYTER_CONFIG_DIR": str(dirs["config"]),  # user settings and workspaces too
            "JUPYTER_DATA_DIR": str(dirs["data"]),
            "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
            **self.env,
        }
        env.pop("JUPYTER_TOKEN", None)
        self.spawn(
            [
                self.python,
                "-m",
                "jupyter",
                self.app,
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                f"--port={self.port}",
                f"--config={self.config_file}",
                f"--ServerApp.root_dir={self.root}",
            ],
            env,
        )

    # -- starting --

    def start(self, timeout: float = READY) -> None:
        """Launch; return once the room's agent is idle, so a synchronous test can use it at
        once. An unavailable agent fails at once."""
        self.launch()
        self.wait_until(self._agent_idle, timeout, "idle agent")
        self.startup_seconds = time.monotonic() - self.launched_at

    async def start_async(self, timeout: float = 60) -> None:
        """Launch; return once the room answers. The event loop keeps running meanwhile (the
        tests' scripted model may live in it), and the test watches the agent itself."""
        self.launch()
        await self.until(self._answers, timeout, "answer from the room")

    def _agent_idle(self) -> bool:
        return agent_idle(self.api, "the agent")

    async def _answers(self) -> bool:
        response = await self.call(people.HOST, "GET", "room")
        return response is not None and response.code == 200

    def visit(self, page, user: str, path: str = "lab") -> None:
        """`page` (Playwright's) on JupyterLab, or another page of the server, at `path`,
        signed in as `user`."""
        page.goto(f"{self.url}/{path}?token={people.token(user)}")

    # -- the room's API, as a test person --

    def api(self, user: str | None, method: str, path: str, body=None) -> tuple[int, object]:
        """Synchronous: `(status, JSON body)` of a room API call (no XSRF needed)."""
        return request(
            f"{self.url}/copilot-room/api/{path}", method, body, people.authorization(user)
        )

    async def call(self, user: str | None, method: str, path: str, body=None):
        """Asynchronous: tornado's response (errors too: `.code`, `.body`)."""
        req = HTTPRequest(
            f"{self.url}/copilot-room/api/{path}",
            method=method,
            headers=people.authorization(user),
            body=None if body is None else json.dumps(body),
        )
        try:
            return await AsyncHTTPClient().fetch(req)
        except HTTPClientError as err:
            return err.response

    async def room(self, user: str = people.HOST) -> dict:
        return json.loads((await self.call(user, "GET", "room")).body)

    async def watch(self, user: str) -> YClient:
        """A live client of the room's document, as `user`."""
        ws = await websocket_connect(
            HTTPRequest(
                f"ws://127.0.0.1:{self.port}/copilot-room/ws", headers=people.authorization(user)
            )
        )
        return YClient(ws)


def request(url: str, method: str, body=None, headers: dict[str, str] | None = None):
    """A synchronous HTTP call with a JSON body: `(status, JSON body or text)`."""
    req = urllib.request.Request(
        url,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers=headers or {},
    )
    try:
        with urllib.request.urlopen(req, timeout=15) as response:
            code, raw = response.status, response.read()
    except urllib.error.HTTPError as err:
        code, raw = err.code, err.read()
    try:
        return code, json.loads(raw) if raw else None
    except ValueError:
        return code, raw.decode(errors="replace")


def write_user_settings(config_dir: Path) -> None:
    """JupyterLab's user settings for the tests (`config.USER_SETTINGS`) under `config_dir`."""
    for plugin, settings in config.USER_SETTINGS.items():
        package, name = plugin.split(":")
        path = config_dir / "lab" / "user-settings" / package / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))


def agent_idle(api, what: str) -> bool:
    """Whether the room `api` calls (a server's main, or a room of its own) has an idle agent;
    its agent unavailable fails at once, naming `what`."""
    code, room = api(people.HOST, "GET", "room")
    if code != 200:
        return False
    if room["agent"].get("state") == "unavailable":
        raise AssertionError(f"{what} is unavailable: {room['agent']}")
    return room["agent"].get("state") == "idle"
