"""A real `jupyter server` process, stopped and started again on the same state directory."""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from .conftest import YClient, eventually

REPO = Path(__file__).parent.parent

CONFIG = """
c.ServerApp.identity_provider_class = "tests.users.SignedInUsers"
c.ServerApp.jpserver_extensions = {{"jupyter_copilot_room": True}}
c.CopilotRoom.agent_class = "tests.scripted_agent.ScriptedAgent"
c.CopilotRoom.hosts = ["alice"]
c.CopilotRoom.members = ["bob"]
c.CopilotRoom.viewers = ["carol"]
c.CopilotRoom.state_dir = {state_dir!r}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, tmp_path):
        self.root = tmp_path / "repo"
        self.root.mkdir(exist_ok=True)
        self.config = tmp_path / "room_config.py"
        self.config.write_text(CONFIG.format(state_dir=str(tmp_path / "state")))
        self.port = free_port()
        self.process = None

    async def start(self):
        env = {**os.environ, "PYTHONPATH": str(REPO), "JUPYTER_PLATFORM_DIRS": "1"}
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


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path)
    yield server
    if server.process and server.process.poll() is None:
        server.process.kill()
        server.process.wait()


def without_presence(snapshot):
    for person in snapshot["participants"].values():
        person.pop("online")
    return snapshot


async def test_server_restart_rebuilds_the_document_with_the_pending_queue(server):
    await server.start()
    await server.call("bob", "POST", "prompts", {"text": "say before the restart"})
    await server.call("alice", "POST", "prompts", {"text": "ask keep going?"})
    carol = await server.watch("carol")
    await eventually(lambda: len(carol.approvals) == 1, what="the question card")
    [question] = carol.approvals.to_py()
    await server.call("alice", "POST", f"questions/{question}", {"answer": "yes"})
    running = json.loads((await server.call("alice", "POST", "prompts", {"text": "wait"})).body)
    pending = [
        json.loads((await server.call("bob", "POST", "prompts", {"text": f"wait {n}"})).body)["id"]
        for n in range(3)
    ]
    await eventually(lambda: len(carol.queue) == 4 and carol.meta.get("state") == "running")
    await asyncio.sleep(0.2)
    before = without_presence(carol.snapshot())
    carol.close()

    server.stop()
    await server.start()
    carol = await server.watch("carol")
    await eventually(lambda: len(carol.transcript) > len(before["transcript"]), what="sync")
    await eventually(lambda: carol.meta.get("state") == "running")
    after = without_presence(carol.snapshot())

    # What a stop changes in what was there: the held turn failed, its reply kept as partial.
    stopped_turn = next(e for e in before["transcript"] if e["id"] == running["id"])
    stopped_reply = next(e for e in before["transcript"] if e.get("prompt_id") == running["id"])
    assert (stopped_turn["state"], stopped_reply["state"]) == ("working", "streaming")
    stopped_turn["state"], stopped_reply["state"] = "failed", "partial"
    assert after["transcript"][: len(before["transcript"])] == before["transcript"]
    added = after["transcript"][len(before["transcript"]) :]
    interrupted = [e for e in added if e["kind"] == "system"]
    assert len(interrupted) == 1 and "stopped during this turn" in interrupted[0]["body"]
    assert [e["kind"] for e in added if e["kind"] != "system"] == ["prompt", "assistant"]
    assert added[-2]["id"] == pending[0], "the first waiting prompt runs after the restart"
    assert [item["id"] for item in after["queue"]] == pending
    assert [item["state"] for item in after["queue"]] == ["working", "submitted", "submitted"]
    for old, new in zip(before["queue"][1:], after["queue"], strict=True):
        assert {k: v for k, v in old.items() if k not in ("state", "started_at")} == {
            k: v for k, v in new.items() if k not in ("state", "started_at")
        }
    assert running["id"] not in [item["id"] for item in after["queue"]]
    assert after["participants"] == before["participants"]
    carol.close()
    server.stop()
