"""Checkpoints: a turn that changed files is a commit on the room's own ref, which people can
diff and revert; their branch, staging area and working tree are never touched by it.

The real Copilot runtime runs a real shell command (the scripted model asks for it) in a real
git repository; an open notebook is a second client on jupyter-collaboration's live document."""

import asyncio
import contextlib
import json
import os
import subprocess
import time
from pathlib import Path

import nbformat
import pytest
from pycrdt import create_awareness_message

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.checkpoints.turn_checkpoints import REF, Author, Checkpoints

from .harness import config
from .harness.helpers import eventually, ready
from .test_notebooks import join_notebook

ALICE = Author("alice", "Alice")
LINES = "".join(f"line {n}\n" for n in range(1, 9))


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path):
    return config.collaborative(jp_server_config, tmp_path)


def git(root, *args):
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def run_commands(request):
    """Each prompt is the shell command the agent runs."""
    if request.tool_results:
        return Reply("Done.")
    command = request.prompt.split("]: ", 1)[1].split("\n", 1)[0]
    return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "edit"}),))


async def turn(api, room, user, command):
    """`command` run by the agent as `user`'s turn (approved by them); its checkpoint."""
    prompt = (await api(user, "POST", "prompts", body={"text": command})).json["id"]
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [request_id] = room.document.approvals.to_py()
    r = await api(user, "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    entry = {}

    def checkpointed():
        entry.update(next(e for e in room.document.transcript.to_py() if e["id"] == prompt))
        return "checkpoint" in entry

    await eventually(checkpointed, timeout=30, what="the turn's checkpoint")
    return entry["checkpoint"]


async def test_a_turn_is_a_checkpoint_and_reverts_unless_someone_changed_the_same_lines(
    api, room, model, jp_root_dir
):
    root = jp_root_dir
    (root / "a.txt").write_text(LINES)
    (root / "b.txt").write_text(LINES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "a.txt", "b.txt")
    git(root, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "start")
    (root / "notes.txt").write_text("staged by a person\n")
    git(root, "add", "notes.txt")  # the people's staging area holds something of theirs
    people_before = (git(root, "status", "--porcelain"), git(root, "diff", "--cached"))

    model.script = run_commands
    await ready(api, room)
    checkpoint = await turn(
        api, room, "bob", "sed -i 's/^line 2$/agent 2/' a.txt && printf 'new\\n' >> b.txt"
    )
    assert sorted(checkpoint["files"]) == ["a.txt", "b.txt"]
    commit = checkpoint["commit"]
    assert git(root, "rev-parse", REF).strip() == commit
    assert git(root, "log", "-1", "--format=%an <%ae>%n%s", commit) == (
        "Bob <bob@users.noreply.copilot-room>\nsed -i 's/^line 2$/agent 2/' a.txt && "
        "printf 'new\\n' >> b.txt\n"
    )
    # Exactly the turn's diff: the person's staged notes.txt was there before and after.
    assert git(root, "diff", "--name-only", f"{commit}^", commit).split() == ["a.txt", "b.txt"]
    # The people's branch, index and working tree: untouched by the checkpoint.
    assert git(root, "rev-list", "--count", "HEAD").strip() == "1"
    assert (git(root, "status", "--porcelain"), git(root, "diff", "--cached")) == (
        " M a.txt\n M b.txt\nA  notes.txt\n",
        people_before[1],
    )
    diff = await api("bob", "GET", "checkpoints", commit, "diff")
    assert diff.code == 200 and "-line 2\n+agent 2\n" in diff.json["diff"]
    assert (await api("carol", "GET", "checkpoints", commit, "diff")).code == 403  # a viewer

    # A member may not revert (hosts have not allowed authors to); a host may.
    r = await api("bob", "POST", "checkpoints", commit, "revert")
    assert (r.code, r.json["error"]) == (403, "not_allowed_to_revert")
    r = await api("alice", "POST", "checkpoints", commit, "revert")
    assert r.code == 200, r
    assert (root / "a.txt").read_text() == (root / "b.txt").read_text() == LINES
    assert git(root, "status", "--porcelain") == people_before[0]
    assert git(root, "diff", "--cached") == people_before[1]
    reverted = r.json["commit"]
    assert git(root, "rev-parse", REF).strip() == reverted
    assert git(root, "log", "-1", "--format=%an", reverted).strip() == "Alice"
    await eventually(
        lambda: any(
            e.get("checkpoint", {}).get("commit") == reverted
            for e in room.document.transcript.to_py()
        ),
        what="the revert's line",
    )

    # A later change by a person to the same line: the revert conflicts and changes nothing.
    # An export saved meanwhile (the panel's folder for them) is not the turn's change.
    exported = "mkdir -p copilot-room-exports && echo x > copilot-room-exports/t.md"
    second = await turn(api, room, "bob", f"sed -i 's/^line 5$/agent 5/' a.txt && {exported}")
    assert second["files"] == ["a.txt"]
    (root / "a.txt").write_text(LINES.replace("line 5", "person 5"))
    r = await api("alice", "POST", "checkpoints", second["commit"], "revert")
    assert (r.code, r.json["error"]) == (409, "revert_conflict")
    assert "a.txt" in r.json["message"]
    assert (root / "a.txt").read_text() == LINES.replace("line 5", "person 5")
    assert git(root, "rev-parse", REF).strip() == second["commit"]
    assert (await api("alice", "POST", "checkpoints", "f" * 40, "revert")).code == 404


async def test_a_folder_without_git_gets_checkpoints_its_author_may_revert_when_allowed(
    api, room, model, jp_root_dir, state_dir
):
    (jp_root_dir / "plan.md").write_text(LINES)
    model.script = run_commands
    await ready(api, room)
    checkpoint = await turn(api, room, "bob", "printf 'agent\\n' >> plan.md && rm -f gone.txt")
    assert checkpoint["files"] == ["plan.md"]
    assert not (jp_root_dir / ".git").exists()  # the folder stays as it was: no repository
    git_dir = state_dir / "checkpoints" / "git"
    assert (
        git(jp_root_dir, f"--git-dir={git_dir}", "rev-parse", REF).strip() == (checkpoint["commit"])
    )
    r = await api("bob", "POST", "checkpoints", checkpoint["commit"], "revert")
    assert r.code == 403
    r = await api("alice", "PATCH", "settings", body={"authors_can_revert": True})
    assert r.code == 200, r
    assert "revert_own" in (await api("bob", "GET", "room")).json["me"]["can"]
    r = await api("bob", "POST", "checkpoints", checkpoint["commit"], "revert")
    assert r.code == 200, r
    assert (jp_root_dir / "plan.md").read_text() == LINES
    again = await api("bob", "POST", "checkpoints", checkpoint["commit"], "revert")
    assert again.code == 409  # already as before the turn: nothing to do, nothing changed


def edits_a_file_and_the_open_notebook(cell_id):
    """The first prompt: a shell command on a.txt and a cell of live.ipynb replaced; a later
    one: that cell replaced again."""

    def script(request):
        if request.tool_results:
            return Reply("Done.")
        first = "and a.txt" in request.prompt
        source = "total = sum(values)" if first else "total = 2 * sum(values)"
        edit = ToolCall(
            "notebook_replace_cell", {"path": "live.ipynb", "cell_id": cell_id, "source": source}
        )
        if not first:
            return Reply(tool_calls=(edit,))
        command = "sed -i 's/^line 2$/agent 2/' a.txt"
        return Reply(
            tool_calls=(ToolCall("bash", {"command": command, "description": "edit"}), edit)
        )

    return script


async def checkpointed_turn(api, room, user, text):
    """`text` as `user`'s prompt, every card of its turn approved; its checkpoint."""
    prompt = (await api(user, "POST", "prompts", body={"text": text})).json["id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        entry = next(e for e in room.document.transcript.to_py() if e["id"] == prompt)
        if "checkpoint" in entry:
            return entry["checkpoint"]
        for request_id in room.document.approvals.to_py():
            r = await api(user, "POST", "approvals", request_id, body={"decision": "approve"})
            assert r.code in (200, 409), r
        await asyncio.sleep(0.05)
    raise AssertionError(f"no checkpoint for {text!r}")


def people_status(root):
    """`git status` as people see it, but jupyter-collaboration's own session file."""
    status = git(root, "status", "--porcelain").splitlines(keepends=True)
    return "".join(line for line in status if line != "?? .jupyter/\n")


def sources(data):
    return [cell.source for cell in nbformat.reads(data, as_version=4).cells]


async def test_an_open_notebook_is_checkpointed_and_reverted_through_its_live_document(
    api, room, model, jp_root_dir, jp_serverapp, jp_fetch, jp_http_port, jp_base_url
):
    root = jp_root_dir
    (root / "a.txt").write_text(LINES)
    notebook = nbformat.v4.new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3"},
            "language_info": {"name": "python"},
        }
    )
    notebook.cells = [nbformat.v4.new_code_cell(s) for s in ("values = [1, 2]", "total = 0")]
    nbformat.write(notebook, root / "live.ipynb")
    saved = (root / "live.ipynb").read_bytes()
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "a.txt", "live.ipynb")
    git(root, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "start")
    ids = [cell.id for cell in notebook.cells]

    await ready(api, room)
    # Bob has the notebook open, with autosave off: its live state is never on disk.
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    state = person.awareness.get_local_state()
    person.awareness.set_local_state({**state, "autosave": False})
    update = person.awareness.encode_awareness_update([person.doc.client_id])
    person.ws.write_message(create_awareness_message(update), binary=True)
    await eventually(lambda: person.notebook.cell_number == 2, timeout=30, what="the sync")
    live = await jp_serverapp.web_app.settings["jupyter_server_ydoc"].get_document(
        path="live.ipynb", content_type="notebook", file_format="json", copy=False
    )
    await eventually(
        lambda: [s.get("autosave") for s in live.awareness.states.values() if s] == [False],
        what="the server to hear that autosave is off",
    )

    model.script = edits_a_file_and_the_open_notebook(ids[1])
    checkpoint = await checkpointed_turn(api, room, "bob", "tidy the notebook and a.txt")
    commit = checkpoint["commit"]
    assert sorted(checkpoint["files"]) == ["a.txt", "live.ipynb"]
    assert git(root, "rev-parse", REF).strip() == commit
    assert git(root, "log", "-1", "--format=%an", commit).strip() == "Bob"
    # The notebook as the live document had it, unsaved: as Jupyter would save it.
    assert sources(git(root, "show", f"{commit}:live.ipynb")) == [
        "values = [1, 2]",
        "total = sum(values)",
    ]
    assert git(root, "show", f"{commit}^:live.ipynb").encode() == saved
    # The people's branch, index and files: only the agent's shell edit is on disk.
    assert people_status(root) == " M a.txt\n"
    assert (root / "live.ipynb").read_bytes() == saved

    # Bob goes on typing in another cell (unsaved); the revert keeps that and puts the agent's
    # cell back through the live document: the open client sees it, the file is not written.
    await person.type_into(0, "  # mine", pause=0)
    await eventually(
        lambda: str(live.ycells[0]["source"]).endswith("# mine"), what="bob's typing to arrive"
    )
    r = await api("alice", "POST", "checkpoints", commit, "revert")
    assert r.code == 200, r
    assert sorted(r.json["files"]) == ["a.txt", "live.ipynb"]
    assert (root / "a.txt").read_text() == LINES
    await eventually(
        lambda: person.sources() == ["values = [1, 2]  # mine", "total = 0"],
        what="the open notebook to show its cells as before the turn",
    )
    assert [person.notebook.get_cell(i)["id"] for i in range(2)] == ids  # the same cells
    assert "copilot_room" not in person.notebook.get_cell(1)["metadata"]
    assert people_status(root) == ""
    assert (root / "live.ipynb").read_bytes() == saved

    # A later turn changes the cell, then Bob types in it: that revert conflicts, changes nothing.
    second = await checkpointed_turn(api, room, "bob", "double the total")
    assert second["files"] == ["live.ipynb"]
    await person.type_into(1, " + 1", pause=0)
    expected = ["values = [1, 2]  # mine", "total = 2 * sum(values) + 1"]
    await eventually(lambda: [str(c["source"]) for c in live.ycells] == expected, what="bob")
    r = await api("alice", "POST", "checkpoints", second["commit"], "revert")
    assert (r.code, r.json["error"]) == (409, "revert_conflict")
    assert "live.ipynb" in r.json["message"]
    await person.caught_up()  # the live notebook as the refused revert left it
    assert person.sources() == expected
    assert git(root, "rev-parse", REF).strip() == second["commit"]
    assert json.loads((root / "live.ipynb").read_bytes()) == json.loads(saved)

    # "Revert anyway" is a host's: over Bob's typing, the cell goes back to before the turn.
    forced = {"force": True}
    r = await api("bob", "POST", "checkpoints", second["commit"], "revert", body=forced)
    assert (r.code, r.json["error"]) == (403, "not_allowed_to_force")
    r = await api("alice", "POST", "checkpoints", second["commit"], "revert", body=forced)
    assert r.code == 200, r.json
    await eventually(
        lambda: person.sources() == ["values = [1, 2]  # mine", "total = 0"],
        what="the cell as it was before the second turn",
    )
    person.close()


