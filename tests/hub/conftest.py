"""The room on a REAL JupyterHub: alice's single-user server, shared with four visitors.

One hub per module, started and stopped by the fixtures, everything on 127.0.0.1:

- `jupyterhub` with `DummyAuthenticator` (the hub's login page, any password) for alice, bob,
  carol, dave and erin; `SimpleLocalProcessSpawner` (every user's server runs as this unix user,
  in a home under the module's tmp folder); the hub group `pairing` holding carol; the custom
  scopes `custom:copilot-room:member` / `:viewer`, with dave holding the viewer scope for alice's
  server and erin the member scope for bob's server only;
- the proxy is npm's `configurable-http-proxy`, from `tests/hub/node_modules` (`npm ci --prefix
  tests/hub`, which `.ci/run` does; the fixture does it once when it is missing) or `$PATH`;
- JupyterHub 5 sharing: the `user` role also grants `shares!user` (share your own servers) and
  `read:users:name` / `read:groups:name` (name whom you share with); alice shares her server with
  each visitor by name (`POST /hub/api/shares/alice/`);
- alice's server is `jupyterhub-singleuser` (JupyterLab, jupyter-collaboration and the room) with
  the REAL Copilot runtime whose model is the scripted model served from a thread of this process;
  `c.CopilotRoom.member_groups = ["pairing"]`; `c.HubOAuth.cache_max_age` is lowered to
  `CACHE_MAX_AGE` so a revoked share takes effect within the test.

Browsers (Debian's chromium through Playwright) sign in on the hub's login page and go through the
hub's OAuth redirects (and, for a shared server, its "Authorize access" page), as people do.

Run: `python -m pytest tests/hub` (hub log on failure, screenshots and `timings.json` land in
`tests/hub/artifacts/`).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ..browser import conftest as browser_tests
from ..browser.conftest import USER_SETTINGS, artifact_name, no_script, wait_for_lab
from ..servers import COPILOT_AGENT, free_port

# The browser tests' fixtures: the scripted model in a thread of its own, Debian's chromium, and
# the two that keep pytest-jupyter's event loop away from Playwright's.
model = browser_tests.model
browser = browser_tests.browser
jp_asyncio_loop = browser_tests.jp_asyncio_loop
jp_server_cleanup = browser_tests.jp_server_cleanup

HERE = Path(__file__).parent
REPO = HERE.parent.parent
ARTIFACTS = HERE / "artifacts"
USERS = ("alice", "bob", "carol", "dave", "erin")
PASSWORD = "pairing-password"  # DummyAuthenticator takes any password; the form wants one
# Seconds alice's server trusts the hub's word about a token (`c.HubOAuth.cache_max_age`; the
# default is 300), so a share revoked on the hub takes effect within the test.
CACHE_MAX_AGE = int(os.environ.get("HUB_TEST_CACHE_MAX_AGE", "5"))
READY = 90  # seconds alice's server may take to serve the room with an idle agent
BIN = Path(sys.executable).parent

HUB_CONFIG = """
import json, os
from pathlib import Path

TMP = Path({tmp!r})
c = get_config()  # noqa

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.db_url = "sqlite:///" + str(TMP / "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = str(TMP / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(TMP / "jupyterhub.pid")
c.JupyterHub.redirect_to_server = False  # a login must not spawn bob's or carol's own server
c.JupyterHub.cleanup_servers = True

c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.auth_token = {proxy_token!r}
c.ConfigurableHTTPProxy.pid_file = str(TMP / "proxy.pid")

c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {users!r}

# JupyterHub 5 sharing: everyone may share their own servers, by user or group name.
c.JupyterHub.load_roles = [
    {{
        "name": "user",
        "scopes": ["self", "shares!user", "read:users:name", "read:groups:name"],
    }},
    {{
        "name": "m1-test",
        "scopes": ["tokens", "list:users", "read:users", "read:servers", "read:shares"],
        "services": ["m1-test"],
    }},
    {{
        "name": "room-viewer-at-alice",
        "scopes": ["custom:copilot-room:viewer!server=alice/"],
        "users": ["dave"],
    }},
    {{
        "name": "room-member-at-bob",
        "scopes": ["custom:copilot-room:member!server=bob/"],
        "users": ["erin"],
    }},
]
c.JupyterHub.custom_scopes = {{
    "custom:copilot-room:member": {{"description": "Prompt the agent in Copilot rooms."}},
    "custom:copilot-room:viewer": {{"description": "Watch Copilot rooms."}},
}}
# Custom scopes reach a single-user server (`hub_user["scopes"]`) only through the scopes its
# OAuth tokens may carry. Unfiltered here on purpose: a scope filtered to one server
# (`...!server=bob/`) must not open another's room (see test_m1).
c.Spawner.oauth_client_allowed_scopes = ["custom:copilot-room:member", "custom:copilot-room:viewer"]
c.JupyterHub.services = [{{"name": "m1-test", "api_token": {service_token!r}}}]
c.JupyterHub.load_groups = {{"pairing": {{"users": ["carol"]}}}}

c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = str(TMP / "users" / "{{username}}")
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.default_url = "/lab"
c.Spawner.args = ["--allow-root", "--config=" + {server_config!r}]
c.Spawner.start_timeout = {ready}
c.Spawner.http_timeout = {ready}

def per_user(name):
    return lambda spawner: str(TMP / "users" / spawner.user.name / name)

c.Spawner.environment = {{
    "PATH": {path!r},
    "PYTHONPATH": {pythonpath!r},
    "SCRIPTED_MODEL_KEY": "test-key",
    "JUPYTER_COPILOT_ROOM_RUNTIME_DIR": {runtime_dir!r},
    "JUPYTER_PLATFORM_DIRS": "1",
    "JUPYTER_CONFIG_DIR": per_user("config"),
    "JUPYTER_DATA_DIR": per_user("data"),
    "JUPYTER_RUNTIME_DIR": per_user("runtime"),
}}

def pre_spawn_hook(spawner):
    home = TMP / "users" / spawner.user.name
    for name in ("notebooks", "config", "data", "runtime"):
        (home / name).mkdir(parents=True, exist_ok=True)
    for plugin, settings in json.loads({user_settings!r}).items():
        package, name = plugin.split(":")
        path = home / "config" / "lab" / "user-settings" / package / (name + ".jupyterlab-settings")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(settings))

