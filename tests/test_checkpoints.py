"""Checkpoints: a turn that changed files is a commit on the room's own ref, which people can
diff and revert; their branch, staging area and working tree are never touched by it.

The real Copilot runtime runs a real shell command (the scripted model asks for it) in a real
git repository."""

import subprocess

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.room.checkpoints import REF

from .harness.helpers import eventually, ready

LINES = "".join(f"line {n}\n" for n in range(1, 9))


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


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
    second = await turn(api, room, "bob", "sed -i 's/^line 5$/agent 5/' a.txt")
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
