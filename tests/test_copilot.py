"""The room driving the REAL Copilot runtime through the REAL SDK, against a scripted model.

The model is the tests' own OpenAI-compatible server on 127.0.0.1 (`ScriptedModelServer`); each
test chooses what it answers. Nothing of the SDK or the runtime is mocked.
"""

import json
import os
import signal

import pytest

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness.config import copilot_agent
from .harness.helpers import READY, entries, eventually, finished, ready, slow_turn_in_flight


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


def echo(request):
    """Answer each prompt by quoting it, streamed in small slow chunks."""
    return Reply(
        f"You said: {request.prompt}. " + "More words follow here. " * 6, chunk_size=5, delay=0.03
    )


def run_then_report(command):
    def script(request):
        if request.tool_results:
            return Reply("Tool said: " + " | ".join(request.tool_results))
        return Reply(
            "Running it.",
            tool_calls=(
                ToolCall("bash", {"command": command, "description": "the test's command"}),
            ),
        )

    return script


async def test_two_people_take_turns_and_see_the_same_stream(api, room, model, connect):
    model.script = echo
    await ready(api, room)
    alice, bob = await connect("alice"), await connect("bob")
    first = (await api("alice", "POST", "prompts", body={"text": "first question"})).json
    second = (await api("bob", "POST", "prompts", body={"text": "second question"})).json
    assert (first["position"], second["position"]) == (0, 1)

    await eventually(
        lambda: [i["state"] for i in room.document.queue.to_py()] == ["working", "submitted"],
        what="the first turn to run",
    )
    seen = set()

    def streaming_lengths():
        replies = [e for e in bob.transcript.to_py() if e["kind"] == "assistant"]
        if replies and replies[0]["state"] == "streaming":
            seen.add(len(replies[0]["body"]))
        return room.document.queue.to_py()[0]["id"] == second["id"]

    await eventually(streaming_lengths, timeout=30, what="the second turn to start")
    assert len(seen) >= 3, f"deltas should arrive while the reply streams, saw {seen}"
    await eventually(
        lambda: room.document.meta.get("state") == "idle" and len(entries(room, "assistant")) == 2,
        timeout=30,
    )
    await eventually(
        lambda: (
            alice.transcript.to_py() == bob.transcript.to_py() == room.document.transcript.to_py()
        )
    )
    assert finished(room)[first["id"]]["state"] == "completed"
    prompts = [r.prompt for r in model.requests]
    assert prompts.index("[alice]: first question") < prompts.index("[bob]: second question")
    assert entries(room, "assistant")[0]["body"].startswith("You said: [alice]: first question")
    usage = entries(room, "prompt")[0]["usage"]
    assert usage["model"] == "scripted-model" and usage["output_tokens"] > 0


