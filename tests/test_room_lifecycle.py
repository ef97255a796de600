"""A room's agent as a resource (issue 17): it sleeps after `room_idle_timeout` without a prompt
(its runtime process ends), the next prompt wakes it with the room's conversation, and with
`max_active_rooms` agents running a room that needs its agent is `held` until one is idle.

The REAL Copilot runtime through the REAL SDK, against the tests' scripted model.
"""

import json

import psutil
import pytest

from jupyter_copilot_room.agent.scripted_model import Reply

from .harness.helpers import READY, eventually, finished, ready


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "room_idle_timeout": 2.0, "max_active_rooms": 1}


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def runtime_pid(room) -> int:
    assert room.agent.connection is not None, "the agent runs"
    pid = room.agent.connection.pid
    assert pid is not None and not gone(pid)
    return pid


async def test_an_idle_agent_sleeps_wakes_with_its_history_and_a_second_room_waits_for_a_slot(
    api, room, room_app, model, jp_root_dir
):
    def script(request):
        if "slow" in request.prompt:
            return Reply("Slowly " * 60, chunk_size=4, delay=0.05)
        return Reply(f"Noted: {request.prompt}")

    model.script = script
    await ready(api, room)  # main's agent starts with the server, as in 0.1
    first = (await api("alice", "POST", "prompts", body={"text": "remember the word kiwi"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30, what="the first turn")
    pid = runtime_pid(room)

    # Two seconds without a prompt: the runtime process ends and the room says so in its state.
    await eventually(
        lambda: room.document.meta.get("state") == "sleeping", timeout=10, what="sleep"
    )
    await eventually(lambda: gone(pid), timeout=10, what="the runtime process to end")
    assert "next prompt wakes it" in room.document.meta.get("agent_detail")
    rooms = {r["name"]: r for r in (await api("alice", "GET", "rooms")).json["rooms"]}
    assert rooms["main"]["state"] == "sleeping"

    # A second room, whose agent sleeps until its first prompt.
    (jp_root_dir / "side").mkdir()
    made = await api("alice", "POST", "rooms", body={"name": "side", "repository": "side"})
    assert made.code == 201, made
    side = room_app.rooms.loaded("side")
    await eventually(lambda: side.document.meta.get("state") == "sleeping", what="side sleeps")

    # The next prompt wakes main; the model's request holds the earlier conversation.
    slow = (await api("alice", "POST", "prompts", body={"text": "slow please"})).json
    await eventually(
        lambda: room.document.meta.get("state") == "running", timeout=READY, what="main wakes"
    )
    await eventually(
        lambda: any(r.prompt == "[alice]: slow please" for r in model.requests), timeout=30
    )
    [woken] = [r for r in model.requests if r.prompt == "[alice]: slow please"]
    assert any("remember the word kiwi" in str(m.get("content")) for m in woken.messages), (
        "the woken agent resumed the room's session"
    )
    awake = runtime_pid(room)

    # One slot (max_active_rooms = 1), held by main's running turn: side's prompt waits.
    asked = await api("bob", "POST", "rooms", "side", "prompts", body={"text": "hello side"})
    assert asked.code == 202, asked
    side = room_app.rooms.loaded("side")  # loaded again if it was unloaded meanwhile (quiet)
    described = (await api("bob", "GET", "rooms", "side", "room")).json["agent"]
    assert described["state"] == "held"
    assert described["agent_detail"] == (
        "1 room's agent is running (max_active_rooms = 1); this room's prompt starts when it is "
        "free."
    )
    assert room.document.meta.get("state") == "running", "a busy room keeps its slot"

    # Main's turn ends: its idle agent gives the slot up at once, and side's prompt runs.
    await eventually(lambda: slow["id"] in finished(room), timeout=30, what="main's turn")
    await eventually(
        lambda: asked.json["id"] in finished(side), timeout=READY, what="side's prompt to run"
    )
    assert finished(side)[asked.json["id"]]["state"] == "completed"
    assert room.document.meta.get("state") == "sleeping"
    assert gone(awake), "main's runtime stopped before side's started"
    assert any(r.prompt == "[bob]: hello side" for r in model.requests)
    records = [json.loads(line) for line in room.transcript.read_text().splitlines()]
    assert not [r for r in records if r["kind"] == "system"], "sleeping is a state, not a note"
