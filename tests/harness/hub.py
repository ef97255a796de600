"""A real JupyterHub for `tests/hub/`: `jupyterhub` with its proxy, the test people, and their
single-user servers with the room.

- `DummyAuthenticator` (the hub's login page, any password) for `people.PEOPLE`;
  `SimpleLocalProcessSpawner` (every user's server runs as this unix user, in a home under the
  hub's folder); the hub groups `people.HUB_GROUPS`; the custom scopes
  `custom:copilot-room:member` / `:viewer`, granted as `people.HUB_SCOPES` says;
- the proxy is npm's `configurable-http-proxy`, from `tests/hub/node_modules` (`npm ci --prefix
  tests/hub`, which `.ci/run` does; `proxy_command` does it once when it is missing) or `$PATH`;
- JupyterHub 5 sharing: the `user` role also grants `shares!user` (share your own servers) and
  `read:users:name` / `read:groups:name` (name whom you share with);
- every user's server is `jupyterhub-singleuser` (JupyterLab, jupyter-collaboration and the room)
  with the REAL Copilot runtime whose model is the tests' scripted model; the room admits
  `people.MEMBER_GROUPS` as members; `c.HubOAuth.cache_max_age` is lowered to `CACHE_MAX_AGE` so
  a revoked share takes effect within a test.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

from . import config, people
from .helpers import node_binary
from .server import BIN, READY, ServerProcess, free_port, python_path, request

HUB_TESTS = Path(__file__).parents[1] / "hub"
# Seconds a user's server trusts the hub's word about a token (`c.HubOAuth.cache_max_age`; the
# default is 300), so a share revoked on the hub takes effect within the test.
CACHE_MAX_AGE = int(os.environ.get("HUB_TEST_CACHE_MAX_AGE", "5"))

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
] + {scope_roles!r}
c.JupyterHub.custom_scopes = {{
    "custom:copilot-room:member": {{"description": "Prompt the agent in Copilot rooms."}},
    "custom:copilot-room:viewer": {{"description": "Watch Copilot rooms."}},
}}
# Custom scopes reach a single-user server (`hub_user["scopes"]`) only through the scopes its
# OAuth tokens may carry. Unfiltered here on purpose: a scope filtered to one server
# (`...!server=bob/`) must not open another's room (see test_m1).
c.Spawner.oauth_client_allowed_scopes = ["custom:copilot-room:member", "custom:copilot-room:viewer"]
c.JupyterHub.services = [{{"name": "m1-test", "api_token": {service_token!r}}}]
c.JupyterHub.load_groups = {groups!r}

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
    {model_key_env!r}: {model_key!r},
    "JUPYTER_COPILOT_ROOM_RUNTIME_DIR": {runtime_dir!r},
    "COPILOT_PKG_CACHE_HOME": {pkg_cache!r},
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

# Every user's server reads this (`--config`); its paths follow JUPYTERHUB_USER. The room's own
# settings come from `config`, as for the tests' other servers.
SERVER_PATHS = """
import os
from pathlib import Path

