"""Every room of a server on one Copilot runtime process (issue 29), each with a session of its
own: three rooms' turns at once, each room's cards for its own people only, an abort that stops
one room's turn alone, the runtime killed or stopped while two rooms run turns, and a room's
closed session resumed on the runtime the other rooms kept running.

The REAL Copilot runtime through the REAL SDK, against the tests' scripted model; the runtime
processes are counted in the test process's tree (the server runs in it).
"""

import json
import os
import signal

import psutil
import pytest

from jupyter_copilot_room.agent.copilot.shared_runtime import shared_runtime
from jupyter_copilot_room.agent.runtime import find_runtime
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.errors import Conflict

from .harness.helpers import READY, eventually, finished, ready

SLOW = Reply("Slowly " * 400, chunk_size=4, delay=0.05)


def runtimes() -> list[psutil.Process]:
    """The Copilot runtime processes started in this test process's tree (not the processes a
    runtime starts itself)."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if "--stdio" in child.cmdline():
                found.append(child)
        except psutil.NoSuchProcess:  # ended meanwhile, or a zombie not yet reaped
            continue
    pids = {p.pid for p in found}
    return [p for p in found if p.ppid() not in pids]


def script(request):
    """`run <word>` asks to run `echo <word>` and then says it ran; `slow` streams a long reply;
    anything else is noted."""
    if request.prompt.endswith("slow please"):
        return SLOW
    if "run " in request.prompt and not request.last_tool_calls:
        word = request.prompt.rsplit(" ", 1)[-1]
        return Reply("Running.", tool_calls=(ToolCall("bash", {"command": f"echo {word}"}),))
    return Reply(f"Noted: {request.prompt}")


def streaming(room) -> bool:
    return any(
        e["kind"] == "assistant" and e["state"] == "streaming" and e["body"]
        for e in room.document.transcript.to_py()
    )


async def make_room(api, room_app, jp_root_dir, name):
    (jp_root_dir / name).mkdir()
    made = await api("alice", "POST", "rooms", body={"name": name, "repository": name})
    assert made.code == 201, made
    return room_app.rooms.loaded(name)


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


async def test_three_rooms_run_turns_at_once_on_one_runtime_each_with_its_own_cards(
    api, room, room_app, model, jp_root_dir
):
    model.script = script
    await ready(api, room)
    north = await make_room(api, room_app, jp_root_dir, "north")
    south = await make_room(api, room_app, jp_root_dir, "south")
    # dave is a member of north only: south keeps him at its door.
    assert (await api("alice", "POST", "admissions", "dave", body={"decision": "member"})).code
    r = await api(
        "alice", "POST", "rooms", "north", "admissions", "dave", body={"decision": "member"}
    )
    assert r.code == 200, r

    slow = (await api("alice", "POST", "prompts", body={"text": "slow please"})).json
    north_prompt = await api("dave", "POST", "rooms", "north", "prompts", body={"text": "run n"})
    south_prompt = await api("bob", "POST", "rooms", "south", "prompts", body={"text": "run s"})
    assert (north_prompt.code, south_prompt.code) == (202, 202)
    await eventually(
        lambda: len(north.document.approvals) == len(south.document.approvals) == 1,
        timeout=READY,
        what="a card in north and one in south",
    )
    await eventually(lambda: streaming(room), timeout=30, what="main's reply to stream")
    states = [r.document.meta.get("state") for r in (room, north, south)]
    assert states == ["running", "waiting", "waiting"], "three turns at once, two at their cards"

    [runtime] = runtimes()
    assert {r.agent.connection.pid for r in (room, north, south)} == {runtime.pid}
    [(north_card, north_ask)] = north.document.approvals.to_py().items()
    [(south_card, south_ask)] = south.document.approvals.to_py().items()
    assert (north_ask["summary"], north_ask["author"]) == ("echo n", "dave")
    assert (south_ask["summary"], south_ask["author"]) == ("echo s", "bob")
    assert room.document.approvals.to_py() == {}

    # Each card is its room's: another room's route does not know it, and in its own room only
    # its author and the hosts answer it.
    r = await api(
        "dave", "POST", "rooms", "south", "approvals", south_card, body={"decision": "approve"}
    )
    assert r.code == 403, "dave is not admitted to south"
    r = await api(
        "bob", "POST", "rooms", "north", "approvals", north_card, body={"decision": "approve"}
    )
    assert r.code == 403, "bob did not ask north's command"
    r = await api("alice", "POST", "approvals", north_card, body={"decision": "approve"})
    assert r.code == 404, "main has no such card"
    assert len(north.document.approvals) == len(south.document.approvals) == 1

    # An abort in main stops main's turn only.
    assert (await api("alice", "POST", "abort")).code == 200
    await eventually(lambda: slow["id"] in finished(room), timeout=30, what="main's turn to end")
    assert finished(room)[slow["id"]]["state"] == "canceled"
    assert [r.document.meta.get("state") for r in (north, south)] == ["waiting"] * 2
    assert len(north.document.approvals) == len(south.document.approvals) == 1

    r = await api(
        "dave", "POST", "rooms", "north", "approvals", north_card, body={"decision": "approve"}
    )
    assert r.code == 200, r
    await eventually(lambda: north_prompt.json["id"] in finished(north), timeout=30)
    assert finished(north)[north_prompt.json["id"]]["state"] == "completed"
    r = await api(
        "bob", "POST", "rooms", "south", "approvals", south_card, body={"decision": "reject"}
    )
    assert r.code == 200, r
    await eventually(lambda: south_prompt.json["id"] in finished(south), timeout=30)
    ran = [r for r in model.requests if r.last_tool_calls == ["bash"]]
    assert len(ran) == 2 and {r.prompt for r in ran} == {"[dave]: run n", "[bob]: run s"}
    assert [p.pid for p in runtimes()] == [runtime.pid], "still the one runtime"


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "hung"])
async def test_the_shared_runtime_lost_mid_turn_fails_both_turns_and_restarts_once_for_all(
    api, room, room_app, model, jp_root_dir, stop
):
    model.script = script
    await ready(api, room)
    north = await make_room(api, room_app, jp_root_dir, "north")
    remembered = (await api("bob", "POST", "rooms", "north", "prompts", body={"text": "kiwi"})).json
    await eventually(lambda: remembered["id"] in finished(north), timeout=READY)
    cut = {
        name: (await api("alice", "POST", *path, "prompts", body={"text": "slow please"})).json
        for name, path in (("main", ()), ("north", ("rooms", "north")))
    }
    after = {
        name: (await api("bob", "POST", *path, "prompts", body={"text": "are you back?"})).json
        for name, path in (("main", ()), ("north", ("rooms", "north")))
    }
    await eventually(lambda: streaming(room) and streaming(north), timeout=30, what="both streams")
    [runtime] = runtimes()
    os.kill(runtime.pid, stop)

    rooms = {"main": room, "north": north}
    for name, r in rooms.items():
        await eventually(
            lambda r=r, name=name: after[name]["id"] in finished(r),
            timeout=60,
            what=f"{name}'s next prompt to run on the restarted runtime",
        )
        failed = finished(r)[cut[name]["id"]]
        assert failed["state"] == "failed" and "runtime stopped" in failed["reason"], failed
        assert finished(r)[after[name]["id"]]["state"] == "completed"
    [restarted] = runtimes()
    assert restarted.pid != runtime.pid
    assert {r.agent.connection.pid for r in rooms.values()} == {restarted.pid}
    [north_again] = [
        r
        for r in model.requests
        if r.prompt == "[bob]: are you back?"
        and any("kiwi" in str(m.get("content")) for m in r.messages)
    ]
    assert north_again, "north's session came back with its conversation"
    assert sum(r.prompt == "[alice]: slow please" for r in model.requests) == 2, (
        "neither cut prompt is re-run"
    )


class TestAClosedSession:
    @pytest.fixture
    def room_config(self, copilot_config):
        return {**copilot_config, "room_idle_timeout": 2.0}

    async def test_a_rooms_closed_session_resumes_on_the_runtime_the_others_kept(
        self, api, room, room_app, model, jp_root_dir
    ):
        model.script = script
        await ready(api, room)
        # main's turn waits on its card: main stays awake, and the runtime runs on.
        waiting = (await api("bob", "POST", "prompts", body={"text": "run m"})).json
        await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
        north = await make_room(api, room_app, jp_root_dir, "north")
        path = ("rooms", "north", "prompts")
        first = (await api("bob", "POST", *path, body={"text": "remember the word kiwi"})).json
        await eventually(lambda: first["id"] in finished(north), timeout=READY)
        [runtime] = runtimes()

        await eventually(
            lambda: north.document.meta.get("state") == "sleeping",
            timeout=15,
            what="north's session to close",
        )
        assert north.agent.connection is None
        assert [p.pid for p in runtimes()] == [runtime.pid], "main kept the runtime running"

        again = (await api("bob", "POST", *path, body={"text": "which word?"})).json
        await eventually(lambda: again["id"] in finished(north), timeout=30)
        assert finished(north)[again["id"]]["state"] == "completed"
        [asked] = [r for r in model.requests if r.prompt == "[bob]: which word?"]
        assert any("remember the word kiwi" in str(m.get("content")) for m in asked.messages), (
            "north's session resumed with its conversation"
        )
        assert [p.pid for p in runtimes()] == [runtime.pid]
        [card] = room.document.approvals.to_py()
        assert (await api("bob", "POST", "approvals", card, body={"decision": "approve"})).code
        await eventually(lambda: waiting["id"] in finished(room), timeout=30)

    async def test_a_session_a_rooms_own_runtime_saved_resumes_on_the_shared_one(
        self, api, room, room_app, model, jp_root_dir
    ):
        """Before 0.3 a created room's runtime kept its sessions in the room's own state: the
        first resume moves the session to the shared runtime's state."""
        model.script = script
        await ready(api, room)
        north = await make_room(api, room_app, jp_root_dir, "north")
        path = ("rooms", "north", "prompts")
        first = (await api("bob", "POST", *path, body={"text": "remember the word kiwi"})).json
        await eventually(lambda: first["id"] in finished(north), timeout=READY)
        await eventually(lambda: not runtimes(), timeout=20, what="both rooms asleep")
        session = json.loads((north.state_dir / "copilot-session.json").read_text())["session_id"]
        saved = room.state_dir / "copilot" / "session-state" / session
        own = north.state_dir / "copilot" / "session-state" / session
        own.parent.mkdir(parents=True)
        saved.rename(own)  # where north's own runtime kept it

        again = (await api("bob", "POST", *path, body={"text": "which word?"})).json
        await eventually(lambda: again["id"] in finished(north), timeout=READY)
        [asked] = [r for r in model.requests if r.prompt == "[bob]: which word?"]
        assert any("remember the word kiwi" in str(m.get("content")) for m in asked.messages)
        assert saved.is_dir() and not own.exists()


