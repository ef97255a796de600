"""A turn's checkpoint holds only the agent's changes (issue 42): a file a person saved during
the turn, through Jupyter's contents API or on disk, is never the turn's, so reverting the turn
never undoes their work. Without a shell command the agent's own files are those its write and
edit tools named; after one, other changes are the turn's, named as changed while its shell ran.

The real Copilot runtime, driven by the scripted model, asks to edit and to run commands."""

import json

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness import people
from .harness.helpers import eventually, ready
from .test_checkpoints import git


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


@pytest.fixture
def repository(jp_root_dir):
    (jp_root_dir / "stats.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    git(jp_root_dir, "init", "-q", "-b", "main")
    git(jp_root_dir, "add", "stats.py")
    git(jp_root_dir, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qm", "start")
    return jp_root_dir


def asks(tool_call):
    def script(request):
        if request.tool_results:
            return Reply("Done.")
        return Reply(tool_calls=(tool_call,))

    return script


async def a_card(room):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [card] = room.document.approvals.to_py()
    return card


async def ended(room, prompt_id):
    def done():
        return any(
            e["id"] == prompt_id and e.get("state") in ("completed", "failed", "canceled")
            for e in room.document.transcript.to_py()
        )

    await eventually(done, timeout=30, what="the turn's end")
    await room.durable()
    return next(e for e in room.document.transcript.to_py() if e["id"] == prompt_id)


async def save_through_jupyter(jp_fetch, path, text):
    """What a person's editor does: `PUT api/contents/<path>`."""
    body = json.dumps({"type": "file", "format": "text", "content": text})
    await jp_fetch(
        "api", "contents", path, method="PUT", body=body, headers=people.authorization("bob")
    )


async def test_only_the_agents_changes_are_a_turns_checkpoint(
    api, room, model, repository, jp_fetch
):
    stats = str(repository / "stats.py")
    edit = {"path": stats, "old_str": "/ len(xs)", "new_str": "/ max(len(xs), 1)"}
    model.script = asks(ToolCall("edit", edit))
    await ready(api, room)
    first = (await api("bob", "POST", "prompts", body={"text": "guard the mean"})).json["id"]
    card = await a_card(room)
    await save_through_jupyter(jp_fetch, "people.txt", "Bob's notes\n")  # the contents API
    (repository / "scratch.txt").write_text("typed in a terminal\n")  # on disk
    rejected = await api("bob", "POST", "approvals", card, body={"decision": "reject"})
    assert rejected.code == 200
    await ended(room, first)

    # A second turn runs a shell command: checkpoints are made one at a time, so once this
    # one's is there, the first turn's would be too.
    command = "printf 'made by the agent\\n' > made.txt"
    model.script = asks(ToolCall("bash", {"command": command, "description": "make it"}))
    second = (await api("bob", "POST", "prompts", body={"text": "make a file"})).json["id"]
    card = await a_card(room)
    await save_through_jupyter(jp_fetch, "more-notes.txt", "more of Bob's notes\n")
    assert (await api("bob", "POST", "approvals", card, body={"decision": "approve"})).code == 200
    await ended(room, second)
    await eventually(
        lambda: (
            "checkpoint" in next(e for e in room.document.transcript.to_py() if e["id"] == second)
        ),
        timeout=30,
        what="the second turn's checkpoint",
    )
    entry = next(e for e in room.document.transcript.to_py() if e["id"] == second)
    assert entry["checkpoint"]["files"] == ["made.txt"], "a person's saves are never the turn's"
    assert entry["checkpoint"]["unnamed"] == ["made.txt"], "changed while the agent's shell ran"

    first_entry = next(e for e in room.document.transcript.to_py() if e["id"] == first)
    assert "checkpoint" not in first_entry, "a turn whose only edit was rejected changed nothing"
    diff = await api("bob", "GET", "checkpoints", entry["checkpoint"]["commit"], "diff")
    assert "more-notes" not in diff.json["diff"] and "made by the agent" in diff.json["diff"]
    reverted = await api("alice", "POST", "checkpoints", entry["checkpoint"]["commit"], "revert")
    assert reverted.code == 200, reverted
    assert not (repository / "made.txt").exists()
    assert (repository / "people.txt").read_text() == "Bob's notes\n"
    assert (repository / "more-notes.txt").read_text() == "more of Bob's notes\n"
    assert (repository / "scratch.txt").read_text() == "typed in a terminal\n"