async def test_shell_command_runs_only_after_the_author_approves(api, room, model, jp_root_dir):
    model.script = run_then_report("echo made > made.txt")
    await ready(api, room)
    await api("alice", "POST", "prompts", body={"text": "make a file"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [(request_id, card)] = room.document.approvals.to_py().items()
    assert (card["kind"], card["summary"], card["author"]) == (
        "shell",
        "echo made > made.txt",
        "alice",
    )
    assert not (jp_root_dir / "made.txt").exists()

    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 403
    r = await api("alice", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=30)
    assert (jp_root_dir / "made.txt").read_text() == "made\n"
    [tool] = entries(room, "tool")
    assert (tool["tool"], tool["summary"], tool["state"]) == (
        "bash",
        "echo made > made.txt",
        "success",
    )


async def test_rejection_feedback_reaches_the_model(api, room, model, jp_root_dir):
    model.script = run_then_report("echo no > rejected.txt")
    await ready(api, room)
    await api("bob", "POST", "prompts", body={"text": "make a file"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [request_id] = room.document.approvals.to_py()
    r = await api(
        "alice",
        "POST",
        "approvals",
        request_id,
        body={"decision": "reject", "feedback": "not on Fridays"},
    )
    assert r.code == 200
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=30)
    results = " ".join(" ".join(r.tool_results) for r in model.requests)
    assert "Rejected by alice: not on Fridays" in results
    assert not (jp_root_dir / "rejected.txt").exists()
    [tool] = entries(room, "tool")
    assert tool["state"] == "declined", "a command nobody let run did not fail: it never ran"


async def test_unanswered_command_is_rejected_when_time_runs_out(api, room, model, jp_root_dir):
    model.script = run_then_report("echo late > late.txt")
    await ready(api, room)
    await api("alice", "PATCH", "settings", body={"permission_timeout": 1})
    await api("bob", "POST", "prompts", body={"text": "make a file"})
    await eventually(
        lambda: room.document.meta.get("state") == "idle" and entries(room, "assistant"), timeout=30
    )
    [card] = entries(room, "permission")
    assert card["state"] == "timed_out"
    results = " ".join(" ".join(r.tool_results) for r in model.requests)
    assert "Nobody answered within 1 s" in results
    assert not (jp_root_dir / "late.txt").exists()
    assert [tool["state"] for tool in entries(room, "tool")] == ["declined"]


def asks(question, choices):
    def script(request):
        if request.tool_results:
            return Reply("Answer was: " + request.tool_results[-1])
        return Reply(tool_calls=(ToolCall("ask_user", {"question": question, "choices": choices}),))

    return script


async def test_agent_question_goes_to_the_author_and_the_answer_back(api, room, model):
    model.script = asks("Which colour?", ["blue", "green"])
    await ready(api, room)
    await api("bob", "POST", "prompts", body={"text": "pick a colour with me"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [(question_id, card)] = room.document.approvals.to_py().items()
    assert (card["kind"], card["summary"], card["choices"]) == (
        "question",
        "Which colour?",
        ["blue", "green"],
    )
    assert (
        await api("carol", "POST", "questions", question_id, body={"answer": "blue"})
    ).code == 403
    r = await api("bob", "POST", "questions", question_id, body={"answer": "green"})
    assert r.code == 200
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=30)
    assert "green" in model.requests[-1].tool_results[-1]


async def test_unanswered_question_times_out(api, room, model):
    model.script = asks("Proceed?", ["yes", "no"])
    await ready(api, room)
    await api("alice", "PATCH", "settings", body={"question_timeout": 1})
    await api("bob", "POST", "prompts", body={"text": "ask me"})
    await eventually(
        lambda: room.document.meta.get("state") == "idle" and entries(room, "assistant"), timeout=30
    )
    assert entries(room, "question")[0]["state"] == "timed_out"
    assert "Nobody answered" in model.requests[-1].tool_results[-1]


async def test_abort_mid_stream_cancels_and_the_next_prompt_runs(api, room, model):
    def script(request):
        if "slow" in request.prompt:
            return Reply("Slowly " * 200, chunk_size=4, delay=0.05)
        return Reply("Quick answer.")

    model.script = script
    await ready(api, room)
    slow = (await api("alice", "POST", "prompts", body={"text": "slow please"})).json
    quick = (await api("bob", "POST", "prompts", body={"text": "quick please"})).json
    await eventually(
        lambda: any(
            e["kind"] == "assistant" and len(e["body"]) > 20
            for e in room.document.transcript.to_py()
        ),
        timeout=30,
    )
    assert (await api("alice", "POST", "abort")).code == 200
    await eventually(lambda: quick["id"] in finished(room), timeout=30)
    assert finished(room)[slow["id"]]["state"] == "canceled"
    assert finished(room)[quick["id"]]["state"] == "completed"
    partial, done = entries(room, "assistant")
    assert partial["state"] == "partial" and partial["body"].startswith("Slowly")
    assert done["body"] == "Quick answer."


async def test_abort_rejects_the_outstanding_approval(api, room, model, jp_root_dir):
    model.script = run_then_report("echo never > never.txt")
    await ready(api, room)
    await api("bob", "POST", "prompts", body={"text": "make a file"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    assert (await api("alice", "POST", "abort")).code == 200
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=10)
    assert room.document.approvals.to_py() == {}
    assert entries(room, "permission")[0]["state"] == "aborted"
    assert not (jp_root_dir / "never.txt").exists()
    model.script = echo
    r = await api("bob", "POST", "prompts", body={"text": "after the abort"})
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    assert finished(room)[r.json["id"]]["state"] == "completed"


async def test_killed_runtime_fails_the_turn_and_the_room_goes_on(api, room, model, agent):
    slow, after = await slow_turn_in_flight(api, room, model)
    os.kill(agent.connection.client._cli_process.pid, signal.SIGKILL)

    await eventually(
        lambda: after["id"] in finished(room),
        timeout=45,
        what="the runtime to be restarted and the next prompt to run",
    )
    assert finished(room)[slow["id"]]["state"] == "failed"
    assert "runtime stopped" in finished(room)[slow["id"]]["reason"]
    assert finished(room)[after["id"]]["state"] == "completed"
    resumed = model.requests[-1]  # the session came back with its history
    assert any("remember the word kiwi" in str(m.get("content")) for m in resumed.messages)
    assert sum(r.prompt == "[alice]: slow please" for r in model.requests) == 1, (
        "the interrupted prompt is never re-run"
    )


@pytest.mark.parametrize("room_config", [{"agent_class": CopilotAgent}])
async def test_demo_mode_works_without_any_login(api, room, monkeypatch):
    for variable in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(variable, raising=False)
    await ready(api, room)
    assert room.document.meta.get("agent") == "demo model"
    [ready_line] = [e["body"] for e in entries(room, "system") if "ready" in e["body"]]
    assert ready_line.startswith("The agent is ready: demo model. Demo mode:")
    await api("alice", "POST", "prompts", body={"text": "hello"})
    await eventually(lambda: entries(room, "assistant"), timeout=30)
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=30)
    assert "Demo mode" in entries(room, "assistant")[0]["body"]
    await api("alice", "POST", "prompts", body={"text": "run a command"})
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30)
    [card] = room.document.approvals.to_py().values()
    assert (card["kind"], card["summary"]) == ("shell", "ls -la")


@pytest.mark.parametrize(
    "room_config", [{"agent_class": CopilotAgent, "cli_path": "/nowhere/copilot"}]
)
async def test_missing_runtime_is_a_clear_status_not_a_traceback(api, room):
    await api("alice", "GET", "room")
    await eventually(lambda: room.document.meta.get("state") == "unavailable", timeout=10)
    assert "c.CopilotRoom.cli_path" in room.document.meta.get("agent_detail")
    assert "/nowhere/copilot" in room.document.meta.get("agent_error")
    r = await api("bob", "POST", "prompts", body={"text": "still queued"})
    assert r.code == 202
    assert room.document.queue.to_py()[0]["state"] == "submitted"


async def test_server_restart_resumes_the_session_with_the_queue_intact(servers, model):
    def script(request):
        if "slow" in request.prompt:
            return Reply("Slowly " * 400, chunk_size=4, delay=0.05)
        return Reply(f"Noted: {request.prompt}")

    model.script = script
    server = servers(
        room=copilot_agent(model.base_url),
        env={"SCRIPTED_MODEL_KEY": "test-key"},
    )

    async def idle(queue_empty=False):
        room = await server.room()
        return room["agent"].get("state") == "idle" and not (queue_empty and room["queue"])

    await server.start_async()
    await eventually(idle, timeout=READY, what="the agent to start")
    first = json.loads(
        (await server.call("alice", "POST", "prompts", {"text": "remember the word kiwi"})).body
    )
    await eventually(lambda: idle(queue_empty=True), timeout=30)
    await server.call("alice", "POST", "prompts", {"text": "slow please"})
    queued = json.loads((await server.call("bob", "POST", "prompts", {"text": "which word?"})).body)
    await eventually(
        lambda: any(r.prompt == "[alice]: slow please" for r in model.requests), timeout=30
    )
    before = (server.state_dir / "transcript.jsonl").read_bytes()
    server.stop()

    await server.start_async()
    await eventually(
        lambda: idle(queue_empty=True),
        timeout=READY,
        what="the queued prompt to run after the restart",
    )
    after = (server.state_dir / "transcript.jsonl").read_bytes()
    assert after.startswith(before), "the transcript is only ever appended to"
    records = [json.loads(line) for line in after.splitlines()]
    outcomes = {
        r["payload"]["id"]: r["payload"]["state"] for r in records if r["kind"] == "prompt.finished"
    }
    assert outcomes[first["id"]] == "completed"
    assert outcomes[queued["id"]] == "completed", "the queued prompt ran after the restart"
    [resumed] = [r for r in model.requests if r.prompt == "[bob]: which word?"]
    history = [str(m.get("content")) for m in resumed.messages]
    assert any("remember the word kiwi" in text for text in history), (
        "the resumed session carries the earlier conversation"
    )
    server.stop()


async def test_a_session_the_runtime_lost_is_said_in_words_not_tracebacks(servers, model):
    """The saved session id names a session the runtime no longer has (its state was wiped): the
    agent starts a new one, the room says its earlier context is gone, and the server's log has
    one line for it, not the SDK's tracebacks."""
    model.script = lambda request: Reply(f"Noted: {request.prompt}")
    server = servers(room=copilot_agent(model.base_url), env={"SCRIPTED_MODEL_KEY": "test-key"})
    server.state_dir.mkdir(parents=True)
    lost = "0d1c5b6e-0000-4000-8000-000000000000"
    (server.state_dir / "copilot-session.json").write_text(json.dumps({"session_id": lost}))
    await server.start_async()
    await server.call("alice", "POST", "prompts", {"text": "hello again"})
    await eventually(
        lambda: any(r.prompt == "[alice]: hello again" for r in model.requests), timeout=READY
    )
    server.stop()
    transcript = (server.state_dir / "transcript.jsonl").read_text()
    assert "could not be resumed" in transcript
    log = server.log.read_text()
    assert log.count(f"Could not resume Copilot session {lost}") == 1
    assert "copilot._jsonrpc.JsonRpcError" not in log and "resume_session failed" not in log


async def test_restarts_add_no_ready_lines_when_nothing_changed(servers, model):
    """A server started three times, the room prompted only before the last: the agent's ready
    line is said once. The runtime saves no session nobody prompted, and not resuming it loses
    nothing, so no start says the earlier context was lost."""
    model.script = lambda request: Reply(f"Noted: {request.prompt}")
    server = servers(room=copilot_agent(model.base_url), env={"SCRIPTED_MODEL_KEY": "test-key"})

    async def idle():
        return (await server.room())["agent"].get("state") == "idle"

    for start in range(3):
        await server.start_async()
        await eventually(idle, timeout=READY, what="the agent to start")
        if start == 1:
            await server.call("alice", "POST", "prompts", {"text": "remember kiwi"})
            await eventually(lambda: len(model.requests) == 1, timeout=30)
            await eventually(idle, timeout=30)
        server.stop()
    records = [json.loads(line) for line in (server.state_dir / "transcript.jsonl").open()]
    [ready] = [r["payload"] for r in records if r["kind"] == "agent.ready"]
    assert ready["detail"] == "", ready
