import asyncio
import inspect
import json
import os
import time
from pathlib import Path

import pytest
from tornado.httpclient import HTTPClientError

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.scripted_model import Reply, ScriptedModelServer

from .clients import YClient
from .scripted_agent import ScriptedAgent
from .servers import Server
from .users import SignedInUsers

pytest_plugins = ("pytest_jupyter.jupyter_server",)

# pytest-jupyter gives every test a fresh HOME; the Copilot runtime that `jupyter copilot-room
# install-runtime` put in the real home's cache must stay findable.
os.environ.setdefault(
    "JUPYTER_COPILOT_ROOM_RUNTIME_DIR",
    str(Path.home() / ".cache" / "jupyter-copilot-room" / "runtime"),
)


@pytest.fixture
def state_dir(tmp_path):
    return tmp_path / "room-state"


@pytest.fixture
def room_config():
    """Per-test overrides of `c.CopilotRoom`."""
    return {}


@pytest.fixture
def jp_server_config(state_dir, room_config):
    return {
        "ServerApp": {
            "jpserver_extensions": {"jupyter_copilot_room": True},
            "identity_provider_class": SignedInUsers,
        },
        "CopilotRoom": {
            "hosts": ["alice"],
            "members": ["bob"],
            "viewers": ["carol"],
            "agent_class": ScriptedAgent,
            "state_dir": str(state_dir),
            **room_config,
        },
    }


@pytest.fixture
def room_app(jp_serverapp):
    return jp_serverapp.extension_manager.extension_points["jupyter_copilot_room"].app


@pytest.fixture
def room(room_app):
    return room_app.room


@pytest.fixture
def agent(room):
    return room.agent


class Response:
    def __init__(self, code: int, body: bytes):
        self.code = code
        self.text = body.decode()
        try:
            self.json = json.loads(body)
        except ValueError:
            self.json = None

    def __repr__(self):
        return f"<{self.code} {self.text[:200]}>"


@pytest.fixture
def api(jp_fetch):
    """Call the room's REST API as one of the test users; errors come back, not raised."""

    async def call(user, method, *path, body=None, raw=None):
        payload = raw if raw is not None else (None if body is None else json.dumps(body))
        if payload is None and method in ("POST", "PUT", "PATCH"):
            payload = ""
        headers = {"Authorization": f"token {user}"} if user else {"Authorization": ""}
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


def replies(room):
    """The assistant's replies in the room's live document."""
    return [e for e in room.document.transcript.to_py() if e["kind"] == "assistant"]


async def eventually(predicate, timeout=5.0, what="condition"):
    """Wait until `predicate()` (plain or async) is true, or fail saying what never happened."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def connect(jp_ws_fetch):
    clients = []

    async def open_client(user):
        ws = await jp_ws_fetch("copilot-room", "ws", headers={"Authorization": f"token {user}"})
        client = YClient(ws)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.close()


# -- the real Copilot runtime with a scripted model ------------------------------------------

READY = 60  # seconds the first runtime start may take on a cold machine


@pytest.fixture
def model(jp_asyncio_loop):
    server = ScriptedModelServer(lambda request: Reply("(no script)"))
    server.start()
    yield server
    jp_asyncio_loop.run_until_complete(server.stop())


@pytest.fixture
def copilot_config(model, monkeypatch):
    """The real Copilot agent, with the test's scripted model as its provider."""
    monkeypatch.setenv("SCRIPTED_MODEL_KEY", "test-key")
    return {
        "agent_class": CopilotAgent,
        "model": "scripted-model",
        "provider": {
            "type": "openai",
            "base_url": model.base_url,
            "api_key_env": "SCRIPTED_MODEL_KEY",
        },
    }


async def ready(api, room):
    await api("alice", "GET", "room")
    await eventually(
        lambda: room.document.meta.get("state") in ("idle", "unavailable"),
        timeout=READY,
        what="the agent to start",
    )
    assert room.document.meta.get("state") == "idle", room.document.meta.to_py()


def finished(room):
    records = [json.loads(line) for line in room.transcript.read_text().splitlines()]
    return {r["payload"]["id"]: r["payload"] for r in records if r["kind"] == "prompt.finished"}


def entries(room, kind):
    return [e for e in room.document.transcript.to_py() if e["kind"] == kind]


@pytest.fixture
def servers(tmp_path):
    """Make real `jupyter server` processes; whatever still runs at the end is killed."""
    made = []

    def make(**kwargs):
        made.append(Server(tmp_path, **kwargs))
        return made[-1]

    yield make
    for server in made:
        server.kill()
