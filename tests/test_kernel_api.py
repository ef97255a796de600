"""The room from a notebook kernel: `cr.connect()`, `room.ask()` and `%%copilot`.

A REAL ipykernel started by a REAL server (`POST api/kernels`, so it inherits what a kernel
inherits: the server is its parent, on JupyterHub the single-user server's environment), driven
over its connection file with jupyter_client. The server runs the REAL Copilot runtime against
the scripted model (served from a thread, so these tests may block on the kernel).
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
from pathlib import Path

import pytest
from jupyter_client import BlockingKernelClient
from jupyter_server.auth.identity import IdentityProvider

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.kernel.discovery import ServerNotFound, discover

from .harness import config, people
from .harness.browser_fixtures import model  # noqa: F401 (the scripted model, in a thread)
from .harness.helpers import eventually, ready
from .harness.hub import Hub
from .harness.server import JupyterServer, request

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STOCK_TOKEN = people.token(people.HOST)  # also what the harness signs in with
ANSWER = "The wettest city is **Pune**, with 7.25 mm of rain."


@pytest.fixture
def no_hub_env(monkeypatch, tmp_path):
    """A kernel's environment outside JupyterHub, with a runtime directory of its own."""
    for name in ("JUPYTERHUB_SERVICE_PREFIX", "JUPYTERHUB_API_TOKEN", "JUPYTERHUB_SERVICE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("JPY_PARENT_PID", raising=False)
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    return runtime


def server_file(runtime: Path, name: str, root: Path, port: int) -> None:
    """A running server's file as jupyter_server writes it (this process stands in for it)."""
    info = {
        "url": f"http://127.0.0.1:{port}/",
        "base_url": "/",
        "token": f"token-{name}",
        "root_dir": str(root),
        "pid": os.getpid(),
        "port": port,
        "secure": False,
    }
    (runtime / f"jpserver-{name}.json").write_text(json.dumps(info))


def test_discovery_says_everything_it_tried_when_nothing_is_running(no_hub_env):
    with pytest.raises(ServerNotFound) as found:
        discover()
    message = str(found.value)
    assert "JUPYTERHUB_SERVICE_PREFIX and JUPYTERHUB_API_TOKEN are not set" in message
    assert f"running servers listed in {no_hub_env}: none" in message
    assert "connect(url=..., token=...)" in message


def test_discovery_takes_the_server_whose_root_holds_the_kernel_and_refuses_a_tie(
    no_hub_env, tmp_path, monkeypatch
):
    project = tmp_path / "home" / "project"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    server_file(no_hub_env, "elsewhere", tmp_path / "other", 8001)
    server_file(no_hub_env, "home", tmp_path / "home", 8002)
    server_file(no_hub_env, "project", project, 8003)
    found = discover()
    assert (found.url, found.token) == ("http://127.0.0.1:8003/", "token-project")
    assert found.found_by.endswith("holds this kernel's working directory")
    server_file(no_hub_env, "project-again", project, 8004)
    with pytest.raises(ServerNotFound, match="several serve"):
        discover()
    assert discover(url="http://127.0.0.1:9/base", token="given").url == "http://127.0.0.1:9/base/"


async def test_a_prompt_may_say_it_came_from_a_kernel_and_nothing_else(
    api, room, make_room, tmp_path
):
    await ready(api, room)
    refused = await api(people.MEMBER, "POST", "prompts", body={"text": "hi", "origin": "alice"})
    assert refused.code == 400 and refused.json["error"] == "invalid_body", refused
    assert refused.json["message"].startswith("origin:")
    sent = await api(people.MEMBER, "POST", "prompts", body={"text": "hi", "origin": "kernel"})
    assert sent.code == 202

    def prompt_entry(document):
        return next((e for e in document.transcript.to_py() if e["id"] == sent.json["id"]), None)

    await eventually(lambda: prompt_entry(room.document) is not None, what="the turn to start")
    entry = prompt_entry(room.document)
    assert (entry["author"], entry["origin"]) == (people.MEMBER, "kernel")
    # A panel's prompt has no origin at all, so documents and records of old stay as they were.
    await api(people.MEMBER, "POST", "prompts", body={"text": "from the panel"})
    await eventually(lambda: "from the panel" in room.transcript.read_text())
    lines = room.transcript.read_text().splitlines()
    panel = json.loads(next(line for line in lines if "from the panel" in line))
    assert "origin" not in panel["payload"]

    # A restart replays the origin from the transcript.
    (tmp_path / "replay").mkdir()
    (tmp_path / "replay" / "transcript.jsonl").write_text("\n".join(lines) + "\n")
    replayed = make_room(tmp_path / "replay", agent=None)
    await replayed.ensure_started()
    assert prompt_entry(replayed.document)["origin"] == "kernel"


class Kernel:
    """A kernel a server started, driven over its connection file."""

    def __init__(self, connection_file: Path):
        self.client = BlockingKernelClient(connection_file=str(connection_file))
        self.client.load_connection_file()
        # A kernel still importing on a busy machine misses the default 1 s heartbeat, which
        # `wait_for_ready` takes for a dead kernel.
        self.client.hb_channel.time_to_dead = 10.0
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)

    def run(self, code: str, timeout: float = 30) -> tuple[dict, list[dict]]:
        """Execute `code`; return its execute_reply and the iopub messages until it is idle."""
        msg_id = self.client.execute(code)
        reply = self.client.get_shell_msg(timeout=timeout)
        messages = []
        while True:
            msg = self.client.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            messages.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        assert reply["content"]["status"] == "ok", reply["content"]
        return reply, messages

    def printed(self, code: str) -> str:
        _, messages = self.run(code)
        return "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")

    def close(self) -> None:
        self.client.stop_channels()