async def test_a_cell_a_person_deleted_during_a_turn_is_not_the_turns_and_stays_deleted(
    api, room, model, jp_root_dir
):
    """The agent deletes cell b while a person deletes cell c (the turn waits on the card):
    the checkpoint takes away b only, and its revert brings b back, not c."""
    root = jp_root_dir
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(s) for s in ("a = 1", "b = 2", "c = 3")]
    nbformat.write(notebook, root / "nb.ipynb")
    git(root, "init", "-q", "-b", "main")
    a, b, c = (cell.id for cell in notebook.cells)
    delete = ToolCall("notebook_delete_cell", {"path": "nb.ipynb", "cell_id": b})
    model.script = lambda request: (
        Reply("Done.") if request.tool_results else Reply(tool_calls=(delete,))
    )
    await ready(api, room)
    prompt = (await api("bob", "POST", "prompts", body={"text": "drop b"})).json["id"]
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    notebook.cells = [cell for cell in notebook.cells if cell.id != c]  # the person's deletion
    nbformat.write(notebook, root / "nb.ipynb")
    [card] = room.document.approvals.to_py()
    assert (await api("bob", "POST", "approvals", card, body={"decision": "approve"})).code == 200
    entry = {}

    def checkpointed():
        entry.update(next(e for e in room.document.transcript.to_py() if e["id"] == prompt))
        return "checkpoint" in entry

    await eventually(checkpointed, timeout=30, what="the turn's checkpoint")
    commit = entry["checkpoint"]["commit"]
    assert sources(git(root, "show", f"{commit}^:nb.ipynb")) == ["a = 1", "b = 2", "c = 3"]
    assert sources(git(root, "show", f"{commit}:nb.ipynb")) == ["a = 1", "c = 3"]
    assert [cell.id for cell in nbformat.read(root / "nb.ipynb", 4).cells] == [a]

    r = await api("alice", "POST", "checkpoints", commit, "revert")
    assert r.code == 200, r
    assert [cell.id for cell in nbformat.read(root / "nb.ipynb", 4).cells] == [a, b]


