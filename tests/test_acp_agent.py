"""Any ACP agent as the room's agent (issue 45), end to end: the pinned Copilot runtime serving
the Agent Client Protocol (`copilot --acp`) as `c.CopilotRoom.agents` names it, its model the
tests' scripted one. The room drives it exactly as it drives the SDK's agent: one queue, replies
streamed to everyone, its permission requests as the room's cards, answered by whom the room's
rules say, and abort as `session/cancel`."""

import sys
from pathlib import Path

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .harness import config
from .harness.helpers import entries, eventually, finished, ready


@pytest.fixture
def room_config(model, monkeypatch):
    """Copilot over ACP, the room's agent, and the tests' scripted ACP agent offered beside it."""
    monkeypatch.setenv(config.ACP_KEY_ENV, config.MODEL_KEY)
    offered = config.copilot_over_acp(model.base_url)
    scripted = Path(__file__).parent / "agents" / "scripted_acp_agent.py"
    offered["agents"]["scripted"] = {
        "acp": [sys.executable, str(scripted)],
        "title": "Scripted",
        "asks": "own",
    }
    return offered


def shell(command):
    """Each prompt runs `command` in the agent's shell, then says what it got."""

    def script(request):
        if request.tool_results:
            return Reply("The command said: " + request.tool_results[-1].strip()[:80])
        return Reply(
            "Running it.",
            tool_calls=(ToolCall("bash", {"command": command, "description": "the test's"}),),
        )

    return script


async def card(room):
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="a card")
    [(request_id, shown)] = room.document.approvals.to_py().items()
    return request_id, shown


async def test_a_prompt_is_answered_and_streamed_to_everyone(api, room, model, connect):
    model.script = lambda request: Reply(
        f"You said: {request.prompt}. " + "More words. " * 12, chunk_size=6, delay=0.02
    )
    await ready(api, room)
    described = (await api("alice", "GET", "room")).json["agent"]
    assert (described["name"], described["title"], described["state"]) == (
        "copilot-acp",
        "Copilot over ACP",
        "idle",
    )
    alice, bob = await connect("alice"), await connect("bob")
    asked = (await api("bob", "POST", "prompts", body={"text": "what is in here?"})).json
    seen = set()

    def streamed():
        replies = [e for e in alice.transcript.to_py() if e["kind"] == "assistant"]
        if replies and replies[0]["state"] == "streaming":
            seen.add(len(replies[0]["body"]))
        return asked["id"] in finished(room)

    await eventually(streamed, timeout=30, what="the turn to end")
    assert finished(room)[asked["id"]]["state"] == "completed"
    assert len(seen) >= 2, f"the reply should stream, saw lengths {seen}"
    [reply] = entries(room, "assistant")
    assert reply["body"].startswith("You said: [bob]: what is in here?")
    await eventually(lambda: alice.transcript.to_py() == bob.transcript.to_py())
    # The model read the room's rules once, at the session's first prompt, then bob's words.
    [request] = model.requests
    assert "several people in one Jupyter server steer you" in request.last_user
    assert request.prompt == "[bob]: what is in here?"
    # The turn's usage, as the agent reports it at its end, counts toward bob's budget.
    today = (await api("carol", "GET", "budgets")).json["people"]["bob"]
    assert today["turns"] == 1 and today["input_tokens"] > 0 and today["output_tokens"] > 0


async def test_a_shell_command_waits_on_its_author_and_the_hosts(api, room, model, jp_root_dir):
    model.script = shell("echo approved > approved.txt")
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "write the file"})).json
    request_id, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("shell", "echo approved > approved.txt")
    assert not (jp_root_dir / "approved.txt").exists(), "nothing ran before the answer"
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "pending"
    r = await api("alice", "POST", "admissions", "dave", body={"decision": "member"})
    assert r.code == 200, r
    for other in ("carol", "dave"):  # a viewer, and a member who did not write the prompt
        refused = await api(other, "POST", "approvals", request_id, body={"decision": "approve"})
        assert refused.code == 403, (other, refused)
    r = await api("bob", "POST", "approvals", request_id, body={"decision": "approve"})
    assert r.code == 200, r
    await eventually(lambda: asked["id"] in finished(room), timeout=30, what="the turn to end")
    assert (jp_root_dir / "approved.txt").read_text() == "approved\n"
    assert entries(room, "assistant")[-1]["body"].startswith("The command said:")
    [tool] = [e for e in entries(room, "tool")]
    assert (tool["summary"], tool["state"]) == ("echo approved > approved.txt", "success")


async def test_a_rejected_command_never_runs(api, room, model, jp_root_dir):
    model.script = shell("echo rejected > rejected.txt")
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "write it"})).json
    request_id, _ = await card(room)
    r = await api("alice", "POST", "approvals", request_id, body={"decision": "reject"})
    assert r.code == 200, r
    await eventually(lambda: asked["id"] in finished(room), timeout=30, what="the turn to end")
    assert not (jp_root_dir / "rejected.txt").exists()
    [request] = [e for e in entries(room, "permission")]
    assert request["state"] == "rejected"


async def test_a_command_that_only_reads_still_waits_on_a_card(api, room, model):
    """Copilot asks before every command, `ls` too (issue 51's table)."""
    model.script = shell("ls")
    await ready(api, room)
    asked = (await api("bob", "POST", "prompts", body={"text": "list"})).json
    request_id, shown = await card(room)
    assert (shown["kind"], shown["summary"]) == ("shell", "ls"), shown
    await api("bob", "POST", "approvals", request_id, body={"decision": "reject"})
    await eventually(lambda: asked["id"] in finished(room), timeout=30, what="the turn to end")