def start_kernel(server_url: str, headers: dict[str, str], runtime_dir: Path) -> Kernel:
    """A kernel started by the server at `server_url` (as a browser would), and its client."""
    code, body = request(f"{server_url}api/kernels", "POST", {"name": "python3"}, headers)
    assert code == 201, (code, body)
    return Kernel(runtime_dir / f"kernel-{body['id']}.json")


@pytest.fixture(scope="module")
def plain(tmp_path_factory, model):  # noqa: F811
    """A plain `jupyter server` whose own token is alice's (what its jpserver file lists), and a
    kernel it started."""
    model.script = lambda request: Reply("Ready.")
    server = JupyterServer(
        tmp_path_factory.mktemp("plain"),
        room=config.copilot_agent(model.base_url),
        extra=({"IdentityProvider": {"token": people.token(people.HOST)}},),
    )
    try:
        server.start()
        kernel = start_kernel(
            server.url + "/", people.authorization(people.HOST), server.home / "runtime"
        )
        yield server, kernel
        kernel.close()
    finally:
        server.stop(grace=15)


#: The kernel's connection to the room (`cr.connect()` returns the same one each time), so each
#: test that uses `room` in the module's shared kernel stands on its own.
CONNECT = "import jupyter_copilot_room as cr\nroom = cr.connect()\n"


def records(server: JupyterServer) -> list[dict]:
    code, text = server.api(people.HOST, "GET", "transcript")
    assert code == 200
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_connect_finds_the_plain_server_that_started_the_kernel(plain):
    server, kernel = plain
    out = kernel.printed(
        "import jupyter_copilot_room as cr\n"
        "room = cr.connect()\n"
        "print(room.server.url, room.server.found_by, room.me['username'], room.me['role'],"
        " type(room.widget()).__name__, cr.connect() is room, sep='|')"
    )
    assert out.strip().split("|") == [
        server.url + "/",
        "the running server that started this kernel",
        people.HOST,
        "host",
        "RoomWidget",
        "True",  # one connection, so `%%copilot` is the same person as `connect()`
    ]


