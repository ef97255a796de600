"""The room's own state (transcript, admissions, settings) lives where the agent cannot touch it."""

import shutil
from pathlib import Path

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.agent.seam import PermissionAsk
from jupyter_copilot_room.events import TurnEnded
from jupyter_copilot_room.request_bodies import PromptBody

from .harness.helpers import eventually
from .scripted_agent import ScriptedAgent

DATA = Path(__file__).parent / "data"
BOB = Identity("bob", "Bob", verified=True)


def test_by_default_the_state_lives_outside_the_repository_and_a_0_1_room_moves_there(
    jp_configurable_serverapp, jp_root_dir
):
    legacy = jp_root_dir / ".copilot-room"
    legacy.mkdir()
    shutil.copy(DATA / "transcript-0.1.jsonl", legacy / "transcript.jsonl")
    app = jp_configurable_serverapp(
        config={
            "ServerApp": {"jpserver_extensions": {"jupyter_copilot_room": True}},
            "CopilotRoom": {"agent_class": None},
        }
    )
    state = Path(app.extension_manager.extension_points["jupyter_copilot_room"].app.state_dir)
    assert not state.resolve().is_relative_to(jp_root_dir.resolve())
    transcript = (state / "transcript.jsonl").read_bytes()
    assert transcript == (DATA / "transcript-0.1.jsonl").read_bytes(), "nothing lost"
    assert not legacy.exists()


class TouchesTheRoomsState(ScriptedAgent):
    """`write PATH` asks to write a file; other verbs as the scripted agent."""

    async def _play(self, turn):
        verb, _, rest = turn.text.partition(" ")
        if verb == "write":
            self.answers.append(await self.host.request_permission(PermissionAsk("write", rest)))
            await self.host.publish(TurnEnded())
            return
        await super()._play(turn)


async def test_the_agent_may_never_read_or_change_the_rooms_state(make_room, tmp_path):
    state = tmp_path / "state"
    room = make_room(state, TouchesTheRoomsState, repository=tmp_path)
    await room.ensure_started()
    asks = [
        "write state/admissions.json",
        f"write {state}/transcript.jsonl",
        f"shell cp evil.json {state}/admissions.json",
    ]
    for text in asks:
        room.prompt_commands.submit(BOB, PromptBody(text=text))
    await eventually(lambda: len(room.agent.answers) == len(asks), timeout=5)
    for answer in room.agent.answers:
        assert not answer.approved and "room's own state" in answer.text
    cards = [e for e in room.document.transcript.to_py() if e["kind"] == "permission"]
    assert [c["state"] for c in cards] == ["rejected"] * len(asks), "recorded, never asked"
    room.prompt_commands.submit(BOB, PromptBody(text="write notes.md"))
    await eventually(lambda: len(room.document.approvals) == 1)