home = Path({tmp!r}) / "users" / os.environ["JUPYTERHUB_USER"]
c = get_config()  # noqa
c.ServerApp.root_dir = str(home / "notebooks")
c.CopilotRoom.state_dir = str(home / "room-state")
"""


def server_config(base_url: str) -> dict:
    """The single-user servers' settings: JupyterLab as the browser tests drive it, and the room
    with the Copilot agent and the scripted model, admitting `people.MEMBER_GROUPS`."""
    return config.merge(
        config.LAB,
        {"HubOAuth": {"cache_max_age": CACHE_MAX_AGE}},
        {
            "CopilotRoom": {
                "member_groups": people.MEMBER_GROUPS,
                "websocket_recheck_interval": 1,
                **config.copilot_agent(base_url),
            }
        },
    )


def scope_roles() -> list[dict]:
    """A hub role per person in `people.HUB_SCOPES`, granting them that scope."""
    return [
        {"name": f"copilot-room-scope-of-{user}", "scopes": [scope], "users": [user]}
        for user, scope in people.HUB_SCOPES.items()
    ]


def proxy_command() -> str:
    """`configurable-http-proxy` from `tests/hub/node_modules` (installed with `npm ci` from
    `tests/hub/package-lock.json` when missing), else from `$PATH`."""
    on_path = shutil.which("configurable-http-proxy")
    local = HUB_TESTS / "node_modules" / ".bin" / "configurable-http-proxy"
    if on_path is not None and not local.exists():
        return on_path
    return str(node_binary(HUB_TESTS, "configurable-http-proxy", "JupyterHub"))


class Hub(ServerProcess):
    """A `jupyterhub` process (with its proxy) on 127.0.0.1 and free ports; `tokens[user]` are
    the people's hub API tokens once it started."""

    def __init__(self, folder: Path, model_url: str):
        super().__init__(folder, "hub")
        self.tmp = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.config = folder / "jupyterhub_config.py"
        self.server_config = folder / "singleuser_config.py"
        self.service_token = secrets.token_hex(16)
        self.tokens: dict[str, str] = {}
        self.server_config.write_text(
            SERVER_PATHS.format(tmp=str(folder)) + config.render(server_config(model_url))
        )
        self.config.write_text(
            HUB_CONFIG.format(
                tmp=str(folder),
                port=self.port,
                hub_port=free_port(),
                proxy=proxy_command(),
                proxy_api_port=free_port(),
                proxy_token=secrets.token_hex(16),
                users=set(people.PEOPLE),
                scope_roles=scope_roles(),
                groups={group: {"users": users} for group, users in people.HUB_GROUPS.items()},
                service_token=self.service_token,
                singleuser=str(BIN / "jupyterhub-singleuser"),
                server_config=str(self.server_config),
                ready=READY,
                path=os.pathsep.join([str(BIN), os.environ.get("PATH", "/usr/bin:/bin")]),
                pythonpath=python_path(),
                model_key_env=config.MODEL_KEY_ENV,
                model_key=config.MODEL_KEY,
                runtime_dir=os.environ["JUPYTER_COPILOT_ROOM_RUNTIME_DIR"],
                pkg_cache=os.environ["COPILOT_PKG_CACHE_HOME"],
                user_settings=json.dumps(config.USER_SETTINGS),
            )
        )

    def start(self, timeout: float = 60) -> None:
        """Start the hub; return once it answers and has issued everyone's API token."""
        env = {**os.environ, "PATH": os.pathsep.join([str(BIN), os.environ.get("PATH", "")])}
        env.pop("JUPYTERHUB_API_TOKEN", None)
        self.spawn([str(BIN / "jupyterhub"), f"--config={self.config}", "--debug"], env, self.tmp)

        def answers() -> bool:
            return self.api(self.service_token, "GET", "")[0] == 200

        self.wait_until(answers, timeout, "answer from the hub")
        for user in people.PEOPLE:
            code, body = self.api(
                self.service_token, "POST", f"users/{user}/tokens", {"note": "tests/hub"}
            )
            assert code == 201, (code, body)
            self.tokens[user] = body["token"]

    # -- HTTP --

    def request(self, token: str | None, method: str, url: str, body=None) -> tuple[int, object]:
        """`url` (on the hub unless absolute) with a hub API token."""
        return request(
            url if url.startswith("http") else f"{self.url}{url}",
            method,
            body,
            {"Authorization": f"token {token}"} if token else {},
        )

    def api(self, token, method: str, path: str, body=None):
        """The hub's REST API (`/hub/api/<path>`)."""
        return self.request(token, method, f"/hub/api/{path}", body)

    def room(self, user: str, method: str, path: str, body=None, owner: str = people.HUB_OWNER):
        """The room's REST API on `owner`'s server, with `user`'s hub API token."""
        return self.request(
            self.tokens[user], method, f"/user/{owner}/copilot-room/api/{path}", body
        )

    def start_server(self, user: str, timeout: float = READY) -> None:
        """`user` starts their server through the hub; returns when its room's agent is idle."""
        code, body = self.api(self.tokens[user], "POST", f"users/{user}/server")
        assert code in (201, 202), (code, body)
        seen = {}

        def idle() -> bool:
            code, model = self.api(self.tokens[user], "GET", f"users/{user}")
            server = (model.get("servers") or {}).get("") if code == 200 else None
            if server and server.get("ready"):
                code, room = self.room(user, "GET", "room", owner=user)
                if code == 200:
                    seen["state"] = room["agent"].get("state")
                    if seen["state"] == "unavailable":
                        raise AssertionError(f"the agent is unavailable: {room['agent']}")
                    return seen["state"] == "idle"
            elif code == 200 and not model.get("pending") and server is None:
                raise AssertionError(f"{user}'s server did not start\n{self.tail()}")
            return False

        try:
            self.wait_until(idle, timeout, f"idle agent on {user}'s server")
        except AssertionError as err:
            err.add_note(f"the agent's last state: {seen.get('state')}")
            raise