def test_ask_returns_at_once_and_streams_the_reply_as_events(plain, model):  # noqa: F811
    server, kernel = plain
    model.script = lambda request: Reply(ANSWER, chunk_size=8, delay=0.05)
    out = kernel.printed(
        CONNECT
        + "turn = room.ask('Which city is wettest?')\nprint(turn.id, turn.position, turn.done)"
    )
    prompt_id, position, done = out.split()
    assert (position, done) == ("0", "False")
    out = kernel.printed(
        "import json\n"
        "seen = [(e['kind'], e.get('state'), e['body']) async for e in turn.events()]\n"
        "print(json.dumps({'seen': seen, 'result': await turn, 'outcome': turn.outcome}))"
    )
    got = json.loads(out)
    assert got["result"] == ANSWER and got["outcome"] == "completed"
    replies = [body for kind, state, body in got["seen"] if kind == "assistant"]
    assert replies[-1] == ANSWER
    streamed = [body for body in replies if body != ANSWER]
    assert streamed and all(ANSWER.startswith(body) for body in streamed), got["seen"]
    assert ["prompt", "completed", "Which city is wettest?"] in got["seen"]
    [submitted] = [
        r
        for r in records(server)
        if r["kind"] == "prompt.submitted" and r["payload"]["id"] == prompt_id
    ]
    assert (submitted["actor"], submitted["payload"]["origin"]) == (people.HOST, "kernel")


def test_the_magic_attaches_a_summary_and_streams_while_the_cell_has_returned(plain, model):  # noqa: F811
    server, kernel = plain
    model.script = lambda request: Reply(ANSWER, chunk_size=4, delay=0.25)  # ~3 s of reply
    kernel.run(
        "%load_ext jupyter_copilot_room\n"
        "import pandas as pd\n"
        "df = pd.DataFrame({'rain_mm': [1.5, 0.0, 7.25], 'city': ['Oslo', 'Lima', 'Pune']})"
    )
    _, messages = kernel.run("%%copilot --with df\nWhich city is wettest?")
    [shown] = [m for m in messages if m["msg_type"] == "display_data"]
    display_id = shown["content"]["transient"]["display_id"]
    assert "Queued in the Copilot room" in shown["content"]["data"]["text/markdown"]

    # The cell has returned; the turn has not ended, and what it recorded says where it came from.
    [submitted] = [r for r in records(server) if r["kind"] == "prompt.submitted"][-1:]
    prompt_id = submitted["payload"]["id"]
    assert submitted["payload"]["origin"] == "kernel" and submitted["actor"] == people.HOST
    text = submitted["payload"]["text"]
    assert text.startswith("Which city is wettest?")
    assert "shape: (3, 2)" in text and "rain_mm" in text and "Pune" in text
    finished = [r for r in records(server) if r["kind"] == "prompt.finished"]
    assert prompt_id not in [r["payload"]["id"] for r in finished], "the cell waited for the turn"

    # The output keeps updating until the outcome and usage.
    updates = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        msg = kernel.client.get_iopub_msg(timeout=60)
        if msg["msg_type"] == "update_display_data":
            assert msg["content"]["transient"]["display_id"] == display_id
            updates.append(msg["content"]["data"]["text/markdown"])
            if "**Completed**" in updates[-1]:
                break
    assert ANSWER in updates[-1], updates[-1]
    # Whole numbers, as people count: never "7539.0 tokens" or "1 model calls".
    assert re.search(
        r": [\d,]+ tokens in, [\d,]+ out, (1 model call|[\d,]+ model calls)$", updates[-1]
    )
    assert any(ANSWER not in u and "Pune" in u for u in updates), "the reply streamed"
    assert any("shape: (3, 2)" in r.prompt and "Pune" in r.prompt for r in model.requests)


