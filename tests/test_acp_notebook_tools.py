"""The room's notebook tools for any ACP agent (issue 45), as an MCP server in the Jupyter server
(`agent/notebook_mcp.py`, `handlers/notebook_tools.py`): `copilot --acp` calls them, an edit is
the room's notebook card (routed as every card), and once approved it lands in the live notebook
a person has open, with the turn's provenance. The server's MCP side on its own: who may call it
and what a malformed or forbidden call gets."""

import json
from pathlib import Path

import nbformat
import pytest
from tornado.httpclient import HTTPClientError

from jupyter_copilot_room.agent.notebook_calls import NotebookCalls
from jupyter_copilot_room.agent.notebook_mcp import Grant
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.notebooks import NotebookEditor

from .harness import config
from .harness.helpers import entries, eventually, finished, ready
from .test_notebooks import join_notebook, write_notebook


@pytest.fixture
def room_config(model, monkeypatch):
    monkeypatch.setenv(config.ACP_KEY_ENV, config.MODEL_KEY)
    return config.copilot_over_acp(model.base_url)


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path):
    return config.collaborative(jp_server_config, tmp_path)


def room_tool(request, name):
    """The name the agent gave the room's tool `name` (Copilot: `jupyter-<name>`)."""
    [offered] = [tool for tool in request.tool_names if tool.endswith(name)]
    return offered


def replaces(cell_id, source):
    def script(request):
        if request.tool_results:
            return Reply("The tool said: " + request.tool_results[-1].strip()[:120])
        call = ToolCall(
            room_tool(request, "notebook_replace_cell"),
            {"path": "live.ipynb", "cell_id": cell_id, "source": source},
        )
        return Reply("Editing the notebook.", tool_calls=(call,))

    return script


async def card(room):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="a card")
    [(request_id, shown)] = room.document.approvals.to_py().items()
    return request_id, shown