c.Spawner.pre_spawn_hook = pre_spawn_hook
"""

# Every user's server reads this (`--config`); its paths follow JUPYTERHUB_USER.
SERVER_CONFIG = (
    """
import os
from pathlib import Path

home = Path({tmp!r}) / "users" / os.environ["JUPYTERHUB_USER"]
c = get_config()  # noqa
c.ServerApp.root_dir = str(home / "notebooks")
c.LabApp.expose_app_in_browser = True
c.LabApp.news_url = None
c.HubOAuth.cache_max_age = {cache_max_age}
c.CopilotRoom.member_groups = ["pairing"]
c.CopilotRoom.websocket_recheck_interval = 1
c.CopilotRoom.state_dir = str(home / "room-state")
"""
    + COPILOT_AGENT
)


# -- reports and artifacts -------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    if report.failed:
        FAILED.add(item.nodeid)
    return report


FAILED: set[str] = set()  # node ids of the tests (or their setups) that failed


@pytest.fixture(scope="module")
def timings():
    """Named durations (seconds) of the module's steps, saved to `artifacts/timings.json`."""
    found: dict[str, float] = {}
    yield found
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "timings.json").write_text(json.dumps(found, indent=2) + "\n")
    print("\nhub timings (s):", json.dumps(found, indent=2))


# -- the proxy -------------------------------------------------------------------------------


def proxy_command() -> str:
    """`configurable-http-proxy` from `tests/hub/node_modules` (installed with `npm ci` from
    `tests/hub/package-lock.json` when missing), else from `$PATH`."""
    local = HERE / "node_modules" / ".bin" / "configurable-http-proxy"
    if not local.exists() and shutil.which("configurable-http-proxy") is None:
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("JupyterHub needs configurable-http-proxy: install Node and npm.")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True, timeout=300)
    if local.exists():
        return str(local)
    return shutil.which("configurable-http-proxy")


# -- the hub ---------------------------------------------------------------------------------


