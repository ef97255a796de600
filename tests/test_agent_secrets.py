"""The agent's shell sees none of the server's secrets, and what the room records never holds one:
the runtime's environment is an allow-list (`agent/environment.py`), and the values of
the known secrets are redacted from every record (`room/persistence/redaction.py`)."""

import json

import pytest

from jupyter_copilot_room.agent.environment import agent_environment
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.events import ToolCompleted, ToolStarted
from jupyter_copilot_room.room.persistence.redaction import Redactor

from .harness import config
from .harness.helpers import eventually, ready

#: Secret-looking values the server starts with, by the variable that holds each.
SECRETS = {
    "JUPYTERHUB_API_TOKEN": "hub-api-token-5d1f0a9c",
    "JPY_API_TOKEN": "jpy-api-token-77a1b2c3",
    "JUPYTER_TOKEN": "jupyter-token-0e4c11aa",
    "GH_TOKEN": "fake-gh-token-9f8e7d6c5b",
    "GITHUB_TOKEN": "fake-github-token-1a2b3c4d",
    "COPILOT_GITHUB_TOKEN": "fake-copilot-token-4e5f6a7b",
}
PROVIDER_KEY = "sk-provider-key-3c9d2e1f"


# -- the allow-list ------------------------------------------------------------------------------


def test_the_runtime_gets_what_commands_need_and_no_token():
    server = {
        "PATH": "/usr/bin",
        "HOME": "/home/ada",
        "LC_ALL": "C.UTF-8",
        "https_proxy": "http://proxy:3128",
        "SSL_CERT_FILE": "/etc/ca.pem",
        "XDG_CACHE_HOME": "/home/ada/.cache",
        "COPILOT_PKG_CACHE_HOME": "/cache/copilot",
        "COPILOT_GITHUB_TOKEN": "fake-x",
        "COPILOT_SDK_AUTH_TOKEN": "fake-y",
        "GH_TOKEN": "fake-z",
        "JUPYTERHUB_API_TOKEN": "hub",
        "JPY_API_TOKEN": "jpy",
        "JUPYTER_TOKEN": "server",
        "SCRIPTED_MODEL_KEY": "key",
        "JAVA_HOME": "/opt/java",
    }
    env = agent_environment(server)
    assert set(env) == {
        *("PATH", "HOME", "LC_ALL", "https_proxy", "SSL_CERT_FILE", "XDG_CACHE_HOME"),
        "COPILOT_PKG_CACHE_HOME",
    }


def test_a_host_adds_a_variable_by_name():
    server = {"PATH": "/usr/bin", "JAVA_HOME": "/opt/java", "OTHER": "x"}
    assert agent_environment(server, ["JAVA_HOME", "UNSET"]) == {
        "PATH": "/usr/bin",
        "JAVA_HOME": "/opt/java",
    }


# -- redaction -----------------------------------------------------------------------------------


def test_a_known_secrets_value_is_redacted_wherever_a_record_holds_it():
    redactor = Redactor.of_server(
        {**SECRETS, "SCRIPTED_MODEL_KEY": PROVIDER_KEY, "SHORT": "x"},
        key_variable="SCRIPTED_MODEL_KEY",
        server_token="server-made-token-12345678",
    )
    output = f"A={SECRETS['GH_TOKEN']} B={PROVIDER_KEY} C=server-made-token-12345678"
    completed = redactor.payload(ToolCompleted(call_id="c1", success=True, result=output))
    assert completed.result == (
        "A=[redacted: GH_TOKEN] B=[redacted: SCRIPTED_MODEL_KEY] "
        "C=[redacted: the Jupyter server's token]"
    )
    started = ToolStarted(
        call_id="c1",
        tool="bash",
        summary=f"curl -H {SECRETS['JPY_API_TOKEN']}",
        arguments={"command": ["echo", SECRETS["JUPYTERHUB_API_TOKEN"]]},
    )
    clean = redactor.payload(started)
    assert clean.summary == "curl -H [redacted: JPY_API_TOKEN]"
    assert clean.arguments == {"command": ["echo", "[redacted: JUPYTERHUB_API_TOKEN]"]}
    untouched = ToolCompleted(call_id="c2", success=True, result="nothing secret")
    assert redactor.payload(untouched) is untouched


def test_short_values_and_unknown_variables_are_not_secrets():
    redactor = Redactor.of_server({"GH_TOKEN": "abc", "HOME": "/home/ada-lovelace"})
    assert redactor.text("abc /home/ada-lovelace") == "abc /home/ada-lovelace"


