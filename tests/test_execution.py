"""The agent runs notebook cells: approved (kind `execute`, never auto-approved), in the kernel the
people use, outputs live in the shared notebook, a bounded summary for the model, stoppable.

Real ipykernel, the real Copilot runtime with the scripted model, jupyter-collaboration and
pycrdt clients as the people in the notebook.
"""

import asyncio
import json
import re
import time

import nbformat
import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.notebooks import execution

from .harness import config
from .harness.helpers import eventually, finished, pending_tasks_of_the_room, ready
from .test_context_chips import tiny_png
from .test_notebooks import join_notebook, write_notebook

PATH = "live.ipynb"


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path):
    return config.collaborative(jp_server_config, tmp_path)


async def open_session(jp_fetch, path=PATH):
    """What JupyterLab does when a person opens a notebook: a session with a kernel."""
    body = {"path": path, "name": path, "type": "notebook", "kernel": {"name": "python3"}}
    r = await jp_fetch(
        "api",
        "sessions",
        method="POST",
        body=json.dumps(body),
        headers={"Authorization": "token alice"},
    )
    return json.loads(r.body)["kernel"]["id"]


async def person_kernel(jp_serverapp, kernel_id):
    """A person's own client of the kernel (as JupyterLab's kernel connection is)."""
    client = jp_serverapp.kernel_manager.get_kernel(kernel_id).client()
    client.start_channels()
    await client.wait_for_ready(timeout=30)
    return client


async def evaluate(client, expression):
    reply = await client.execute_interactive("", user_expressions={"v": expression}, timeout=30)
    return reply["content"]["user_expressions"]["v"]["data"]["text/plain"]


def runs_first_cell(notebook):
    """A script: run the notebook's first cell; report what the tool said."""

    def script(request):
        if request.tool_results:
            return Reply("Heard: " + request.tool_results[0])
        call = {"path": PATH, "cell_ids": [notebook.cells[0].id]}
        return Reply(tool_calls=(ToolCall("notebook_run_cells", call),))

    return script


def runs(path, code_by_step):
    """A script: insert each code cell at the end, then run them all; report what came back."""

    def script(request):
        results, called = request.tool_results, request.last_tool_calls
        if not results:
            return Reply(
                tool_calls=tuple(
                    ToolCall(
                        "notebook_insert_cell",
                        {"path": path, "index": 1 + n, "cell_type": "code", "source": code},
                    )
                    for n, code in enumerate(code_by_step)
                )
            )
        if called and called[0] == "notebook_insert_cell":
            ids = [re.search(r"cell (\S+) at", r).group(1) for r in results]
            return Reply(
                tool_calls=(ToolCall("notebook_run_cells", {"path": path, "cell_ids": ids}),)
            )
        return Reply("Ran them: " + " | ".join(results))

    return script


async def answer(api, room, kind, decision="approve", user="bob", **extra):
    """Answer the next card of `kind`; returns it."""
    await eventually(
        lambda: any(c["kind"] == kind for c in room.document.approvals.to_py().values()),
        timeout=30,
        what=f"a card of kind {kind}",
    )
    request_id, card = next(
        (i, c) for i, c in room.document.approvals.to_py().items() if c["kind"] == kind
    )
    r = await api(user, "POST", "approvals", request_id, body={"decision": decision, **extra})
    assert r.code == 200, r.text
    return card


def cell_outputs(person, index):
    cell = person.notebook.get_cell(index) if person.notebook.cell_number > index else {}
    return cell.get("outputs") or []


def text_of(outputs):
    return "".join(
        o.get("text", "") if o["output_type"] == "stream" else json.dumps(o.get("data", {}))
        for o in outputs
    )


async def live_notebook(jp_serverapp, path=PATH):
    return await jp_serverapp.web_app.settings["jupyter_server_ydoc"].get_document(
        path=path, content_type="notebook", file_format="json", copy=False
    )