def processes(keep):
    """Running (not zombie) processes whose /proc stat fields `keep(comm, fields)` accepts."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            comm, rest = stat.read_text().rsplit(")", 1)
            fields = rest.split()  # state, ppid, pgrp, ...
            if fields[0] != "Z" and keep(comm.split("(", 1)[1], fields):
                found.append(int(stat.parent.name))
    return found


def git_children():
    return processes(lambda comm, f: comm == "git" and int(f[1]) == os.getpid())


def command_line(pid):
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    return []


async def test_a_git_run_cancelled_mid_way_is_killed_and_reaped(tmp_path):
    """The server stops during a turn's snapshot: no git process is left to outlive the loop."""
    (tmp_path / "work").mkdir()
    checkpoints = Checkpoints(tmp_path / "work", tmp_path / "state")
    nap = asyncio.create_task(checkpoints.git.run("-c", "alias.nap=!sleep 30", "nap"))

    def napping():  # our git (not one another test left), once it runs its alias's sleep
        ours = [pid for pid in git_children() if b"alias.nap=!sleep 30" in command_line(pid)]
        sleeps = processes(lambda comm, f: comm == "sleep" and ours and int(f[2]) == ours[0])
        return ours[0] if sleeps else None

    await eventually(napping, timeout=10, what="git to run its alias")
    git_pid = napping()
    nap.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(nap, timeout=10)
    assert git_pid not in git_children()
    assert processes(lambda comm, f: int(f[2]) == git_pid) == [], "nor its child, the sleep"


@pytest.mark.parametrize("repository", [True, False], ids=["repository", "plain folder"])
async def test_locks_a_killed_server_left_never_stop_the_next_checkpoints(tmp_path, repository):
    """kill -9 during git leaves its lock files: the next server's checkpoints are made anyway."""
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    (work / "notes.txt").write_text("as found\n")
    if repository:
        git(work, "init", "-q")
    first = Checkpoints(work, state)
    first.turn_started("p1")
    await first.started("p1")
    (work / "notes.txt").write_text("first turn\n")
    assert await first.turn_ended("p1", ALICE, "first") is not None
    locks = [state / "checkpoints" / name for name in ("index.lock", "files.index.lock")]
    if not repository:
        locks.append(state / "checkpoints" / "git" / f"{REF}.lock")
    for lock in locks:
        lock.write_bytes(b"")

    again = Checkpoints(work, state)
    again.turn_started("p2")
    await again.started("p2")
    (work / "notes.txt").write_text("second turn\n")
    made = await again.turn_ended("p2", ALICE, "second")
    assert made is not None and made.files == ("notes.txt",)
    assert not any(lock.exists() for lock in locks)
