"""A real `jupyter server` process with the room, for tests that stop and start it."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from .clients import YClient

REPO = Path(__file__).parent.parent

CONFIG = """
c.ServerApp.identity_provider_class = "tests.users.SignedInUsers"
c.ServerApp.jpserver_extensions = {{"jupyter_copilot_room": True}}
c.CopilotRoom.hosts = ["alice"]
c.CopilotRoom.members = ["bob"]
c.CopilotRoom.viewers = ["carol"]
c.CopilotRoom.state_dir = {state_dir!r}
"""

SCRIPTED_AGENT = 'c.CopilotRoom.agent_class = "tests.scripted_agent.ScriptedAgent"'

# The real Copilot agent whose model is the tests' scripted server: a `.format` template
# (`base_url`), to stand alone or inside another template.
COPILOT_AGENT = """
c.CopilotRoom.agent_class = "jupyter_copilot_room.agent.copilot.CopilotAgent"
c.CopilotRoom.model = "scripted-model"
c.CopilotRoom.provider = {{
    "type": "openai",
    "base_url": {base_url!r},
    "api_key_env": "SCRIPTED_MODEL_KEY",
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, tmp_path, extra_config=SCRIPTED_AGENT, env=None):
        self.root = tmp_path / "repo"
        self.root.mkdir(exist_ok=True)
        self.state_dir = tmp_path / "state"
        self.config = tmp_path / "room_config.py"
        self.config.write_text(CONFIG.format(state_dir=str(self.state_dir)) + extra_config)
        self.env = env or {}
        self.port = free_port()
        self.process = None

    async def start(self):
        env = {**os.environ, "PYTHONPATH": str(REPO), "JUPYTER_PLATFORM_DIRS": "1", **self.env}
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyter",
                "server",
                "--no-browser",
                "--allow-root",
                f"--port={self.port}",
                "--ip=127.0.0.1",
                f"--config={self.config}",
                f"--ServerApp.root_dir={self.root}",
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(200):
            try:
                if (await self.call("alice", "GET", "room")).code == 200:
                    return
            except (ConnectionError, OSError):
                pass
            await asyncio.sleep(0.1)
        raise AssertionError("the server did not come up")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise

    async def call(self, user, method, path, body=None):
        request = HTTPRequest(
            f"http://127.0.0.1:{self.port}/copilot-room/api/{path}",
            method=method,
            headers={"Authorization": f"token {user}"},
            body=None if body is None else json.dumps(body),
        )
        try:
            return await AsyncHTTPClient().fetch(request)
        except HTTPClientError as err:
            return err.response

    async def watch(self, user):
        ws = await websocket_connect(
            HTTPRequest(
                f"ws://127.0.0.1:{self.port}/copilot-room/ws",
                headers={"Authorization": f"token {user}"},
            )
        )
        return YClient(ws)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    async def room(self, user="alice"):
        return json.loads((await self.call(user, "GET", "room")).body)