class Hub:
    """A `jupyterhub` process (with its proxy) on 127.0.0.1 and free ports."""

    def __init__(self, tmp: Path, model):
        self.tmp = tmp
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "hub.log"
        self.config = tmp / "jupyterhub_config.py"
        self.server_config = tmp / "singleuser_config.py"
        self.service_token = secrets.token_hex(16)
        self.tokens: dict[str, str] = {}
        self.process: subprocess.Popen | None = None
        self.server_config.write_text(
            SERVER_CONFIG.format(tmp=str(tmp), cache_max_age=CACHE_MAX_AGE, base_url=model.base_url)
        )
        self.config.write_text(
            HUB_CONFIG.format(
                tmp=str(tmp),
                port=self.port,
                hub_port=free_port(),
                proxy=proxy_command(),
                proxy_api_port=free_port(),
                proxy_token=secrets.token_hex(16),
                users=set(USERS),
                service_token=self.service_token,
                singleuser=str(BIN / "jupyterhub-singleuser"),
                server_config=str(self.server_config),
                ready=READY,
                path=os.pathsep.join([str(BIN), os.environ.get("PATH", "/usr/bin:/bin")]),
                pythonpath=os.pathsep.join(
                    [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
                ),
                runtime_dir=os.environ["JUPYTER_COPILOT_ROOM_RUNTIME_DIR"],
                user_settings=json.dumps(USER_SETTINGS),
            )
        )

    # -- processes --

    def start(self, timeout: float = 60) -> None:
        env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}
        env.pop("JUPYTERHUB_API_TOKEN", None)
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                [str(BIN / "jupyterhub"), f"--config={self.config}", "--debug"],
                cwd=self.tmp,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, with the proxy
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"jupyterhub exited ({self.process.returncode})\n{self.tail()}"
                )
            with contextlib.suppress(OSError):
                if self.api(self.service_token, "GET", "")[0] == 200:
                    break
            time.sleep(0.2)
        else:
            raise AssertionError(f"the hub did not answer in {timeout} s\n{self.tail()}")
        for user in USERS:
            code, body = self.api(
                self.service_token, "POST", f"users/{user}/tokens", {"note": "tests/hub"}
            )
            assert code == 201, (code, body)
            self.tokens[user] = body["token"]

    def stop(self) -> None:
        """SIGTERM the hub (it stops the users' servers and its proxy), then SIGKILL whatever it
        started that is still there: the single-user servers and their Copilot runtimes run in
        process groups of their own."""
        if self.process is None:
            return
        family = descendants(self.process.pid)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=20)
        for pid in [self.process.pid, *family]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    def tail(self, lines: int = 60) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    # -- HTTP --

    def request(self, token: str | None, method: str, url: str, body=None) -> tuple[int, object]:
        request = urllib.request.Request(
            url if url.startswith("http") else f"{self.url}{url}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {token}"} if token else {},
        )
        try:
            with urllib.request.urlopen(request, timeout=15) as response:
                code, raw = response.status, response.read()
        except urllib.error.HTTPError as err:
            code, raw = err.code, err.read()
        try:
            return code, json.loads(raw) if raw else None
        except ValueError:
            return code, raw.decode(errors="replace")

    def api(self, token, method: str, path: str, body=None):
        """The hub's REST API (`/hub/api/<path>`)."""
        return self.request(token, method, f"/hub/api/{path}", body)

    def room(self, user: str, method: str, path: str, body=None, owner: str = "alice"):
        """The room's REST API on `owner`'s server, with `user`'s hub API token."""
        return self.request(
            self.tokens[user], method, f"/user/{owner}/copilot-room/api/{path}", body
        )

    def start_server(self, user: str, timeout: float = READY) -> None:
        """`user` starts their server through the hub; returns when its room's agent is idle."""
        code, body = self.api(self.tokens[user], "POST", f"users/{user}/server")
        assert code in (201, 202), (code, body)
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            code, model = self.api(self.tokens[user], "GET", f"users/{user}")
            server = (model.get("servers") or {}).get("") if code == 200 else None
            if server and server.get("ready"):
                with contextlib.suppress(OSError):
                    code, room = self.room(user, "GET", "room", owner=user)
                    if code == 200:
                        state = room["agent"].get("state")
                        if state == "idle":
                            return
                        if state == "unavailable":
                            raise AssertionError(f"the agent is unavailable: {room['agent']}")
            elif code == 200 and not model.get("pending") and server is None:
                raise AssertionError(f"{user}'s server did not start\n{self.tail()}")
            time.sleep(0.2)
        raise AssertionError(f"no idle agent after {timeout} s (state {state})\n{self.tail()}")


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = (entry / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


@pytest.fixture(scope="module")
def hub(tmp_path_factory, model, timings):
    """The hub, alice's server running with an idle agent, and shared with every visitor."""
    model.script = no_script
    model.requests.clear()
    server = Hub(tmp_path_factory.mktemp("hub"), model)
    try:
        began = time.monotonic()
        server.start()
        timings["hub_start"] = round(time.monotonic() - began, 2)
        began = time.monotonic()
        server.start_server("alice")
        timings["alice_server_to_idle_agent"] = round(time.monotonic() - began, 2)
        # Everyone by name: a share with the group `pairing` would not let carol in (JupyterHub
        # 6.1.1 leaves group shares out of what an OAuth token may do; see the report).
        for visitor in USERS[1:]:
            share_with = {"user": visitor}
            code, body = server.api(server.tokens["alice"], "POST", "shares/alice/", share_with)
            assert code == 200, (code, body)
        yield server
    finally:
        server.stop()
        if FAILED or not server.process or server.process.returncode not in (0, None):
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(server.log, ARTIFACTS / "hub.log")


# -- browsers --------------------------------------------------------------------------------


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


def sign_in(browser, hub, user: str, path: str = "/user/alice/lab"):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda err: page.problems.append(str(err)))
    page.user = user
    page.consented = False
    page.goto(f"{hub.url}{path}")
    page.wait_for_selector("#username_input", timeout=30_000)
    page.fill("#username_input", user)
    page.fill("#password_input", PASSWORD)
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
