"""The runtime hangs with its process alive (SIGSTOP): the adapter's ping (every 2 s, 3 s to
answer) notices within 10 s, the turn fails (never re-run), the stopped process is killed at once
(a polite stop waits 5 s for nothing) and the agent is back on the same session within 10 s of the
hang (the REAL runtime against the scripted model)."""

import os
import signal
import time
from pathlib import Path

import pytest

from .harness.helpers import eventually, finished, slow_turn_in_flight


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


def process_state(pid: int) -> str | None:
    """The process's state letter (`T` stopped, `Z` zombie), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


async def test_a_stopped_runtime_is_noticed_killed_and_the_session_resumed(api, room, model, agent):
    slow, after = await slow_turn_in_flight(api, room, model, length=400)
    pid = agent.connection.pid
    os.kill(pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    try:
        await eventually(lambda: slow["id"] in finished(room), timeout=15, what="the probe")
        noticed = time.monotonic() - stopped_at
        assert noticed < 10, f"the probe took {noticed:.1f} s"
        assert finished(room)[slow["id"]]["state"] == "failed"
        assert "was not re-run" in finished(room)[slow["id"]]["reason"]
        await eventually(
            lambda: room.turns.queue.in_flight and room.turns.queue.in_flight.id == after["id"],
            timeout=45,
            what="the restarted agent to take the next prompt",
        )
        back = time.monotonic() - stopped_at
        assert back < 10, f"the agent took {back:.1f} s to come back (killed, not asked to stop)"
        await eventually(lambda: after["id"] in finished(room), timeout=30)
    finally:
        if process_state(pid) == "T":
            os.kill(pid, signal.SIGKILL)
    assert process_state(pid) in (None, "Z"), "the stopped runtime is killed, not left behind"
    assert agent.connection.pid != pid
    assert finished(room)[after["id"]]["state"] == "completed"
    resumed = model.requests[-1]
    assert resumed.prompt == "[bob]: are you back?"
    assert any("remember the word kiwi" in str(m.get("content")) for m in resumed.messages), (
        "the restarted agent resumed the session with its history"
    )
    assert sum(r.prompt == "[alice]: slow please" for r in model.requests) == 1, (
        "the interrupted prompt is never re-run"
    )
