"""Steering a running turn: its author or a host says something into it while it runs (the SDK's
immediate mode), and the model reads it before the turn ends."""

import pytest

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.request_bodies import PromptBody, SteerBody

from .harness.helpers import entries, eventually, finished, ready

STEER = "use python instead"


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "members": ["bob", "dave"]}  # dave: a member, not the author


def runs_a_command(request):
    """The model asks to run a command (a card waits), then reports what it was told."""
    if "later" in request.prompt:
        return Reply("Later, then.")
    if request.tool_results:
        return Reply("Done with the command.")
    return Reply(
        "Running it.",
        tool_calls=(ToolCall("bash", {"command": "echo hi", "description": "say hi"}),),
    )


async def test_steering_reaches_the_model_before_the_turn_ends(api, room, model):
    model.script = runs_a_command
    await ready(api, room)
    prompt = (await api("bob", "POST", "prompts", body={"text": "fix the bug"})).json
    queued = (await api("alice", "POST", "prompts", body={"text": "later please"})).json
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [request_id] = room.document.approvals.to_py()

    for person in ("carol", "dave", "erin"):  # a viewer, a member not the author, pending
        r = await api(person, "POST", "prompts", prompt["id"], "steer", body={"text": STEER})
        assert r.code == 403, (person, r)
    r = await api("alice", "POST", "prompts", queued["id"], "steer", body={"text": STEER})
    assert (r.code, r.json["error"]) == (409, "not_running")
    r = await api("bob", "POST", "prompts", prompt["id"], "steer", body={"text": "x" * 20_001})
    assert r.code == 413
    r = await api("bob", "POST", "prompts", prompt["id"], "steer", body={"text": STEER})
    assert r.code == 201, r
    assert room.document.approvals.to_py()[request_id]["state"] == "pending", "the card stays"

    await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    await eventually(lambda: queued["id"] in finished(room), timeout=30)
    assert finished(room)[prompt["id"]]["state"] == "completed"
    said = f"[bob] (steering): {STEER}"
    seen = [n for n, r in enumerate(model.requests) if any(said in t for t in r.user_texts())]
    later = [n for n, r in enumerate(model.requests) if r.prompt == "[alice]: later please"]
    assert seen and seen[0] < later[0], "the model read the steering within bob's turn"
    [steering] = entries(room, "steering")
    assert (steering["author"], steering["body"], steering["prompt_id"]) == (
        "bob",
        STEER,
        prompt["id"],
    )
    r = await api("bob", "POST", "prompts", prompt["id"], "steer", body={"text": STEER})
    assert (r.code, r.json["error"]) == (409, "not_running")


async def test_a_hosts_steering_is_recorded_attributed_and_replayed(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    bob = Identity("bob", "Bob", verified=True)
    prompt_id, _ = room.prompt_commands.submit(bob, PromptBody(text="wait"))
    await eventually(lambda: room.document.meta.get("state") == "running")
    alice = Identity("alice", "Alice", verified=True)
    await room.prompt_commands.steer(alice, prompt_id, SteerBody(text="stop after the tests"))
    assert room.agent.steered == [("alice", "stop after the tests")]
    room.agent.release.set()
    await eventually(lambda: room.document.meta.get("state") == "idle")
    before = entries(room, "steering")
    await room.stop()

    again = make_room(tmp_path)
    await again.ensure_started()
    assert entries(again, "steering") == before
    assert before[0]["author"] == "alice" and before[0]["prompt_id"] == prompt_id
