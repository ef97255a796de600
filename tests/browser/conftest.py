"""Browser tests of the room's JupyterLab panel.

A real `jupyter lab` process with the room and the REAL Copilot runtime, whose model is the tests'
scripted model (`ScriptedModelServer`, in a thread of its own); Debian's chromium driven by
Playwright's sync API. People sign in with `/lab?token=<username>` (see `tests/users.py`): the
login cookie identifies the browser from then on, and its requests go through jupyter_server's
XSRF check like any browser's.

Run: `python -m pytest tests/browser` (screenshots land in `tests/browser/artifacts/`).
Chromium: `$CHROMIUM`, else Debian's `/usr/bin/chromium` (`.ci/run` installs it); Playwright's own
browser download does not work offline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ScriptedModelServer

from ..servers import COPILOT_AGENT, free_port

REPO = Path(__file__).parent.parent.parent
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
READY = 90  # seconds a lab may take to serve the room with an idle agent on a busy machine
SHELL = "#jp-main-dock-panel"
SPLASH = "#jupyterlab-splash"
LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
# JupyterLab user settings every lab starts with: no "get notified about Jupyter news?" toast
# (`--LabApp.news_url=None` alone does not stop it asking) and no update check.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}

CONFIG = (
    """
c.ServerApp.identity_provider_class = "tests.users.SignedInUsers"
c.ServerApp.jpserver_extensions = {{"jupyter_copilot_room": True}}
c.LabApp.expose_app_in_browser = True
c.CopilotRoom.hosts = ["alice"]
c.CopilotRoom.members = ["bob"]
c.CopilotRoom.viewers = ["carol"]
c.CopilotRoom.state_dir = {state_dir!r}
"""
    + COPILOT_AGENT
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


# -- the main thread's event loop belongs to Playwright here ------------------------------------


@pytest.fixture
def jp_asyncio_loop():
    """Replaces pytest-jupyter's autouse loop: these tests are synchronous, and between its calls
    Playwright's sync API marks its own loop as the running one, which that fixture would take,
    use and close."""
    return None


@pytest.fixture
def jp_server_cleanup():
    """Replaces pytest-jupyter's autouse cleanup: no in-process server runs here."""


# -- the scripted model ----------------------------------------------------------------------


def no_script(request):
    return Reply("(no script)")


@pytest.fixture(scope="session")
def model():
    """The scripted model, served from a thread with its own event loop for the whole session.

    Tests set `model.script = ...`; it and `model.requests` are reset whenever a lab starts.
    """
    loop = asyncio.new_event_loop()
    started = threading.Event()
    server = ScriptedModelServer(no_script)

    def serve():
        asyncio.set_event_loop(loop)
        server.start()
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, name="scripted-model", daemon=True)
    thread.start()
    assert started.wait(10), "the scripted model did not start"
    yield server
    asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


# -- a real `jupyter lab` --------------------------------------------------------------------


class Lab:
    """A `jupyter lab` process with the room, on 127.0.0.1 and a free port."""

    def __init__(self, tmp_path: Path, model: ScriptedModelServer):
        self.tmp = tmp_path
        self.root = tmp_path / "repo"
        self.state_dir = tmp_path / "room-state"
        self.config = tmp_path / "lab_config.py"
        self.log = tmp_path / "lab.log"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.startup_seconds: float | None = None
        self.root.mkdir(exist_ok=True)
        self.config.write_text(
            CONFIG.format(state_dir=str(self.state_dir), base_url=model.base_url)
        )

    def start(self, timeout: float = READY) -> None:
        home = self.tmp / "home"
        dirs = {name: home / name for name in ("config", "data", "runtime")}
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            # JUPYTER_COPILOT_ROOM_RUNTIME_DIR comes from os.environ (tests/conftest.py sets it)
            "PYTHONPATH": os.pathsep.join(
                [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
            ),
            "SCRIPTED_MODEL_KEY": "test-key",
            "HOME": str(home),
            "JUPYTER_PLATFORM_DIRS": "1",
            "JUPYTER_CONFIG_DIR": str(dirs["config"]),  # user settings and workspaces too
            "JUPYTER_DATA_DIR": str(dirs["data"]),
            "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        }
        env.pop("JUPYTER_TOKEN", None)
        for plugin, settings in USER_SETTINGS.items():
            package, name = plugin.split(":")
            path = (
                dirs["config"] / "lab" / "user-settings" / package / f"{name}.jupyterlab-settings"
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(settings))
        began = time.monotonic()
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "jupyter",
                    "lab",
                    "--no-browser",
                    "--allow-root",
                    "--ip=127.0.0.1",
                    f"--port={self.port}",
                    "--LabApp.news_url=None",
                    f"--config={self.config}",
                    f"--ServerApp.root_dir={self.root}",
                ],
                cwd=REPO,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, with the Copilot runtime
            )
        deadline = began + timeout
        state = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"jupyter lab exited ({self.process.returncode})\n{self.tail()}"
                )
            with contextlib.suppress(OSError):
                code, room = self.api("alice", "GET", "room")
                if code == 200:
                    state = room["agent"].get("state")
                    if state == "idle":
                        self.startup_seconds = time.monotonic() - began
                        return
                    if state == "unavailable":
                        raise AssertionError(f"the agent is unavailable: {room['agent']}")
            time.sleep(0.1)
        raise AssertionError(f"no idle agent after {timeout} s (state {state})\n{self.tail()}")

    def api(self, user: str | None, method: str, path: str, body=None) -> tuple[int, object]:
        """Call the room's REST API with `Authorization: token <user>` (no XSRF needed)."""
        request = urllib.request.Request(
            f"{self.url}/copilot-room/api/{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {user}"} if user else {},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                code, raw = response.status, response.read()
        except urllib.error.HTTPError as err:
            code, raw = err.code, err.read()
        try:
            return code, json.loads(raw) if raw else None
        except ValueError:
            return code, raw.decode(errors="replace")

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM (jupyter stops the runtime), then SIGKILL to whatever is left of the group."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=15)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)


