"""The fixtures of the room's tests (registered by `pytest_plugins` in `tests/conftest.py`).

In process, with pytest-jupyter: the room on a `jp_serverapp` with the test people and the
scripted agent, its REST API and live document as any person; rooms of a test's own
(`make_room`), stopped at its end. With the real Copilot runtime: the scripted model in the
test's event loop and the config that makes it the agent's provider. Real server processes:
`servers`.
"""

import dataclasses
import json
import os
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_copilot_room.access.admissions import AdmissionBook
from jupyter_copilot_room.agent.scripted_model import ScriptedModelServer
from jupyter_copilot_room.agent.seam import AgentSettings
from jupyter_copilot_room.room.room import Room
from jupyter_copilot_room.room.room_spec import RoomSpec
from jupyter_copilot_room.settings import RoomSettings, SettingsStore

from ..scripted_agent import ScriptedAgent
from . import config, people
from .clients import YClient
from .helpers import no_script, served
from .server import JupyterServer

#: What of `make_room`'s keywords is the room's spec (`RoomSpec`), not the room's own.
SPEC = {field.name for field in dataclasses.fields(RoomSpec)}

# pytest-jupyter gives every test a fresh HOME; the Copilot runtime that `jupyter copilot-room
# install-runtime` put in the real home's cache must stay findable.
os.environ.setdefault(
    "JUPYTER_COPILOT_ROOM_RUNTIME_DIR",
    str(Path.home() / ".cache" / "jupyter-copilot-room" / "runtime"),
)
# The runtime unpacks itself (about 235 MB) under $HOME/.cache/copilot/pkg on its first start, or
# under $COPILOT_PKG_CACHE_HOME/pkg: once in the real home's cache, not once per test's HOME (that
# was 27 GB a run and filled the disk).
os.environ.setdefault("COPILOT_PKG_CACHE_HOME", str(Path.home() / ".cache" / "copilot"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """`item.report_setup`, `item.report_call`, `item.report_teardown`: for fixtures that keep
    artifacts when their test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


# -- the room in process ---------------------------------------------------------------------


@pytest.fixture
def state_dir(tmp_path):
    return tmp_path / "room-state"


@pytest.fixture
def room_config():
    """Per-test overrides of `c.CopilotRoom`."""
    return {}


@pytest.fixture
def jp_server_config(state_dir, room_config):
    return config.room(state_dir, **room_config)


@pytest.fixture
def room_app(jp_serverapp):
    return jp_serverapp.extension_manager.extension_points["jupyter_copilot_room"].app


@pytest.fixture
def room(room_app):
    return room_app.room


@pytest.fixture
def agent(room):
    return room.agent


@pytest.fixture
def make_room(jp_asyncio_loop):
    """`make_room(state_dir, agent=ScriptedAgent, book=..., **room)`: a `Room` of the test's own
    (by default alice hosts, bob is a member; `agent=None`: none), stopped at the test's end, also
    when the test failed. A room left running leaves its tasks and its checkpoints' git processes
    to an event loop the test has closed ("Task was destroyed but it is pending!", "Event loop is
    closed" when git's transport is collected)."""
    made: list[Room] = []

    def make(state_dir, agent=ScriptedAgent, *, book=None, **room):
        state_dir.mkdir(parents=True, exist_ok=True)
        if book is None:
            book = AdmissionBook(hosts=frozenset({"alice"}), members=frozenset({"bob"}))
        repository = room.get("repository", state_dir)
        spec = RoomSpec(state_dir, **{name: room.pop(name) for name in SPEC & room.keys()})
        made.append(
            Room(
                spec,
                book=book,
                settings=SettingsStore(state_dir / "settings.json", RoomSettings()),
                agent=agent(AgentSettings(repository, state_dir)) if agent else None,
                **room,
            )
        )
        return made[-1]

    yield make
    for each in reversed(made):
        jp_asyncio_loop.run_until_complete(each.stop())


class Response:
    def __init__(self, code: int, body: bytes):
        self.code = code
        self.body = body
        self.text = body.decode(errors="replace")  # an image's bytes are no text
        try:
            self.json = json.loads(body)
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"<{self.code} {self.text[:200]}>"


@pytest.fixture
def api(jp_fetch):
    """Call the room's REST API as one of the test people; errors come back, not raised."""

    async def call(user, method, *path, body=None, raw=None, headers=None):
        payload = raw if raw is not None else (None if body is None else json.dumps(body))
        if payload is None and method in ("POST", "PUT", "PATCH"):
            payload = ""
        # No one: an empty header replaces the one pytest-jupyter adds.
        headers = {**(people.authorization(user) or {"Authorization": ""}), **(headers or {})}
        try:
            r = await jp_fetch(
                "copilot-room",
                "api",
                *path,
                method=method,
                body=payload,
                headers=headers,
                raise_error=False,
                allow_nonstandard_methods=True,
            )
        except HTTPClientError as err:
            return Response(err.code, err.response.body if err.response else b"")
        return Response(r.code, r.body)

    return call


@pytest.fixture
def connect(jp_ws_fetch):
    """`await connect(user)`: a live client of the room's document, as `user` (`connect(user,
    name)`: of the room `name`'s)."""
    clients = []

    async def open_client(user, room=None):
        path = ("ws", room) if room else ("ws",)
        ws = await jp_ws_fetch("copilot-room", *path, headers=people.authorization(user))
        client = YClient(ws)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.close()


# -- the real Copilot runtime with a scripted model ------------------------------------------


@pytest.fixture
def model(jp_asyncio_loop):
    yield from served(ScriptedModelServer(no_script), jp_asyncio_loop)


@pytest.fixture
def copilot_config(model, monkeypatch):
    """The real Copilot agent, with the test's scripted model as its provider."""
    monkeypatch.setenv(config.MODEL_KEY_ENV, config.MODEL_KEY)
    return config.copilot_agent(model.base_url)


# -- real server processes -------------------------------------------------------------------


@pytest.fixture
def servers(tmp_path):
    """`servers(room=..., env=...)`: real `jupyter server` processes with the room (see
    `JupyterServer`), each stopping strictly; whatever still runs at the end is killed."""
    made = []

    def make(**kwargs):
        made.append(JupyterServer(tmp_path / f"server-{len(made)}", strict_stop=True, **kwargs))
        return made[-1]

    yield make
    for server in made:
        server.kill()
