"""Fixtures of the browser tests (imported by `tests/browser/conftest.py`; the hub tests reuse
the model, the browser and the event-loop overrides).

A real `jupyter lab` (`JupyterServer`) with the room and the REAL Copilot runtime, whose model is
the tests' scripted model (`ScriptedModelServer`, in a thread of its own); Debian's chromium driven
by Playwright's sync API. People sign in with `/lab?token=<name>` (see `people.py`).

Chromium: `$CHROMIUM`, else Debian's `/usr/bin/chromium` (`.ci/run` installs it); Playwright's own
browser download does not work offline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_copilot_room.agent.scripted_model import ScriptedModelServer

from . import config
from .helpers import no_script
from .pages import ARTIFACTS, artifact_name, new_page, save_screenshot, wait_for_lab
from .server import JupyterServer
from .shared_lab import RoomOfItsOwn, reset_lab_state

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


class Served:
    """A local service on a thread of its own (`served_in_thread`), and the event loop its
    handlers run on: what a test has it do (`run(fake.message_event(...))`) runs there too."""

    def __init__(self, service, loop: asyncio.AbstractEventLoop):
        self.service = service
        self.loop = loop

    def run(self, coroutine, timeout: float = 10):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)


@contextlib.contextmanager
def served_in_thread(service, name: str):
    """A local service (the scripted model, a fake of GitHub or Slack) on a thread with its own
    event loop, as `Served`: the browser tests are synchronous and run none."""
    loop = asyncio.new_event_loop()
    started = threading.Event()

    def serve():
        asyncio.set_event_loop(loop)
        service.start()
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=serve, name=name, daemon=True)
    thread.start()
    assert started.wait(10), f"{name} did not start"
    try:
        yield Served(service, loop)
    finally:
        asyncio.run_coroutine_threadsafe(service.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture(scope="session")
def model():
    """The scripted model, served from a thread with its own event loop for the whole session.

    Tests set `model.script = ...`; it and `model.requests` are reset whenever a lab starts.
    """
    with served_in_thread(ScriptedModelServer(no_script), "scripted-model") as served:
        yield served.service


# -- a real `jupyter lab` --------------------------------------------------------------------


@pytest.fixture
def lab(tmp_path, model, request):
    """A fresh `jupyter lab` with a fresh room, whose agent is idle; stopped after the test.

    Marked `shared_lab`, the test gets a room of its own on the browser tests' one
    `jupyter lab` instead (`RoomOfItsOwn`: `api`, `root`, `url`, `visit`), for
    tests whose isolation is their room: no restart, claim or server configuration.

    Its log is `lab.log` in the test's tmp_path and is copied to the artifacts when the test fails.
    """
    model.script = no_script
    model.requests.clear()
    if request.node.get_closest_marker("shared_lab"):
        server = request.getfixturevalue("shared_lab_server")
        try:
            yield RoomOfItsOwn.create(server)
        finally:
            reset_lab_state(server)
            keep_log_if_failed(server, request)
        return
    server = JupyterServer(tmp_path, app="lab", room=config.copilot_agent(model.base_url))
    with serving(server, request, server.start):
        yield server


@pytest.fixture(scope="package")
def shared_lab_server(tmp_path_factory, model):
    """The one `jupyter lab` of the `shared_lab` tests (per test process: pytest-xdist's workers
    each have theirs), started by the first of them."""
    server = JupyterServer(
        tmp_path_factory.mktemp("shared-lab"), app="lab", room=config.copilot_agent(model.base_url)
    )
    try:
        server.start()
        yield server
    finally:
        server.stop(grace=15)


def keep_log_if_failed(server: JupyterServer, request) -> None:
    """The server's log in the artifacts (as `<test>-lab.log`) when `request`'s test failed."""
    report = getattr(request.node, "report_call", None)
    if (report is None or report.failed) and server.log.exists():
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(server.log, ARTIFACTS / f"{artifact_name(request.node)}-lab.log")


@contextlib.contextmanager
def serving(server: JupyterServer, request, start: Callable[[], None]):
    """`server`, started by `start`, for one test; stopped after it, its log kept in the
    artifacts (as `<test>-lab.log`) when the test failed."""
    try:
        start()
        yield server
    finally:
        server.stop(grace=15)
        keep_log_if_failed(server, request)


@pytest.fixture
def pages(browser, request):
    """`pages(name, url)`: a new browser (own cookies) on `url`, JupyterLab ready."""
    opened = []

    def open_page(name: str, url: str):
        page = new_page(browser, name)
        opened.append(page)
        page.goto(url)
        wait_for_lab(page)
        return page

    yield open_page
    report = getattr(request.node, "report_call", None)
    for page in opened:
        if report is None or report.failed:
            page.screenshot(path=str(ARTIFACTS / f"{artifact_name(request.node)}-{page.user}.png"))
        page.context.close()


def printed_lab_url(log: str) -> str:
    """The first `http://127.0.0.1:PORT/lab?token=...` jupyter_server printed."""
    return re.search(r"(http://127\.0\.0\.1:\d+/lab\?token=\w+)", log).group(1)


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
    pages = []

    def open_as(
        user: str, path: str = "lab", viewport=(1280, 800), timezone=None, offer_workspace=False
    ):
        page = new_page(browser, user, viewport, timezone, offer_workspace)
        pages.append(page)
        lab.visit(page, user, path)
        wait_for_lab(page)
        return page

    yield open_as
    report = getattr(request.node, "report_call", None)
    if report is None or report.failed:
        for page in pages:
            with contextlib.suppress(Exception):
                save_screenshot(page, f"{artifact_name(request.node)}-{page.user}-failed")
    for page in pages:
        with contextlib.suppress(Exception):
            page.context.close()


@pytest.fixture
def screenshot(request):
    """`screenshot(page_or_locator, name)`: saves `tests/browser/artifacts/<test>-<name>.png`."""

    def take(page, name: str, **kwargs) -> Path:
        return save_screenshot(page, f"{artifact_name(request.node)}-{name}", **kwargs)

    return take