def on_disk(root, path=PATH):
    try:
        return [dict(c) for c in nbformat.read(root / path, as_version=4).cells]
    except (OSError, nbformat.reader.NotJSONError):
        return None


#: A long cell that says when the kernel is in it: it makes the file `running` first.
LONG = "import pathlib, time\npathlib.Path('running').touch()\ntime.sleep(60)"


async def agents_cell_runs(root):
    """Until the kernel runs the agent's `LONG` cell (its kernel runs in the notebook's folder,
    `root`). The cell's own word, not the server's `execution_state`: jupyter_server's activity
    subscriber can miss a new kernel's messages for tens of seconds under load (seen in CI)."""
    await eventually(lambda: (root / "running").exists(), timeout=30, what="the cell to start")


CODE = (
    "import time\nfor i in range(4):\n    print('tick', i, flush=True)\n    time.sleep(0.4)\n6 * 7"
)


async def test_the_agent_runs_a_cell_it_inserted_after_approval_and_everyone_sees_it_live(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    write_notebook(jp_root_dir / PATH, ["values = [1, 2]"])
    await ready(api, room)
    await open_session(jp_fetch)
    first = await join_notebook(jp_fetch, jp_http_port, jp_base_url, PATH)
    second = await join_notebook(jp_fetch, jp_http_port, jp_base_url, PATH)
    await eventually(lambda: second.notebook.cell_number == 1, timeout=30, what="the sync")
    # Notebook edits go through on the room's settings; running code never does.
    await api("alice", "PATCH", "settings", body={"auto_approve_notebook_edits": True})
    model.script = runs(PATH, [CODE])
    prompt = (await api("bob", "POST", "prompts", body={"text": "count and answer"})).json

    card = await answer(api, room, "execute")
    assert card["summary"] == "run 1 cell of live.ipynb"
    assert CODE in card["details"]["code"] and "running python3 kernel" in card["details"]["kernel"]
    typing = asyncio.create_task(first.type_into(0, "  # typed meanwhile", pause=0.02))

    # The outputs arrive as the kernel sends them: a tick before the result, in both clients.
    await eventually(lambda: "tick 0" in text_of(cell_outputs(second, 1)), timeout=30)
    assert "42" not in text_of(cell_outputs(second, 1)), "the first tick came before the end"
    assert room.document.meta.get("kernel_state") == "busy"
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    await typing
    for person in (first, second):
        await eventually(lambda p=person: "42" in text_of(cell_outputs(p, 1)))
        assert "tick 3" in text_of(cell_outputs(person, 1))
        assert person.sources()[0] == "values = [1, 2]  # typed meanwhile"
    assert room.document.meta.get("kernel_state") == "idle"
    assert room.document.meta.get("kernel_notebook") == PATH

    live = await live_notebook(jp_serverapp)
    cell = live.get_cell(1)
    assert cell["execution_count"] == 1
    ran = cell["metadata"]["copilot_room"]["ran"]
    assert (ran["prompt_id"], ran["author"]) == (prompt["id"], "bob")
    said = model.requests[-1].tool_results[0]
    assert "tick 0" in said and "42" in said and "execution count 1" in said

    cells = [live.get_cell(i) for i in range(live.cell_number)]
    for cell in cells:  # the display-only flag a save leaves out
        cell["metadata"].pop("trusted", None)
    try:
        await eventually(lambda: on_disk(jp_root_dir) == cells, timeout=10, what="the save")
    except AssertionError:
        assert on_disk(jp_root_dir) == cells, "the saved file equals the live notebook"
    nbformat.validate(nbformat.read(jp_root_dir / PATH, as_version=4))
    first.close()
    second.close()


async def test_a_rejected_run_leaves_the_kernel_untouched(
    api, room, model, jp_fetch, jp_root_dir, jp_serverapp
):
    notebook = write_notebook(jp_root_dir / PATH, ["sentinel = 'changed by the agent'"])
    await ready(api, room)
    kernel = await person_kernel(jp_serverapp, await open_session(jp_fetch))
    await kernel.execute_interactive("sentinel = 'set by a person'", timeout=30)

    model.script = runs_first_cell(notebook)
    prompt = (await api("bob", "POST", "prompts", body={"text": "run it"})).json
    await answer(api, room, "execute", "reject", user="alice", feedback="not now")
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    assert await evaluate(kernel, "sentinel") == "'set by a person'"
    assert await evaluate(kernel, "len(In)") == "2", "only the person's own executions ran"
    assert "Rejected by alice: not now" in model.requests[-1].tool_results[0]
    kernel.stop_channels()


async def test_without_a_kernel_the_card_says_one_will_be_started_and_the_file_gets_outputs(
    api, room, model, jp_root_dir, jp_serverapp
):
    notebook = write_notebook(jp_root_dir / PATH, ["print('from a new kernel')"])
    await ready(api, room)

    def run_it(request):
        if request.tool_results:
            return Reply("Done.")
        call = {"path": PATH, "cell_ids": [notebook.cells[0].id]}
        return Reply(tool_calls=(ToolCall("notebook_run_cells", call),))

    model.script = run_it
    prompt = (await api("bob", "POST", "prompts", body={"text": "run it"})).json
    card = await answer(api, room, "execute")
    assert card["summary"].endswith("(a new python3 kernel will be started)")
    await eventually(lambda: prompt["id"] in finished(room), timeout=60)
    [cell] = nbformat.read(jp_root_dir / PATH, as_version=4).cells
    assert cell.outputs[0]["text"] == "from a new kernel\n" and cell.execution_count == 1
    assert cell.metadata["copilot_room"]["ran"]["author"] == "bob"
    sessions = await jp_serverapp.session_manager.list_sessions()
    assert [s["path"] for s in sessions] == [PATH], "people who open it join that kernel"


async def test_a_hosts_abort_interrupts_a_long_cell_within_two_seconds(
    api, room, model, jp_fetch, jp_root_dir, jp_serverapp
):
    notebook = write_notebook(jp_root_dir / PATH, [LONG])
    await ready(api, room)
    person = await person_kernel(jp_serverapp, await open_session(jp_fetch))

    model.script = runs_first_cell(notebook)
    prompt = (await api("bob", "POST", "prompts", body={"text": "sleep"})).json
    await answer(api, room, "execute")
    await agents_cell_runs(jp_root_dir)
    aborted = time.monotonic()
    await api("alice", "POST", "abort")
    # The kernel is free for people again: their request no longer waits behind the cell.
    await person.execute_interactive("1", timeout=10)
    took = time.monotonic() - aborted
    await eventually(lambda: prompt["id"] in finished(room), timeout=10)
    assert took < 2, took
    # The interrupted cell's last messages are read after the turn ended: idle follows shortly.
    await eventually(lambda: room.document.meta.get("kernel_state") == "idle", timeout=3)
    person.stop_channels()


async def test_a_stop_during_a_run_leaves_no_task_of_the_room_pending(
    api, room, model, jp_fetch, jp_root_dir, jp_serverapp
):
    """The server stops while the agent's cell runs: the run ends after the room stopped
    following kernels, and must not start following its kernel again (a task nobody awaits)."""
    notebook = write_notebook(jp_root_dir / PATH, [LONG])
    await ready(api, room)
    await open_session(jp_fetch)
    model.script = runs_first_cell(notebook)
    await api("bob", "POST", "prompts", body={"text": "sleep"})
    await answer(api, room, "execute")
    await agents_cell_runs(jp_root_dir)
    await room.stop()  # as the server's stop does
    # The run the stop cut short has ended: its last act shows the kernel's state (no longer
    # "busy"), right before it would follow that kernel again.
    await eventually(
        lambda: room.document.meta.get("kernel_state") != "busy", what="the cut run to end"
    )
    assert pending_tasks_of_the_room() == []


async def test_a_kernel_the_server_has_not_heard_from_shows_idle_after_the_agents_run(
    api, room, model, jp_fetch, jp_root_dir, jp_serverapp, monkeypatch
):
    """jupyter_server's activity subscriber sometimes misses a new kernel's messages for tens
    of seconds (CI): its `execution_state` stays "starting" though the kernel ran the cell."""
    notebook = write_notebook(jp_root_dir / PATH, ["6 * 7"])
    await ready(api, room)
    kernel_id = await open_session(jp_fetch)
    kernels = jp_serverapp.kernel_manager
    kernels.stop_watching_activity(kernel_id)  # what a subscriber that hears nothing leaves
    kernels.get_kernel(kernel_id).execution_state = "starting"
    model.script = runs_first_cell(notebook)
    prompt = (await api("bob", "POST", "prompts", body={"text": "run it"})).json
    await answer(api, room, "execute")
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    assert "42" in model.requests[-1].tool_results[0]
    assert room.document.meta.get("kernel_state") == "idle"
    # The room keeps following that kernel: three of its looks at the server's "starting".
    looks, kernel_or_none = [], execution._kernel_or_none

    def look(kernels, kernel_id):
        looks.append(kernel_id)
        return kernel_or_none(kernels, kernel_id)

    monkeypatch.setattr(execution, "_kernel_or_none", look)
    await eventually(
        lambda: looks.count(kernel_id) >= 3, timeout=10, what="the room's looks at the kernel"
    )
    assert room.document.meta.get("kernel_state") == "idle"


async def test_the_model_gets_errors_by_their_last_frames_and_big_outputs_cut(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    big = "print('x' * 5_000_000)"
    failing = "def inner():\n    return 1 / 0\n\ndef outer():\n    return inner()\n\nouter()"
    crash = "import os\nos._exit(1)"
    image = (
        "import base64\nfrom IPython.display import Image\n"
        f"Image(data=base64.b64decode({tiny_png()!r}))"
    )
    sources = [big, image, failing, "never = 'ran'", crash]
    cells = write_notebook(jp_root_dir / PATH, sources).cells
    await ready(api, room)
    await open_session(jp_fetch)
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, PATH)
    await eventually(lambda: person.notebook.cell_number == 5, timeout=30, what="the sync")

    def run(ids):
        def script(request):
            if request.tool_results:
                return Reply("Heard: " + request.tool_results[0])
            return Reply(
                tool_calls=(ToolCall("notebook_run_cells", {"path": PATH, "cell_ids": ids}),)
            )

        return script

    model.script = run([c.id for c in cells[:4]])
    prompt = (await api("bob", "POST", "prompts", body={"text": "big and broken"})).json
    await answer(api, room, "execute")
    await eventually(lambda: prompt["id"] in finished(room), timeout=60)

    said = model.requests[-1].tool_results[0]
    assert len(said) < 20_000, len(said)
    assert "characters not shown; the notebook holds the whole output" in said
    assert "ZeroDivisionError: division by zero" in said
    assert "inner()" in said and "return 1 / 0" in said, "the frames where it failed"
    assert "\x1b[" not in said
    assert "the 1 cell(s) after it did not run" in said
    assert "image/png 2x2" in said, "the image described in words"
    sent = json.dumps(model.requests[-1].messages)
    assert f"data:image/png;base64,{tiny_png()}" in sent, "and given to the model as an image"
    live = await live_notebook(jp_serverapp)
    assert live.get_cell(0)["outputs"][0]["text"] == "x" * 5_000_000 + "\n", "kept whole"
    assert live.get_cell(3)["outputs"] == []
    await eventually(lambda: len(text_of(cell_outputs(person, 0))) == 5_000_001, timeout=10)

    # A kernel that dies mid-run is a clear failure, not a hang.
    model.script = run([cells[4].id])
    prompt = (await api("bob", "POST", "prompts", body={"text": "crash"})).json
    await answer(api, room, "execute")
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    said = model.requests[-1].tool_results[0]
    assert re.search(r"kernel of live.ipynb (died|was restarted)", said), said
    person.close()


async def test_a_persons_running_cell_is_waited_for_and_their_own_client_keeps_working(
    api, room, model, jp_fetch, jp_root_dir, jp_serverapp
):
    notebook = write_notebook(jp_root_dir / PATH, ["print('after', done)"])
    await ready(api, room)
    kernel_id = await open_session(jp_fetch)
    kernel = jp_serverapp.kernel_manager.get_kernel(kernel_id)
    person = await person_kernel(jp_serverapp, kernel_id)
    person.execute("import time\ntime.sleep(3)\ndone = 'the person'")
    await eventually(lambda: kernel.execution_state == "busy", timeout=10, what="their cell")

    model.script = runs_first_cell(notebook)
    prompt = (await api("bob", "POST", "prompts", body={"text": "print it"})).json
    card = await answer(api, room, "execute")
    assert "waits for it to finish" in card["details"]["waiting"]
    await eventually(lambda: room.document.meta.get("kernel_state") == "waiting", timeout=10)
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    assert "after the person" in model.requests[-1].tool_results[0], "it ran after theirs"

    # The person's own connection to the kernel still gets its replies after the agent's run.
    assert await evaluate(person, "done") == "'the person'"
    # The room keeps showing that kernel's state: a person's own run too.
    person.execute("time.sleep(1.5)")
    await eventually(lambda: room.document.meta.get("kernel_state") == "busy", timeout=5)
    await eventually(lambda: room.document.meta.get("kernel_state") == "idle", timeout=5)

    # notebook_inspect: the agent reads the people's variables after approval, changing nothing.
    await person.execute_interactive("import numpy as np\ngrid = np.arange(12).reshape(3, 4)")

    def inspects(request):
        if request.tool_results:
            return Reply("Seen.")
        names = ["grid", "done", "missing"]
        return Reply(tool_calls=(ToolCall("notebook_inspect", {"path": PATH, "names": names}),))

    model.script = inspects
    prompt = (await api("bob", "POST", "prompts", body={"text": "what is grid?"})).json
    card = await answer(api, room, "execute")
    assert card["summary"] == f"inspect grid, done, missing in the kernel of {PATH}"
    await eventually(lambda: prompt["id"] in finished(room), timeout=30)
    said = model.requests[-1].tool_results[0]
    assert "type: numpy.ndarray\nshape: (3, 4)\ndtype: int64\nmin: 0\nmax: 11" in said, said
    assert "`done`:\ntype: builtins.str\nrepr: 'the person'" in said
    assert "`missing`:\nnot defined" in said
    added = "sorted(k for k in globals() if 'summar' in k or 'describe' in k or k == 'cut')"
    assert await evaluate(person, added) == "[]", "the people's namespace is only read"

    # A cell longer than the room's execution timeout is interrupted, and the model told why.
    await api("alice", "PATCH", "settings", body={"execution_timeout": 1})
    await person.execute_interactive("import time", timeout=30)
    model.script = runs_first_cell(write_notebook(jp_root_dir / PATH, ["time.sleep(30)"]))
    prompt = (await api("bob", "POST", "prompts", body={"text": "sleep"})).json
    await answer(api, room, "execute")
    await eventually(lambda: prompt["id"] in finished(room), timeout=15)
    assert "longer than 1 s (the room's execution timeout)" in model.requests[-1].tool_results[0]
    assert kernel.execution_state == "idle"
    assert await evaluate(person, "'still here'") == "'still here'"
    person.stop_channels()
    await jp_serverapp.kernel_manager.shutdown_kernel(kernel_id)
    await eventually(lambda: room.document.meta.get("kernel_state") == "shut down", timeout=5)
