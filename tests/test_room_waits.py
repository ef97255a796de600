"""What waits on the room's state is woken by the change, not by looking again: a fork waits for
the agent to be up (`AgentLife.settled`), a sign-in's restart for the turn in flight to end
(`Turns.idle`). A poll would see the change only at its next look, tens of milliseconds later."""

import asyncio

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.errors import Unavailable
from jupyter_copilot_room.events import AgentStatus
from jupyter_copilot_room.request_bodies import PromptBody
from jupyter_copilot_room.threads.room_side import RoomSide

from .harness.helpers import eventually

BOB = Identity("bob", "Bob", verified=True)
#: Loop iterations a woken waiter needs to return (Python 3.11's `wait_for` adds a task).
WAKE_STEPS = 10


async def steps(count: int = WAKE_STEPS) -> None:
    for _ in range(count):
        await asyncio.sleep(0)


async def test_a_fork_goes_on_as_soon_as_the_sleeping_agent_is_ready(make_room, tmp_path):
    room = make_room(tmp_path, name="proj")  # a room but main: its agent sleeps until needed
    await room.ensure_started()
    assert room.turns.life.agent_status == "sleeping"
    ready = asyncio.Event()
    room.listen(lambda record: record.kind == "agent.ready" and ready.set())

    waiting = asyncio.create_task(RoomSide(room).agent_ready())
    await asyncio.wait_for(ready.wait(), 10)
    await steps()

    assert waiting.done(), "the fork saw the agent ready at its change, not at a later look"
    await waiting


async def test_a_fork_is_refused_as_soon_as_the_agent_is_unavailable(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    await eventually(lambda: room.turns.life.agent_status == "ready", what="the agent up")
    room.turns.life.agent_status = "starting"  # as after a lost runtime: restarting
    waiting = asyncio.create_task(RoomSide(room).agent_ready())
    await steps()
    assert not waiting.done(), "a starting agent is waited for"

    room.turns.life.status_changed(
        AgentStatus(state="unavailable", label="Unavailable", error="no runtime")
    )
    await steps()

    assert waiting.done()
    assert isinstance(waiting.exception(), Unavailable)


async def test_waiting_for_the_room_to_be_idle_ends_with_the_turn(make_room, tmp_path):
    room = make_room(tmp_path)
    await room.ensure_started()
    await eventually(lambda: room.turns.life.agent_status == "ready", what="the agent up")
    room.prompt_commands.submit(BOB, PromptBody(text="wait"))
    await eventually(lambda: room.document.meta.get("state") == "running", what="the turn")
    idle = asyncio.create_task(room.turns.idle())
    await steps()
    assert not idle.done(), "a turn is in flight"

    finished = asyncio.Event()
    room.listen(lambda record: record.kind == "prompt.finished" and finished.set())
    room.agent.release.set()
    await asyncio.wait_for(finished.wait(), 10)
    await steps()

    assert idle.done(), "woken by the turn's end, not at a later look"
