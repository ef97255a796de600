"""The agent edits notebooks like a collaborator: the live shared document when the notebook is
open, the contents manager when it is not, approvals of kind `notebook`, provenance metadata."""

import asyncio
import json

import nbformat
import pytest
from jupyter_ydoc import YNotebook
from pycrdt import (
    Assoc,
    Awareness,
    Doc,
    YMessageType,
    YSyncMessageType,
    create_awareness_message,
    create_sync_message,
    create_update_message,
    handle_sync_message,
    read_message,
)
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.notebooks import NotebookEditor, NotebookToolError, Provenance

from .harness import config
from .harness.helpers import entries, eventually, finished, ready

PROVENANCE = Provenance("p1", "bob", 1, "call_1", 1.0)


def write_notebook(path, sources):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    nbformat.write(notebook, path)
    return notebook


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path):
    return config.collaborative(jp_server_config, tmp_path)


# -- the editor on its own: the contents-manager path and argument checks -----------------------


async def test_editor_edits_a_closed_notebook_through_the_contents_manager(
    jp_serverapp, jp_root_dir
):
    write_notebook(jp_root_dir / "closed.ipynb", ["a = 1", "b = 2"])
    editor = NotebookEditor(lambda: jp_serverapp.web_app.settings)
    second = json.loads(await editor.read("closed.ipynb"))["cells"][1]
    said = await editor.call(
        "notebook_replace_cell",
        {"path": "closed.ipynb", "cell_id": second["id"], "source": "b = 3"},
        PROVENANCE,
    )
    assert "saved; nobody had the notebook open" in said
    await editor.call(
        "notebook_insert_cell",
        {"path": "closed.ipynb", "index": 0, "cell_type": "markdown", "source": "# Title"},
        PROVENANCE,
    )
    notebook = nbformat.read(jp_root_dir / "closed.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert [c.source for c in notebook.cells] == ["# Title", "a = 1", "b = 3"]
    assert notebook.cells[2].id == second["id"], "a replaced cell keeps its id"
    assert notebook.cells[2].metadata["copilot_room"]["tool_call_id"] == "call_1"
    assert "copilot_room" not in notebook.cells[1].metadata


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("notebook_read", {"path": "../outside.ipynb"}, "Cannot open"),
        ("notebook_read", {"path": "/etc/passwd"}, "relative path"),
        (
            "notebook_insert_cell",
            {"path": "n.ipynb", "index": 9, "cell_type": "code", "source": ""},
            "out of range",
        ),
        (
            "notebook_insert_cell",
            {"path": "n.ipynb", "index": -1, "cell_type": "code", "source": ""},
            "0 or more",
        ),
        (
            "notebook_insert_cell",
            {"path": "n.ipynb", "index": 0, "cell_type": "sql", "source": ""},
            "cell_type",
        ),
        (
            "notebook_replace_cell",
            {"path": "n.ipynb", "cell_id": "gone", "source": "x"},
            "may have been deleted",
        ),
        ("notebook_delete_cell", {"path": "n.ipynb"}, "Missing argument"),
        (
            "notebook_replace_cell",
            {"path": "n.ipynb", "cell_id": "x", "source": "y" * 100_001},
            "longer than",
        ),
    ],
)
async def test_bad_tool_calls_get_a_reason_the_model_can_use(
    jp_serverapp, jp_root_dir, tool, arguments, says
):
    write_notebook(jp_root_dir / "n.ipynb", ["a = 1"])
    editor = NotebookEditor(lambda: jp_serverapp.web_app.settings)
    with pytest.raises(NotebookToolError, match=says):
        await editor.call(tool, arguments, PROVENANCE)
    assert nbformat.read(jp_root_dir / "n.ipynb", as_version=4).cells[0].source == "a = 1"


# -- a person in the live notebook while the real agent edits it --------------------------------


