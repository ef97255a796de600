"""Fixtures of the hub tests (imported by `tests/hub/conftest.py`): one hub per module, alice's
server running with an idle agent and shared with every visitor, and browsers signed in on the
hub as people sign in. Hub log on failure, screenshots and `timings.json` land in
`tests/hub/artifacts/`."""

from __future__ import annotations

import contextlib
import json
import shutil
import time

import pytest

from .helpers import no_script
from .hub import HUB_TESTS, Hub
from .pages import artifact_name, new_page, wait_for_lab
from .people import HUB_OWNER, HUB_PASSWORD, PEOPLE

ARTIFACTS = HUB_TESTS / "artifacts"


def failed_in(module, session) -> bool:
    """Whether a test of `module` (or its setup or teardown) failed so far."""
    reports = [
        getattr(item, f"report_{when}", None)
        for item in session.items
        if getattr(item, "module", None) is module
        for when in ("setup", "call", "teardown")
    ]
    return any(report is not None and report.failed for report in reports)


@pytest.fixture(scope="module")
def timings():
    """Named durations (seconds) of the module's steps, saved to `artifacts/timings.json`."""
    found: dict[str, float] = {}
    yield found
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "timings.json").write_text(json.dumps(found, indent=2) + "\n")
    print("\nhub timings (s):", json.dumps(found, indent=2))


@pytest.fixture(scope="module")
def hub(tmp_path_factory, model, timings, request):
    """The hub, alice's server running with an idle agent, and shared with every visitor."""
    model.script = no_script
    model.requests.clear()
    server = Hub(tmp_path_factory.mktemp("hub"), model.base_url)
    try:
        began = time.monotonic()
        server.start()
        timings["hub_start"] = round(time.monotonic() - began, 2)
        began = time.monotonic()
        server.start_server(HUB_OWNER)
        timings["alice_server_to_idle_agent"] = round(time.monotonic() - began, 2)
        # Everyone by name: a share with the group `pairing` would not let carol in (JupyterHub
        # 6.1.1 leaves group shares out of what an OAuth token may do; see the report).
        for visitor in PEOPLE:
            if visitor == HUB_OWNER:
                continue
            share_with = {"user": visitor}
            code, body = server.api(
                server.tokens[HUB_OWNER], "POST", f"shares/{HUB_OWNER}/", share_with
            )
            assert code == 200, (code, body)
        yield server
    finally:
        server.stop()
        failed = failed_in(request.module, request.session)
        if failed or not server.process or server.process.returncode not in (0, None):
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(server.log, ARTIFACTS / "hub.log")


@pytest.fixture(scope="module")
def people(browser, hub):
    """`people[user]`: a browser context signed in on the hub as `user`, on alice's JupyterLab.

    Signing in goes the way a person goes: `/user/alice/lab` → the hub's OAuth → its login page
    → (for a visitor, the hub's "Authorize access" page) → alice's JupyterLab."""
    pages: dict = {}

    class People(dict):
        def __missing__(self, user):
            self[user] = pages[user] = sign_in(browser, hub, user)
            return self[user]

    signed_in = People()
    yield signed_in
    for page in pages.values():
        with contextlib.suppress(Exception):
            page.context.close()


def sign_in(browser, hub, user: str, path: str = f"/user/{HUB_OWNER}/lab"):
    page = new_page(browser, user)
    page.consented = False
    page.goto(f"{hub.url}{path}")
    page.wait_for_selector("#username_input", timeout=30_000)
    page.fill("#username_input", user)
    page.fill("#password_input", HUB_PASSWORD)
    page.click("#login_submit")
    authorize = page.get_by_role("button", name="Authorize")
    shell = page.locator("#jp-main-dock-panel")
    authorize.or_(shell).first.wait_for(timeout=60_000)
    if authorize.count():
        page.consented = True
        authorize.click()
    wait_for_lab(page)
    return page


@pytest.fixture(autouse=True)
def screenshots_on_failure(request):
    yield
    report = getattr(request.node, "report_call", None)
    if report is None or not report.failed or "people" not in request.fixturenames:
        return
    people = request.getfixturevalue("people")
    ARTIFACTS.mkdir(exist_ok=True)
    for user in list(people):
        with contextlib.suppress(Exception):
            people[user].screenshot(
                path=str(ARTIFACTS / f"{artifact_name(request.node)}-{user}-failed.png")
            )