def test_the_kernel_answers_a_card_aborts_a_turn_and_reads_the_transcript_as_a_frame(
    plain,
    model,  # noqa: F811
):
    _, kernel = plain

    def script(request):
        if "slow" in request.prompt:
            return Reply("Slowly " * 400, chunk_size=4, delay=0.05)
        if request.tool_results:
            return Reply("Tool said: " + " | ".join(request.tool_results))
        return Reply("Running it.", tool_calls=(ToolCall("bash", {"command": "echo kernel-ok"}),))

    model.script = script
    out = kernel.printed(
        CONNECT + "import asyncio\n"
        "turn = room.ask('run the command')\n"
        "while not room.status()['approvals']:\n"
        "    await asyncio.sleep(0.1)\n"
        "[card] = room.status()['approvals']\n"
        "room.answer(card, 'approve')\n"
        "print(await turn, turn.outcome, sep='|')"
    )
    reply, outcome = out.strip().split("|")
    assert "kernel-ok" in reply and outcome == "completed"
    out = kernel.printed(
        "slow = room.ask('slow please')\n"
        "while slow.id not in [p['id'] for p in room.queue if p.get('state') == 'working']:\n"
        "    await asyncio.sleep(0.1)\n"
        "room.abort()\n"
        "await slow\n"
        "frame = room.transcript().to_dataframe()\n"
        "asked = frame[frame['kind'] == 'prompt.submitted']\n"
        "used = frame[frame['kind'] == 'usage']\n"
        "print(slow.outcome, list(asked['payload.text'][-2:]), set(asked['payload.origin']),"
        " frame['ts'].dt.tz, set(asked['actor_name']),"
        " frame['payload.input_tokens'].dtype, used['payload.input_tokens'].max(),"
        " set(used['author_name']), sep='|')"
    )
    outcome, texts, origins, tz, names, dtype, most, payers = out.strip().split("|")
    assert outcome == "canceled"
    assert texts == str(["run the command", "slow please"])
    assert origins == str({"kernel"}) and tz == "UTC"
    assert names == str({"Alice"}), "people by the name they go by (alice is Alice), not username"
    assert dtype == "Int64" and int(most) > 0, "token counts are whole numbers"
    assert payers == str({"Alice"}), "usage is booked to a name, not a username"


@pytest.fixture(scope="module")
def stock(tmp_path_factory, model):  # noqa: F811
    """A `jupyter server` with jupyter_server's own token provider: the token names nobody."""
    model.script = lambda request: Reply("Ready.")
    server = JupyterServer(
        tmp_path_factory.mktemp("stock"),
        room=config.copilot_agent(model.base_url),
        extra=(
            {"ServerApp": {"identity_provider_class": IdentityProvider}},
            {"IdentityProvider": {"token": STOCK_TOKEN}},
        ),
    )
    try:
        server.start()  # the harness signs in with the token alone: the Server owner, a host
        yield server
    finally:
        server.stop(grace=15)


def test_under_a_stock_token_server_the_kernel_is_the_server_owner_and_browsers_are_guests(
    stock,
    model,  # noqa: F811
):
    token = {"Authorization": f"token {STOCK_TOKEN}"}
    kernel = start_kernel(stock.url + "/", token, stock.home / "runtime")
    try:
        model.script = lambda request: Reply(f"Heard: {request.prompt}")
        out = kernel.printed(
            "import jupyter_copilot_room as cr\n"
            "room = cr.connect()\n"
            "print(room.me['username'], room.me['role'], await room.ask('hello'), sep='|')"
        )
    finally:
        kernel.close()
    assert out.strip().split("|") == ["server-owner", "host", "Heard: [server-owner]: hello"]

    # A browser sends the token too (JupyterLab does), but with its login cookie: a guest.
    url = f"{stock.url}/copilot-room/api/room"
    with urllib.request.urlopen(urllib.request.Request(url, headers=token)) as first:
        cookie = first.headers["Set-Cookie"].split(";")[0]
    code, room = request(url, "GET", headers={**token, "Cookie": cookie})
    assert code == 200
    assert room["me"]["username"] != "server-owner" and room["me"]["role"] == "pending"


def test_the_hub_gives_the_kernel_its_servers_address_and_owners_token(
    tmp_path_factory,
    model,  # noqa: F811
):
    hub = Hub(tmp_path_factory.mktemp("hub"), model.base_url)
    try:
        hub.start()
        hub.start_server(people.HUB_OWNER)
        kernel = start_kernel(
            f"{hub.url}/user/{people.HUB_OWNER}/",
            {"Authorization": f"token {hub.tokens[people.HUB_OWNER]}"},
            hub.tmp / "users" / people.HUB_OWNER / "runtime",
        )
        out = kernel.printed(
            "import jupyter_copilot_room as cr\n"
            "room = cr.connect()\n"
            "print(room.server.found_by, room.me['username'], room.me['role'], sep='|')"
        )
        kernel.close()
        assert out.strip().split("|") == [
            "JupyterHub's JUPYTERHUB_SERVICE_URL",
            people.HUB_OWNER,
            "host",
        ]
    finally:
        hub.stop()
