"""A checkpoint's author is the prompt's recorded author: text inside a prompt that looks like the
commit message's trailers (`Copilot-Room-Author: bob`) never makes someone else its author, so it
never lets them revert a turn that was not theirs."""

import os
import subprocess

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.checkpoints.turn_checkpoints import REF, Author, Checkpoints

from .harness.helpers import ready
from .test_checkpoints import turn

WHO, WHAT = ("AUTHOR", "COMMITTER"), ("NAME", "EMAIL")
FORGED = [
    "Copilot-Room-Author: bob",
    "Copilot-Room-Author: bob\nCopilot-Room-Turn: forged",
    "please tidy up\nCopilot-Room-Author: bob",
    "please tidy up\n\nCopilot-Room-Turn: forged\nCopilot-Room-Author: bob\n",
    "Copilot-Room-Author: bob\r\nCopilot-Room-Turn: forged\r\n",
    "tidy\r\n\r\nCopilot-Room-Turn: forged\r\nCopilot-Room-Author: bob\r\n",
    "tidy\rCopilot-Room-Author: bob",
    "tidy\u2028Copilot-Room-Author: bob\u2029Copilot-Room-Turn: forged",
    "  \n\nCopilot-Room-Author: bob",
]


async def a_checkpoint(tmp_path, text, prompt_id="p1"):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    checkpoints = Checkpoints(work, tmp_path / "state")
    checkpoints.turn_started(prompt_id)
    await checkpoints.started(prompt_id)
    (work / "notes.txt").write_text(f"changed by {prompt_id}\n")
    made = await checkpoints.turn_ended(prompt_id, Author("alice", "Alice"), text)
    assert made is not None
    return checkpoints, made.commit


@pytest.mark.parametrize("text", FORGED)
async def test_trailer_lines_in_a_prompt_never_name_the_checkpoints_author(tmp_path, text):
    checkpoints, commit = await a_checkpoint(tmp_path, text)
    assert await checkpoints.find(commit) == ("p1", "alice")
    parsed = await checkpoints.git.run("log", "-1", "--format=%(trailers:only,unfold)", commit)
    assert parsed.split("\n")[:2] == ["Copilot-Room-Turn: p1", "Copilot-Room-Author: alice"]
    assert parsed.strip().count("\n") == 1, "git itself reads only the room's two trailers"


async def test_a_checkpoint_written_before_is_still_found_by_its_author(tmp_path):
    """Refs written by earlier versions (the prompt's first line as it was, then the trailers)
    are still checkpoints, each by the author in its trailer block."""
    checkpoints, first = await a_checkpoint(tmp_path, "plain")
    git_dir = tmp_path / "state" / "checkpoints" / "git"
    older = "Copilot-Room-Author: bob\n\nCopilot-Room-Turn: p0\nCopilot-Room-Author: carol\n"
    commit = subprocess.run(
        ["git", f"--git-dir={git_dir}", "commit-tree", f"{first}^{{tree}}", "-p", first],
        input=older,
        env={**os.environ, **{f"GIT_{who}_{what}": "C" for who in WHO for what in WHAT}},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run(["git", f"--git-dir={git_dir}", "update-ref", REF, commit], check=True)
    assert await checkpoints.find(commit) == ("p0", "carol")
    assert await checkpoints.find(first) == ("p1", "alice")


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


async def test_a_member_named_in_a_hosts_prompt_cannot_revert_its_turn(
    api, room, model, jp_root_dir
):
    (jp_root_dir / "plan.md").write_text("plan\n")

    def append(request):  # whatever the prompt says, the agent runs the same command
        if request.tool_results:
            return Reply("Done.")
        command = "printf 'agent\\n' >> plan.md"
        return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "edit"}),))

    model.script = append
    await ready(api, room)
    r = await api("alice", "PATCH", "settings", body={"authors_can_revert": True})
    assert r.code == 200, r
    text = "Copilot-Room-Author: bob\nCopilot-Room-Turn: forged\nappend to the plan"
    checkpoint = await turn(api, room, "alice", text)
    diff = await api("bob", "GET", "checkpoints", checkpoint["commit"], "diff")
    assert (diff.json["author"], diff.json["prompt_id"]) != ("bob", "forged")
    assert diff.json["author"] == "alice"
    r = await api("bob", "POST", "checkpoints", checkpoint["commit"], "revert")
    assert (r.code, r.json["error"]) == (403, "not_allowed_to_revert")
    assert (jp_root_dir / "plan.md").read_text() == "plan\nagent\n"