@pytest.fixture
def lab(tmp_path, model, request):
    """A fresh `jupyter lab` with a fresh room, whose agent is idle; stopped after the test.

    Its log is `lab.log` in the test's tmp_path and is copied to the artifacts when the test fails.
    """
    model.script = no_script
    model.requests.clear()
    server = Lab(tmp_path, model)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        report = getattr(request.node, "report_call", None)
        if (report is None or report.failed) and server.log.exists():
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(server.log, ARTIFACTS / f"{artifact_name(request.node)}-lab.log")


# -- the browser -----------------------------------------------------------------------------


@pytest.fixture(scope="package")
def browser():
    """Headless chromium for the browser tests (Playwright stops when they are done, so its event
    loop does not linger into other tests of the session)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"No chromium at {CHROMIUM}: apt-get install chromium (or set $CHROMIUM).")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def open_lab(browser, lab, request):
    """`open_lab(user)`: a new browser context signed in as `user`, on JupyterLab with its shell
    ready and `window.jupyterapp` restored; returns the page. Console errors and uncaught page
    errors collect in `page.problems`. On failure every page is screenshotted."""
    contexts = []
    pages = []

    def open_as(user: str, path: str = "lab", viewport=(1280, 800)):
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        context.set_default_timeout(30_000)
        contexts.append(context)
        page = context.new_page()
        page.problems = []
        page.on(
            "console",
            lambda m: page.problems.append(m.text) if m.type == "error" else None,
        )
        page.on("pageerror", lambda err: page.problems.append(str(err)))
        page.user = user
        pages.append(page)
        page.goto(f"{lab.url}/{path}?token={user}")
        wait_for_lab(page)
        return page

    yield open_as
    report = getattr(request.node, "report_call", None)
    if report is None or report.failed:
        for page in pages:
            with contextlib.suppress(Exception):
                save_screenshot(page, f"{artifact_name(request.node)}-{page.user}-failed")
    for context in contexts:
        with contextlib.suppress(Exception):
            context.close()


def wait_for_lab(page, timeout: float = 60_000) -> None:
    """JupyterLab's shell is shown, the app restored its layout and the splash screen is gone."""
    page.wait_for_selector(SHELL, state="visible", timeout=timeout)
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=timeout)
    page.evaluate("() => window.jupyterapp.restored")
    page.wait_for_selector(SPLASH, state="detached", timeout=timeout)


# -- artifacts and themes --------------------------------------------------------------------


def artifact_name(node) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", node.name)


def save_screenshot(page, name: str, **kwargs) -> Path:
    """`page` may be a Page or a Locator (a screenshot of that element only)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), **kwargs)
    return path


@pytest.fixture
def screenshot(request):
    """`screenshot(page_or_locator, name)`: saves `tests/browser/artifacts/<test>-<name>.png`."""

    def take(page, name: str, **kwargs) -> Path:
        return save_screenshot(page, f"{artifact_name(request.node)}-{name}", **kwargs)

    return take


def set_theme(page, theme: str = DARK) -> None:
    """Switch JupyterLab's theme with its own command and wait until it is applied.

    The command saves the choice in the lab's user settings, which every user of this server
    shares: pages opened (or reloaded) later start in that theme.
    """
    page.evaluate(
        "theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    page.wait_for_function(
        "theme => document.body.dataset.jpThemeName === theme", arg=theme, timeout=30_000
    )
    # JupyterLab shows its splash screen while the theme's stylesheet loads.
    page.wait_for_selector(SPLASH, state="detached", timeout=30_000)


def page_api(page, method: str, path: str, body=None, *, xsrf: bool = True) -> dict:
    """Call the room's REST API from the page as JupyterLab's `ServerConnection` does: the login
    cookie, the `_xsrf` cookie echoed as `X-XSRFToken`, and `Authorization: token <the server's
    token>` from the page config. Returns `{"status", "json"}`."""
    return page.evaluate(
        """async ([method, path, body, xsrf]) => {
            const config = JSON.parse(
                document.getElementById('jupyter-config-data').textContent);
            const headers = {'Content-Type': 'application/json'};
            if (config.token) headers['Authorization'] = `token ${config.token}`;
            const cookie = document.cookie.split('; ').find(c => c.startsWith('_xsrf='));
            if (xsrf && cookie) headers['X-XSRFToken'] = cookie.slice('_xsrf='.length);
            const base = config.baseUrl || '/';
            const response = await fetch(`${base}copilot-room/api/${path}`, {
                method, headers, credentials: 'same-origin',
                body: body === null ? undefined : JSON.stringify(body),
            });
            const text = await response.text();
            let json = null;
            try { json = JSON.parse(text); } catch (e) {}
            return {status: response.status, json, text};
        }""",
        [method, path, body, xsrf],
    )
