"""The transcript reads like a conversation: the runtime's own bookkeeping is not shown to
people, and a stopped turn closes every row it left open, with one line saying who stopped it.

The REAL Copilot runtime through the REAL SDK, against the tests' scripted model.
"""

import pytest

from jupyter_copilot_room.agent.copilot.translate import without_shell_marker
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness.helpers import entries, eventually, ready, transcript_copy


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


def run(command):
    """Run `command` in the shell, then quote what the tool returned."""

    def script(request):
        if request.tool_results:
            return Reply("It printed: " + request.tool_results[-1])
        return Reply(
            "Running it.",
            tool_calls=(ToolCall("bash", {"command": command, "description": "a command"}),),
        )

    return script


async def approve_the_card(api, room, user="alice"):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [request_id] = room.document.approvals.to_py()
    assert (await api(user, "POST", "approvals", request_id, body={"decision": "approve"})).code
    return request_id


def idle(room):
    return room.document.meta.get("state") == "idle"


async def test_a_command_row_shows_its_output_without_the_runtimes_shell_marker(api, room, model):
    model.script = run("echo hello; echo world")
    await ready(api, room)
    await api("alice", "POST", "prompts", body={"text": "say hello"})
    await approve_the_card(api, room)
    await eventually(lambda: idle(room) and len(entries(room, "assistant")) == 2, timeout=30)
    [tool] = entries(room, "tool")
    assert tool["state"] == "success"
    assert tool["result"] == "hello\nworld\n", "the shell's own `<shellId: ...>` line is not output"

    model.script = run("echo oops; exit 3")
    await api("alice", "POST", "prompts", body={"text": "fail"})
    await approve_the_card(api, room)
    await eventually(lambda: idle(room) and len(entries(room, "tool")) == 2, timeout=30)
    failed = entries(room, "tool")[1]
    assert "<shellId" not in failed["result"]
    assert "oops" in failed["result"] and "exit code 3" in failed["result"]


async def test_a_question_is_one_question_entry_not_a_tool_row_too(api, room, model):
    def script(request):
        if request.tool_results:
            return Reply("Noted.")
        return Reply(
            tool_calls=(ToolCall("ask_user", {"question": "Which?", "choices": ["red", "blue"]}),)
        )

    model.script = script
    await ready(api, room)
    await api("bob", "POST", "prompts", body={"text": "ask me"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [question_id] = room.document.approvals.to_py()
    await api("bob", "POST", "questions", question_id, body={"answer": "red"})
    await eventually(lambda: idle(room) and entries(room, "assistant"), timeout=30)
    [question] = entries(room, "question")
    assert (question["body"], question["answer"], question["state"]) == (
        "Which?",
        "red",
        "answered",
    )
    assert entries(room, "tool") == [], "the runtime's ask_user call is the question, not a tool"


async def test_an_abort_closes_the_running_tool_and_says_so_once(
    api, room, model, make_room, tmp_path
):
    model.script = run("sleep 20; echo never")
    await ready(api, room)
    await api("bob", "POST", "prompts", body={"text": "take your time"})
    await approve_the_card(api, room)
    await eventually(lambda: entries(room, "tool"), timeout=30, what="the command to start")

    # A crash now, with the command running: the restarted room closes its row too.
    crashed = make_room(transcript_copy(room.transcript.path, tmp_path / "crashed"), agent=None)
    await crashed.ensure_started()
    [tool] = [e for e in crashed.document.transcript.to_py() if e["kind"] == "tool"]
    assert tool["state"] == "stopped"

    assert (await api("alice", "POST", "abort")).code == 200
    await eventually(lambda: idle(room), timeout=10)
    [tool] = entries(room, "tool")
    assert tool["state"] == "stopped", "a stopped turn leaves no row running"
    lines = [e["body"] for e in entries(room, "system") if "abort" in e["body"]]
    assert len(lines) == 1, f"one abort, one line: {lines}"

    # After a restart the room shows the same.
    before = room.document.snapshot("transcript")["transcript"]
    again = make_room(transcript_copy(room.transcript.path, tmp_path / "restarted"), agent=None)
    await again.ensure_started()
    assert again.document.snapshot("transcript")["transcript"] == before


def test_the_runtimes_shell_line_never_reaches_people_whatever_it_says():
    """Issue 42 saw `<shellId: 3 completed…>` in the panel: any such last line goes."""
    assert without_shell_marker("a\n<shellId: 0 completed with exit code 0>") == "a\n"
    assert (
        without_shell_marker("a\n<shellId: 2 completed with exit code 3>\n") == "a\n(exit code 3)"
    )
    assert without_shell_marker("a\n<shellId: 3 completed>") == "a\n"
    assert without_shell_marker("a\n<shellId: 4 is still running in the background>") == "a\n"
    assert without_shell_marker("x <shellId: 1> y") == "x <shellId: 1> y", "only a last line"