class Person:
    """A pycrdt client of jupyter-collaboration's notebook room, typing like a person."""

    def __init__(self, ws):
        self.ws = ws
        self.doc = Doc()
        self.notebook = YNotebook(ydoc=self.doc)
        self.awareness = Awareness(self.doc)
        self._remote = False
        self.doc.observe(self._send_local)
        self._reader = asyncio.create_task(self._read())
        self.asked = self.answered = 0  # sync step 1s sent, and answered by the server
        self._ask()
        # Announce oneself, as JupyterLab does when it opens a notebook.
        self.awareness.set_local_state({"user": {"name": "a person"}, "autosave": True})
        update = self.awareness.encode_awareness_update([self.doc.client_id])
        ws.write_message(create_awareness_message(update), binary=True)

    def _send_local(self, event):
        if not self._remote:
            self.ws.write_message(create_update_message(event.update), binary=True)

    async def _read(self):
        while (message := await self.ws.read_message()) is not None:
            if isinstance(message, bytes) and message[0] == YMessageType.AWARENESS:
                self.awareness.apply_awareness_update(read_message(message[1:]), "remote")
            if isinstance(message, bytes) and message[0] == YMessageType.SYNC:
                self._remote = True
                try:
                    reply = handle_sync_message(message[1:], self.doc)
                finally:
                    self._remote = False
                if reply is not None:
                    self.ws.write_message(reply, binary=True)
                if message[1] == YSyncMessageType.SYNC_STEP2:
                    self.answered += 1

    def _ask(self):
        self.asked += 1
        self.ws.write_message(create_sync_message(self.doc), binary=True)

    async def caught_up(self):
        """Until this client holds all that the server's document holds now: the server answers
        a sync step 1 with what it has that the client lacks, deletions included."""
        self._ask()
        await eventually(lambda: self.answered >= self.asked, what="the server's answer")

    def put_cursor(self, index, offset):
        """Place this person's cursor in a cell, in JupyterLab's awareness format."""
        source = self.notebook.ycells[index]["source"]
        item = source.sticky_index(offset, Assoc.AFTER).to_json()["item"]
        position = {"type": None, "tname": None, "item": item, "assoc": 0}
        state = self.awareness.get_local_state()
        cursor = {"anchor": position, "head": position, "primary": True, "empty": True}
        self.awareness.set_local_state({**state, "cursors": [cursor]})
        update = self.awareness.encode_awareness_update([self.doc.client_id])
        self.ws.write_message(create_awareness_message(update), binary=True)

    def others(self):
        """The names of the other collaborators this client sees."""
        return [
            state["user"]["name"]
            for client, state in self.awareness.states.items()
            if client != self.doc.client_id and state and "user" in state
        ]

    def sources(self):
        return [str(self.notebook.ycells[i]["source"]) for i in range(self.notebook.cell_number)]

    async def type_into(self, index, text, pause=0.01):
        for char in text:
            source = self.notebook.ycells[index]["source"]
            source.insert(len(source), char)
            await asyncio.sleep(pause)

    def close(self):
        self.ws.close()
        self._reader.cancel()


async def join_notebook(jp_fetch, jp_http_port, jp_base_url, path):
    r = await jp_fetch(
        "api",
        "collaboration",
        "session",
        path,
        method="PUT",
        body=json.dumps({"format": "json", "type": "notebook"}),
        headers={"Authorization": "token alice"},
    )
    session = json.loads(r.body)
    # Built by hand: jp_ws_fetch would percent-encode the room id's colons.
    url = (
        f"ws://localhost:{jp_http_port}{jp_base_url}api/collaboration/room/"
        f"json:notebook:{session['fileId']}?sessionId={session['sessionId']}"
    )
    ws = await websocket_connect(HTTPRequest(url, headers={"Authorization": "token alice"}))
    return Person(ws)


def saved_sources(path):
    """The cells' sources on disk, or None while the file is being written."""
    try:
        return [cell.source for cell in nbformat.read(path, as_version=4).cells]
    except (OSError, nbformat.reader.NotJSONError):
        return None