class Holder:
    """A room as the runtime sees it: whether it runs a turn."""

    def __init__(self, busy=False):
        self.running = busy

    def busy(self):
        return self.running


async def test_a_change_that_stops_the_runtime_waits_for_every_other_rooms_turn(tmp_path):
    """What a plain-text sign-out does: the runtime (every room's) stops while the login file
    changes; refused while another room runs a turn, which it would cut."""
    runtime = shared_runtime(tmp_path, find_runtime("").path, {"PATH": os.environ["PATH"]}, True)
    signing_out, working = Holder(), Holder(busy=True)
    await runtime.lease(signing_out)
    await runtime.lease(working)
    pid = runtime.pid
    seen = []

    def change():
        seen.append(psutil.pid_exists(pid) and psutil.Process(pid).status())

    with pytest.raises(Conflict) as refused:
        await runtime.stopped_for(signing_out, change)
    assert refused.value.code == "runtime_busy" and seen == []
    assert runtime.pid == pid and psutil.Process(pid).is_running()

    working.running = False
    await runtime.stopped_for(signing_out, change)
    assert seen in ([False], [psutil.STATUS_ZOMBIE]), "the change ran with the runtime stopped"
    assert (runtime.logins, runtime.pid) == (1, None)
    _, generation = await runtime.lease(signing_out)
    assert generation == 2 and runtime.pid not in (None, pid)
    await runtime.release(signing_out)
    await runtime.release(working)
    assert runtime.pid is None, "the last room's release stops it"