def test_a_secret_split_across_streamed_deltas_never_shows():
    secret = SECRETS["GH_TOKEN"]
    redactor = Redactor({"GH_TOKEN": secret})
    reply, shown, held = f"The token is {secret}, see?", "", ""
    for start in range(0, len(reply), 3):
        part, held = redactor.streamed(held, reply[start : start + 3])
        shown += part
        assert not any(secret[:n] in shown for n in range(4, len(secret) + 1)), shown
    assert shown + held == "The token is [redacted: GH_TOKEN], see?"


# -- the real runtime ----------------------------------------------------------------------------


@pytest.fixture
def room_config(copilot_config, monkeypatch):
    """Set before the server starts (`jp_server_config` asks for this), so the server, its
    redaction and the runtime it starts see them."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(config.MODEL_KEY_ENV, PROVIDER_KEY)
    monkeypatch.setenv("ROOM_TEST_SETTING", "added-on-purpose")
    return {**copilot_config, "agent_env": ["ROOM_TEST_SETTING"]}


def run_commands(request):
    """Each prompt is the shell command the agent runs; the reply repeats what it printed."""
    if request.tool_results:
        return Reply(f"It printed: {request.tool_results[-1][-300:]}")
    command = request.prompt.split("]: ", 1)[1].split("\n", 1)[0]
    return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "run"}),))


async def approved(api, room, command):
    """`command`, run by alice's prompt once she approved it; the turn has ended."""
    r = await api("alice", "POST", "prompts", body={"text": command})
    assert r.code == 202, r
    await eventually(lambda: room.document.approvals.to_py(), timeout=30, what="the card")
    [request_id] = room.document.approvals.to_py()
    r = await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    await eventually(lambda: room.turns.queue.in_flight is None, timeout=30, what="the turn to end")


async def test_an_approved_env_shows_no_secret_anywhere(
    api, room, model, jp_serverapp, jp_fetch, state_dir
):
    model.script = run_commands
    heard = []
    updates = []  # every change of the live document, as each viewer receives it
    room.document.ydoc.observe(lambda event: updates.append(event.update))

    async def listener(logger, schema_id, data):
        heard.append(data)

    jp_serverapp.event_logger.add_listener(listener=listener)
    try:
        await ready(api, room)
        await approved(api, room, "env")
        # The second line: a secret the command finds elsewhere is printed, then redacted.
        await approved(api, room, f"echo {SECRETS['JUPYTERHUB_API_TOKEN']}")
    finally:
        jp_serverapp.event_logger.remove_listener(listener=listener)

    env_output, echoed = (r.tool_results[-1] for r in model.requests if r.tool_results)
    secrets = [*SECRETS.values(), PROVIDER_KEY]
    if len(server_token := jp_serverapp.identity_provider.token or "") >= 8:
        secrets.append(server_token)
    assert [s for s in secrets if s in env_output] == [], "the runtime's environment has them"
    assert "PATH=" in env_output and "ROOM_TEST_SETTING=added-on-purpose" in env_output
    assert SECRETS["JUPYTERHUB_API_TOKEN"] in echoed  # what the model saw is not the room's

    async def export(fmt):
        r = await jp_fetch(
            "copilot-room",
            "api",
            "transcript",
            params={"format": fmt},
            headers={"Authorization": "token alice"},
        )
        return r.body.decode()

    shown = {
        "tool rows": json.dumps(room.document.transcript.to_py()),
        "document": b"".join([room.document.ydoc.get_update(), *updates]).decode("latin-1"),
        "transcript": (state_dir / "transcript.jsonl").read_text(),
        "markdown": await export("md"),
        "notebook": await export("ipynb"),
        "events": json.dumps(heard),
    }
    for where, text in shown.items():
        assert [s for s in secrets if s in text] == [], f"a secret in the {where}"
    reply = [e["body"] for e in room.document.transcript.to_py() if e["kind"] == "assistant"][-1]
    assert reply.startswith("It printed: [redacted: JUPYTERHUB_API_TOKEN]\n"), reply
    assert "[redacted: JUPYTERHUB_API_TOKEN]" in shown["transcript"]
    assert "[redacted: JUPYTERHUB_API_TOKEN]" in shown["markdown"]


def test_a_stream_waits_only_for_what_may_begin_a_secret():
    redactor = Redactor({"GH_TOKEN": "fake-gh-0123456789"})
    assert redactor.streamed("", "working.") == ("working.", ""), "nothing like a secret: shown"
    assert redactor.streamed("", "a f") == ("a ", "f"), "even one character of a start waits"
    assert redactor.streamed("", "see fake-gh") == ("see ", "fake-gh"), "a secret's start waits"
    shown, held = redactor.streamed("fake-gh", "-0123456789 done")
    assert (shown, held) == ("[redacted: GH_TOKEN] done", "")