def edits_then_reports(replace_id, insert_at):
    def script(request):
        if request.tool_results:
            return Reply("Done: " + " | ".join(request.tool_results))
        return Reply(
            "Editing the notebook.",
            tool_calls=(
                ToolCall(
                    "notebook_replace_cell",
                    {
                        "path": "live.ipynb",
                        "cell_id": replace_id,
                        "source": "total = sum(values)  # by the agent",
                    },
                ),
                ToolCall(
                    "notebook_insert_cell",
                    {
                        "path": "live.ipynb",
                        "index": insert_at,
                        "cell_type": "markdown",
                        "source": "## Added by the agent",
                    },
                ),
            ),
        )

    return script


async def approve_all(api, room, count):
    answered = 0
    while answered < count:
        await eventually(lambda: len(room.document.approvals) > 0, timeout=30)
        for request_id, card in room.document.approvals.to_py().items():
            assert card["kind"] == "notebook"
            r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
            assert r.code in (200, 409)
            answered += r.code == 200


async def test_person_keeps_typing_while_the_agent_edits_the_live_notebook(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    await eventually(lambda: person.notebook.cell_number == 2, timeout=30, what="the person's sync")
    model.script = edits_then_reports(original.cells[1].id, 2)

    typing = asyncio.create_task(person.type_into(0, "  # the person's own words", pause=0.03))
    prompt = (await api("bob", "POST", "prompts", body={"text": "tidy the notebook"})).json
    await approve_all(api, room, 2)
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    await typing

    expected = [
        "values = [1, 2]  # the person's own words",
        "total = sum(values)  # by the agent",
        "## Added by the agent",
    ]
    await eventually(lambda: person.sources() == expected, what="both edits everywhere")
    live = await jp_serverapp.web_app.settings["jupyter_server_ydoc"].get_document(
        path="live.ipynb", content_type="notebook", file_format="json", copy=False
    )
    assert [str(c["source"]) for c in live.ycells] == expected
    replaced = live.get_cell(1)
    assert replaced["id"] == original.cells[1].id
    provenance = replaced["metadata"]["copilot_room"]
    assert (provenance["prompt_id"], provenance["author"]) == (prompt["id"], "bob")
    assert live.get_cell(2)["metadata"]["copilot_room"]["prompt_id"] == prompt["id"]

    await eventually(
        lambda: saved_sources(jp_root_dir / "live.ipynb") == expected,
        timeout=10,
        what="the collaboration room to save the file",
    )
    saved = nbformat.read(jp_root_dir / "live.ipynb", as_version=4)
    nbformat.validate(saved)
    assert [c.id for c in saved.cells] == [live.get_cell(i)["id"] for i in range(3)]
    card = [e for e in entries(room, "permission") if "replace cell 2" in e["body"]]
    assert card and "-total = 0" in card[0]["details"]["diff"]
    person.close()


async def test_rejected_edit_leaves_the_notebook_untouched_and_the_model_hears_why(
    api, room, model, jp_root_dir
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    model.script = edits_then_reports(original.cells[1].id, 2)
    prompt = (await api("bob", "POST", "prompts", body={"text": "tidy the notebook"})).json
    for _ in range(2):
        await eventually(lambda: len(room.document.approvals) > 0, timeout=30)
        [request_id] = list(room.document.approvals.to_py())[:1]
        await api(
            "alice",
            "POST",
            "approvals",
            request_id,
            body={"decision": "reject", "feedback": "leave my notebook alone"},
        )
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    assert nbformat.read(jp_root_dir / "live.ipynb", as_version=4) == original
    results = " ".join(" ".join(r.tool_results) for r in model.requests)
    assert "Rejected by alice: leave my notebook alone" in results


async def test_agent_edits_a_closed_notebook_through_the_contents_manager(
    api, room, model, jp_root_dir
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    model.script = edits_then_reports(original.cells[1].id, 0)
    prompt = (await api("bob", "POST", "prompts", body={"text": "tidy the notebook"})).json
    await approve_all(api, room, 2)
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    saved = nbformat.read(jp_root_dir / "live.ipynb", as_version=4)
    nbformat.validate(saved)
    assert [c.source for c in saved.cells] == [
        "## Added by the agent",
        "values = [1, 2]",
        "total = sum(values)  # by the agent",
    ]
    assert saved.cells[2].metadata["copilot_room"]["author"] == "bob"
    results = " ".join(" ".join(r.tool_results) for r in model.requests)
    assert "nobody had the notebook open" in results


async def test_hosts_can_let_notebook_edits_through_but_never_shell_commands(
    api, room, model, jp_root_dir
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    r = await api("alice", "PATCH", "settings", body={"auto_approve_notebook_edits": True})
    assert r.json["auto_approve_notebook_edits"] is True
    model.script = edits_then_reports(original.cells[1].id, 2)
    prompt = (await api("bob", "POST", "prompts", body={"text": "tidy the notebook"})).json
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    assert saved_sources(jp_root_dir / "live.ipynb")[1] == "total = sum(values)  # by the agent"
    assert {e["state"] for e in entries(room, "permission")} == {"approved"}

    def shell(request):
        if request.tool_results:
            return Reply("ok")
        return Reply(
            tool_calls=(ToolCall("bash", {"command": "echo x > x.txt", "description": "x"}),)
        )

    model.script = shell
    await api("bob", "POST", "prompts", body={"text": "and a command"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [card] = room.document.approvals.to_py().values()
    assert card["kind"] == "shell", "a shell command still waits for its author or a host"


async def test_the_agent_is_a_visible_collaborator_for_late_joiners_until_the_turn_ends(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    first = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    await eventually(lambda: first.notebook.cell_number == 2, timeout=30, what="the sync")

    def one_edit_at_a_time(request):
        if any("Inserted" in r for r in request.tool_results):
            return Reply("Both edits are in.")
        if request.tool_results:
            return Reply(
                tool_calls=(
                    ToolCall(
                        "notebook_insert_cell",
                        {
                            "path": "live.ipynb",
                            "index": 2,
                            "cell_type": "code",
                            "source": "print(total)",
                        },
                    ),
                )
            )
        return Reply(
            tool_calls=(
                ToolCall(
                    "notebook_replace_cell",
                    {"path": "live.ipynb", "cell_id": original.cells[1].id, "source": "total = 3"},
                ),
            )
        )

    model.script = one_edit_at_a_time
    prompt = (await api("bob", "POST", "prompts", body={"text": "two edits"})).json
    await approve_all(api, room, 1)
    await eventually(
        lambda: "Copilot for Bob" in first.others(),
        timeout=30,
        what="the agent's presence after its first edit",
    )
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)

    late = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    await eventually(
        lambda: "Copilot for Bob" in late.others(),
        timeout=5,
        what="a client that joined mid-turn to see the agent at once",
    )
    ydocs = jp_serverapp.web_app.settings["jupyter_server_ydoc"]
    live = await ydocs.get_document(
        path="live.ipynb", content_type="notebook", file_format="json", copy=False
    )
    agent = live.awareness.get_local_state()
    assert agent["autosave"] is False, "the agent's presence never turns autosave on"
    assert agent["cursors"], "its cursor rests on the cell it touched"

    await approve_all(api, room, 1)
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    await eventually(
        lambda: "Copilot for Bob" not in late.others(),
        timeout=10,
        what="the agent's presence to leave when the turn ends",
    )
    first.close()
    late.close()


async def test_with_a_persons_cursor_in_the_cell_the_agent_inserts_below_instead(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    original = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0"])
    await ready(api, room)
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    await eventually(lambda: person.notebook.cell_number == 2, timeout=30, what="the sync")
    person.put_cursor(1, 3)  # in the middle of "total = 0", as JupyterLab reports it
    model.script = edits_then_reports(original.cells[1].id, 0)
    prompt = (await api("bob", "POST", "prompts", body={"text": "fix the total"})).json
    await approve_all(api, room, 2)
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    await eventually(lambda: person.notebook.cell_number == 4)
    assert person.sources() == [
        "## Added by the agent",
        "values = [1, 2]",
        "total = 0",
        "total = sum(values)  # by the agent",
    ], "the person's cell is untouched; the new version sits right below it"
    results = " ".join(" ".join(r.tool_results) for r in model.requests)
    assert f"Someone is working in cell {original.cells[1].id}" in results
    person.close()


# -- links out of the repository ----------------------------------------------------------------


@pytest.fixture
def outside(tmp_path):
    """A notebook outside the server's root, and links to it (a file link, a folder link)."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    write_notebook(folder / "private.ipynb", ["SECRET = 'do not read me'"])
    return folder


@pytest.mark.parametrize("link", ["link.ipynb", "folder/private.ipynb"])
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("notebook_read", {}),
        ("notebook_insert_cell", {"index": 0, "cell_type": "code", "source": "x = 1"}),
    ],
)
async def test_notebook_tools_never_follow_a_link_out_of_the_repository(
    jp_serverapp, jp_root_dir, outside, link, tool, arguments
):
    (jp_root_dir / "link.ipynb").symlink_to(outside / "private.ipynb")
    (jp_root_dir / "folder").symlink_to(outside, target_is_directory=True)
    editor = NotebookEditor(lambda: jp_serverapp.web_app.settings)
    call = {"path": link, **arguments}
    with pytest.raises(NotebookToolError, match="outside the repository") as refused:
        await editor.call(tool, call, PROVENANCE)
    assert "do not read me" not in str(refused.value)
    if tool != "notebook_read":  # the approval card is refused too, so nothing is shown
        with pytest.raises(NotebookToolError, match="outside the repository"):
            await editor.describe(tool, call)
    cells = nbformat.read(outside / "private.ipynb", as_version=4).cells
    assert [c.source for c in cells] == ["SECRET = 'do not read me'"]


async def test_a_link_inside_the_repository_is_named_on_the_card(jp_serverapp, jp_root_dir):
    write_notebook(jp_root_dir / "real.ipynb", ["a = 1"])
    (jp_root_dir / "alias.ipynb").symlink_to(jp_root_dir / "real.ipynb")
    editor = NotebookEditor(lambda: jp_serverapp.web_app.settings)
    call = {"path": "alias.ipynb", "index": 0, "cell_type": "code", "source": "b = 2"}
    summary, details = await editor.describe("notebook_insert_cell", call)
    assert "real.ipynb" in summary and details["resolved_path"] == "real.ipynb"


async def test_tool_errors_never_echo_file_contents_or_server_paths(jp_serverapp, jp_root_dir):
    (jp_root_dir / "broken.ipynb").write_text("PRIVATE-CONTENT that is not a notebook")
    editor = NotebookEditor(lambda: jp_serverapp.web_app.settings)
    for path in ("broken.ipynb", "missing.ipynb"):
        with pytest.raises(NotebookToolError) as failed:
            await editor.call("notebook_read", {"path": path}, PROVENANCE)
        assert "PRIVATE" not in str(failed.value)
        assert str(jp_root_dir) not in str(failed.value)


async def test_an_auto_approved_edit_through_a_link_changes_nothing_outside(
    api, room, model, jp_root_dir, outside
):
    (jp_root_dir / "link.ipynb").symlink_to(outside / "private.ipynb")
    await ready(api, room)
    await api("alice", "PATCH", "settings", body={"auto_approve_notebook_edits": True})

    def through_the_link(request):
        if request.tool_results:
            return Reply("Done: " + " | ".join(request.tool_results))
        call = {"path": "link.ipynb", "index": 0, "cell_type": "code", "source": "pwned = 1"}
        return Reply(tool_calls=(ToolCall("notebook_insert_cell", call),))

    model.script = through_the_link
    prompt = (await api("bob", "POST", "prompts", body={"text": "edit the link"})).json
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    cells = nbformat.read(outside / "private.ipynb", as_version=4).cells
    assert [c.source for c in cells] == ["SECRET = 'do not read me'"]
    assert "outside the repository" in model.requests[-1].tool_results[0]