async def test_an_acp_agents_notebook_edit_is_the_rooms_card_then_lands_live(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    await eventually(lambda: person.notebook.cell_number == 2, timeout=30, what="the person's sync")
    model.script = replaces(original.cells[1].id, "total = sum(values)  # by the agent")
    prompt = (await api("bob", "POST", "prompts", body={"text": "sum the values"})).json

    request_id, shown = await card(room)
    assert shown["kind"] == "notebook"
    assert "live.ipynb" in shown["summary"]
    assert person.sources() == ["values = [1, 2]", "total = 0"], "nothing lands before the answer"
    carol = await api("carol", "POST", "approvals", request_id, body={"decision": "approve"})
    assert carol.code == 403  # another member: the card is bob's and the hosts'
    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await eventually(lambda: prompt["id"] in finished(room), timeout=60, what="the turn's end")

    expected = ["values = [1, 2]", "total = sum(values)  # by the agent"]
    await eventually(lambda: person.sources() == expected, what="the edit in the open notebook")
    live = await jp_serverapp.web_app.settings["jupyter_server_ydoc"].get_document(
        path="live.ipynb", content_type="notebook", file_format="json", copy=False
    )
    provenance = live.get_cell(1)["metadata"]["copilot_room"]
    assert (provenance["prompt_id"], provenance["author"]) == (prompt["id"], "bob")
    # One card: the agent's own permission request for the room's tool asked nobody.
    [asked] = [e for e in entries(room, "permission")]
    assert "-total = 0" in asked["details"]["diff"]
    assert "Replaced the source of cell" in model.requests[-1].tool_results[-1]
    person.close()


async def test_a_rejected_edit_changes_nothing_and_the_agent_hears_why(
    api, room, model, jp_root_dir
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    model.script = replaces(original.cells[1].id, "import os; os.remove('data.csv')")
    prompt = (await api("bob", "POST", "prompts", body={"text": "change it"})).json
    request_id, _ = await card(room)
    await api(
        "alice",
        "POST",
        "approvals",
        request_id,
        body={"decision": "reject", "feedback": "not that cell"},
    )
    await eventually(lambda: prompt["id"] in finished(room), timeout=60, what="the turn's end")
    assert nbformat.read(jp_root_dir / "live.ipynb", as_version=4) == original
    assert "not that cell" in model.requests[-1].tool_results[-1]


# -- the MCP server on its own ------------------------------------------------------------------


@pytest.fixture
def tools(room_app):
    return room_app.notebook_tools


@pytest.fixture
def mcp(jp_fetch):
    """POST one JSON-RPC message to `copilot-room/mcp` with `headers`; (status, JSON)."""

    async def post(message, headers, raw=None):
        try:
            r = await jp_fetch(
                "copilot-room",
                "mcp",
                method="POST",
                body=raw if raw is not None else json.dumps(message),
                headers={"Content-Type": "application/json", **headers},
            )
        except HTTPClientError as err:
            assert err.response is not None
            return err.code, json.loads(err.response.body)
        return r.code, json.loads(r.body) if r.body else None

    return post


def granted(tools, serverapp, running=True):
    editor = NotebookEditor(lambda: serverapp.web_app.settings, Path(serverapp.root_dir))
    grant = Grant(NotebookCalls(editor), lambda: None, lambda: running)
    return {"Authorization": f"Bearer {tools.grant(grant)}"}


async def test_only_an_agent_session_holding_a_grant_reaches_the_tools(tools, jp_serverapp, mcp):
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    # jp_fetch signs in as the server's token; that is no grant.
    assert (await mcp(listing, {}))[0] == 401
    assert (await mcp(listing, {"Authorization": "Bearer not-a-grant"}))[0] == 401
    headers = granted(tools, jp_serverapp)
    code, body = await mcp(listing, {**headers, "Origin": "http://evil.example"})
    assert code == 403, "a browser's request never reaches the tools"
    code, body = await mcp(listing, headers)
    assert code == 200
    assert {t["name"] for t in body["result"]["tools"]} >= {"notebook_read", "notebook_run_cells"}
    token = headers["Authorization"].split()[1]
    tools.revoke(token)
    assert (await mcp(listing, headers))[0] == 401, "a closed session's grant is gone"


async def test_the_mcp_handshake_and_bad_messages_get_the_protocols_answers(
    tools, jp_serverapp, mcp
):
    headers = granted(tools, jp_serverapp)
    init = {
        "jsonrpc": "2.0",
        "id": "a",
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    code, body = await mcp(init, headers)
    assert code == 200
    assert body["result"]["protocolVersion"] == "2025-06-18"
    assert "tools" in body["result"]["capabilities"]
    init["params"]["protocolVersion"] = "1999-01-01"
    assert (await mcp(init, headers))[1]["result"]["protocolVersion"] == "2025-11-25"
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert await mcp(note, headers) == (202, None)
    assert (await mcp(None, headers, raw="{not json"))[1]["error"]["code"] == -32700
    assert (await mcp({"id": 1}, headers))[1]["error"]["code"] == -32600
    unknown = {"jsonrpc": "2.0", "id": 2, "method": "resources/frobnicate"}
    assert (await mcp(unknown, headers))[1]["error"]["code"] == -32601
    bad = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"arguments": {}}}
    assert (await mcp(bad, headers))[1]["error"]["code"] == -32602
    nope = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "rm_rf"}}
    assert (await mcp(nope, headers))[1]["error"]["code"] == -32602


async def test_a_call_outside_a_turn_is_refused_and_touches_nothing(
    tools, jp_serverapp, mcp, jp_root_dir
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["a = 1"])
    call = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {
            "name": "notebook_replace_cell",
            "arguments": {"path": "live.ipynb", "cell_id": original.cells[0].id, "source": "b"},
        },
    }
    code, body = await mcp(call, granted(tools, jp_serverapp, running=False))
    assert code == 200
    assert body["result"]["isError"] is True
    assert "only in a turn" in body["result"]["content"][0]["text"]
    assert nbformat.read(jp_root_dir / "live.ipynb", as_version=4) == original