async def test_abort_with_two_cards_open_cancels_the_turn_and_the_next_prompt_runs(
    api, room, model, jp_root_dir
):
    def two_commands(request):
        commands = ("echo never > never.txt", "echo nor > nor.txt")
        calls = tuple(ToolCall("bash", {"command": c, "description": "t"}) for c in commands)
        return Reply("Running both.", tool_calls=calls)

    model.script = two_commands
    await ready(api, room)
    first = (await api("bob", "POST", "prompts", body={"text": "write them"})).json
    await eventually(lambda: len(room.document.approvals) == 2, timeout=30, what="two cards")
    assert (await api("alice", "POST", "abort")).code in (200, 202, 204)
    await eventually(lambda: first["id"] in finished(room), timeout=30, what="the abort")
    assert finished(room)[first["id"]]["state"] == "canceled"
    assert not room.document.approvals.to_py(), "both cards went with their turn"
    assert {e["state"] for e in entries(room, "permission")} == {"aborted"}
    assert not (jp_root_dir / "never.txt").exists() and not (jp_root_dir / "nor.txt").exists()

    model.script = lambda request: Reply("Still here.")
    second = (await api("bob", "POST", "prompts", body={"text": "are you there?"})).json
    await eventually(lambda: second["id"] in finished(room), timeout=30, what="the next turn")
    assert finished(room)[second["id"]]["state"] == "completed"
    assert entries(room, "assistant")[-1]["body"] == "Still here."


async def test_a_restarted_agent_loads_its_session_and_keeps_the_conversation(api, room, model):
    model.script = lambda request: Reply(f"Noted: {request.prompt}")
    await ready(api, room)
    first = (await api("bob", "POST", "prompts", body={"text": "remember 42"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30, what="the first turn")
    shown = len(room.document.transcript)

    await room.agent.restart()  # a new process: the session is loaded (`session/load`)
    await eventually(lambda: room.document.meta.get("state") == "idle", what="the agent back")
    assert "lost" not in (room.document.meta.get("agent") or "")
    assert len(room.document.transcript) == shown, "the load's replay is no new entry"
    second = (await api("alice", "POST", "prompts", body={"text": "what did bob say?"})).json
    await eventually(lambda: second["id"] in finished(room), timeout=30, what="the next turn")
    said = "\n".join(model.requests[-1].user_texts())
    assert "[bob]: remember 42" in said, "the model still has the earlier turn"


async def test_a_host_chooses_another_agent_and_the_room_keeps_its_transcript(api, room, model):
    model.script = lambda request: Reply("Copilot here.")
    await ready(api, room)
    first = (await api("bob", "POST", "prompts", body={"text": "who are you?"})).json
    await eventually(lambda: first["id"] in finished(room), timeout=30, what="the first turn")
    offered = (await api("alice", "GET", "room")).json["agent"]["agents"]
    assert offered == [  # the room's own agent (the harness's, in place of the SDK's) too
        {"name": "copilot", "title": "GitHub Copilot"},
        {"name": "copilot-acp", "title": "Copilot over ACP"},
        {"name": "scripted", "title": "Scripted (decides some commands itself)"},
    ]

    refused = await api("alice", "PATCH", "settings", body={"agent": "nobody"})
    assert (refused.code, refused.json["error"]) == (400, "unknown_agent")
    assert "'scripted' (Scripted (decides some commands itself))" in refused.json["message"]
    assert (await api("bob", "PATCH", "settings", body={"agent": "scripted"})).code == 403
    r = await api("alice", "PATCH", "settings", body={"agent": "scripted"})
    assert (r.code, r.json["agent"]) == (200, "scripted")
    await eventually(
        lambda: (
            room.document.meta.get("name") == "scripted"
            and room.document.meta.get("state") == "idle"
        ),
        timeout=30,
        what="the chosen agent",
    )
    described = (await api("carol", "GET", "room")).json["agent"]
    assert (described["name"], described["title"]) == ("scripted", "Scripted")
    said = [e["body"] for e in entries(room, "system")]
    assert "The agent is ready: Scripted (decides some commands itself)." in said, said
    changed = "changed the room settings: agent = Scripted (decides some commands itself)."
    assert any(line.endswith(changed) for line in said), said

    second = (await api("bob", "POST", "prompts", body={"text": "and now?"})).json
    await eventually(lambda: second["id"] in finished(room), timeout=30, what="its turn")
    assert [e["body"] for e in entries(room, "assistant")] == [
        "Copilot here.",
        "Echo: [bob]: and now?",
    ], "the transcript keeps the first agent's turn"


async def test_a_card_nobody_answers_in_time_is_rejected_and_the_command_never_runs(
    api, room, model, jp_root_dir
):
    model.script = shell("echo late > late.txt")
    await ready(api, room)
    r = await api("alice", "PATCH", "settings", body={"permission_timeout": 1})
    assert r.code == 200, r
    asked = (await api("bob", "POST", "prompts", body={"text": "write it"})).json
    await eventually(lambda: asked["id"] in finished(room), timeout=30, what="the deadline")
    [request] = entries(room, "permission")
    assert request["state"] == "timed_out"
    assert not (jp_root_dir / "late.txt").exists()
