"""Approval policies with the real Copilot runtime: a rule approves or rejects at once (and is
named in the record), and a risky command waits for two different people."""

import json

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness.helpers import eventually, ready

POLICY = {
    "shell": {
        "default": "ask",
        "rules": ["git status* -> auto", "ls* -> auto", "rm * -> two", "curl * -> deny"],
    }
}


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "approval_policy": POLICY}


def run_commands(request):
    """Each prompt is the shell command the agent runs."""
    if request.tool_results:
        return Reply("Done.")
    command = request.prompt.split("]: ", 1)[1].split("\n", 1)[0]
    return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "run"}),))


def settled(state_dir, summary):
    """The settled record of the request about `summary`."""
    records = [json.loads(line) for line in (state_dir / "transcript.jsonl").open()]
    [opened] = [
        r for r in records if r["kind"] == "request.opened" and r["payload"]["summary"] == summary
    ]
    request_id = opened["payload"]["id"]
    [done] = [
        r for r in records if r["kind"] == "request.settled" and r["payload"]["id"] == request_id
    ]
    return done


async def finished_turn(api, room, user, command):
    prompt = (await api(user, "POST", "prompts", body={"text": command})).json["id"]

    def ended():
        entry = next(e for e in room.document.transcript.to_py() if e["id"] == prompt)
        return entry.get("state") in ("completed", "failed", "aborted")

    await eventually(ended, timeout=30, what=f"the turn running {command}")


async def test_rules_approve_reject_or_want_two_people(api, room, model, jp_root_dir, state_dir):
    model.script = run_commands
    await ready(api, room)

    r = await api("alice", "PATCH", "settings", body={"approval_policy": {"shel": "auto"}})
    assert r.code == 400, r
    assert "unknown permission kind 'shel'" in r.json["message"]

    await finished_turn(api, room, "bob", "git status")
    done = settled(state_dir, "git status")
    assert done["payload"]["outcome"] == "approved"
    assert done["payload"]["rule"] == "shell: `git status*` -> auto"
    assert "Approved by rule shell: `git status*` -> auto" in done["payload"]["feedback"]

    await finished_turn(api, room, "bob", "curl https://example.invalid")
    done = settled(state_dir, "curl https://example.invalid")
    assert (done["payload"]["outcome"], done["payload"]["rule"]) == (
        "rejected",
        "shell: `curl *` -> deny",
    )

    (jp_root_dir / "x").write_text("doomed")
    r = await api("bob", "POST", "prompts", body={"text": "rm x"})
    assert r.code == 202, r
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [(request_id, card)] = room.document.approvals.to_py().items()
    assert (card["approvers_needed"], card["rule"]) == (2, "shell: `rm *` -> two")

    assert card["answerers"] == {
        "users": ["bob"],
        "roles": ["host"],
        "needed": 2,
        "approved": [],
    }
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    card = room.document.approvals.to_py()[request_id]
    assert card["approvers"] == ["bob"]
    assert (card["answerers"]["needed"], card["answerers"]["approved"]) == (1, ["bob"])
    assert (jp_root_dir / "x").exists()  # one approval is not enough
    # The card no longer waits on its author, only on a host: the switcher says the same.
    waiting = {}
    for user in ("alice", "bob"):
        [main] = [r for r in (await api(user, "GET", "rooms")).json["rooms"] if r["name"] == "main"]
        waiting[user] = main["waiting_on_you"]
    assert waiting == {"alice": 1, "bob": 0}

    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 409, r
    assert "Bob has already approved this" in r.json["message"]  # his name
    assert "a host" in r.json["message"]

    r = await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    await eventually(lambda: not (jp_root_dir / "x").exists(), timeout=30, what="rm x to run")
    done = settled(state_dir, "rm x")
    assert done["payload"]["approvers"] == ["bob", "alice"]
    assert done["payload"]["outcome"] == "approved"

    # A rejection by either person ends it, even after a host approved: the member says no.
    (jp_root_dir / "y").write_text("kept")
    await api("bob", "POST", "prompts", body={"text": "rm y"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the next card")
    [request_id] = room.document.approvals.to_py()
    r = await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    r = await api(
        "bob", "POST", "approvals", request_id, body={"decision": "reject", "feedback": "not y"}
    )
    assert r.code == 200, r
    await eventually(lambda: not room.document.approvals, timeout=10, what="the card to end")
    done = settled(state_dir, "rm y")
    assert (done["actor"], done["payload"]["outcome"]) == ("bob", "rejected"), done
    assert done["payload"]["feedback"] == "not y"
    assert (jp_root_dir / "y").read_text() == "kept"
