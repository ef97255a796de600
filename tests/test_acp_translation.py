"""An ACP agent's configuration, updates and permission requests as the room reads them (issue
45): pure translations, no agent process (tests/test_acp_agent.py runs one)."""

from pathlib import Path

import acp
import pytest
from acp import schema

from jupyter_copilot_room.agent.acp.agent_spec import AcpAgentSpec, parse_agents
from jupyter_copilot_room.agent.acp.client_gate import said_by
from jupyter_copilot_room.agent.acp.permission_asks import (
    chosen_option,
    permission_ask,
    room_tool,
)
from jupyter_copilot_room.agent.acp.session_updates import SessionUpdates
from jupyter_copilot_room.agent.acp.turn_usage import UsageReadings
from jupyter_copilot_room.agent.seam import Answer
from jupyter_copilot_room.events import AssistantMessage, MessageDelta, ToolCompleted, ToolStarted

CLAUDE = {
    "acp": ["claude-agent-acp"],
    "title": "Claude Code",
    "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
    "env_from": ["ANTHROPIC_API_KEY"],
}


def test_an_agent_entry_is_read_and_its_environment_is_the_allow_list_and_what_it_names(tmp_path):
    spec = parse_agents({"claude": CLAUDE})["claude"]
    assert (spec.command, spec.title) == (("claude-agent-acp",), "Claude Code")
    server = {
        "PATH": "/usr/bin",
        "ANTHROPIC_API_KEY": "secret-key",
        "GITHUB_TOKEN": "not-for-it",
        "IS_SANDBOX": "1",
        "HOME": "/root",
    }
    env = spec.environment(server, tmp_path / "home")
    assert env == {
        "PATH": "/usr/bin",
        "ANTHROPIC_API_KEY": "secret-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "HOME": str(tmp_path / "home"),
    }


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"title": "x"}, "must be [command, *args]"),
        ({"acp": []}, "must be [command, *args]"),
        ({"acp": ["x"], "env": {"A": 1}}, "['env'] must map names to string values"),
        ({"acp": ["x"], "env_from": "A"}, "['env_from'] must list variable names"),
        ({"acp": ["x"], "model": "m"}, "unknown keys ['model']"),
        ({"acp": ["copilot", "--acp"], "mode": "autopilot"}, "runs tools without asking"),
        ({"acp": ["claude-agent-acp"], "mode": "bypassPermissions"}, "runs tools without asking"),
        ({"acp": ["claude-agent-acp"], "mode": "dontAsk"}, "runs tools without asking"),
        ({"acp": ["claude-agent-acp"], "mode": "acceptEdits"}, "runs tools without asking"),
        ({"acp": ["codex-acp"], "mode": "auto"}, "runs tools without asking"),
        ({"acp": ["codex-acp"], "mode": "full-access"}, "runs tools without asking"),
    ],
)
def test_a_wrong_entry_says_what_is_wrong(entry, says):
    with pytest.raises(ValueError, match=r"c\.CopilotRoom\.agents\['a'\]") as err:
        AcpAgentSpec.parse("a", entry)
    assert says in str(err.value)


def test_the_rooms_own_agent_keeps_its_name():
    with pytest.raises(ValueError, match="the room's own agent"):
        AcpAgentSpec.parse("copilot", {"acp": ["copilot", "--acp"]})


def chunk(text, kind=schema.AgentMessageChunk, update="agent_message_chunk"):
    return kind(session_update=update, content=schema.TextContentBlock(type="text", text=text))


def test_a_turns_updates_are_its_streamed_messages_and_tool_rows():
    updates = SessionUpdates("jupyter-0a1b2c")
    events = [
        *updates.read(chunk("Let me ", schema.AgentThoughtChunk, "agent_thought_chunk")),
        *updates.read(chunk("think.", schema.AgentThoughtChunk, "agent_thought_chunk")),
        *updates.read(chunk("Running ")),
        *updates.read(chunk("it.")),
        *updates.read(
            schema.ToolCallStart(
                session_update="tool_call",
                tool_call_id="c1",
                title="the test's",
                kind="execute",
                status="pending",
                raw_input={"command": "ls -la"},
            )
        ),
        *updates.read(
            schema.ToolCallProgress(session_update="tool_call_update", tool_call_id="c1")
        ),  # no end yet
        *updates.read(
            schema.ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id="c1",
                status="completed",
                content=[
                    schema.ContentToolCallContent(
                        type="content", content=schema.TextContentBlock(type="text", text="a b")
                    )
                ],
            )
        ),
        *updates.read(chunk("Done")),
        *updates.finished(partial=False),
    ]
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "MessageDelta",
        "MessageDelta",
        "AssistantMessage",  # the reasoning, whole, once the reply begins
        "MessageDelta",
        "MessageDelta",
        "AssistantMessage",  # the reply, whole, before its tool
        "ToolStarted",
        "ToolCompleted",
        "MessageDelta",
        "AssistantMessage",
    ]
    reasoning, reply, last = [e for e in events if isinstance(e, AssistantMessage)]
    assert (reasoning.kind, reasoning.text) == ("reasoning", "Let me think.")
    assert (reply.kind, reply.text) == ("assistant", "Running it.")
    deltas = [e for e in events if isinstance(e, MessageDelta)]
    assert {d.entry_id for d in deltas[2:4]} == {reply.entry_id}
    [started] = [e for e in events if isinstance(e, ToolStarted)]
    assert (started.call_id, started.tool, started.summary) == ("c1", "execute", "ls -la")
    [ended] = [e for e in events if isinstance(e, ToolCompleted)]
    assert (ended.success, ended.result) == (True, "a b")
    assert last.text == "Done" and not last.partial


def test_a_cancelled_turn_ends_its_message_partial_and_its_running_tools():
    updates = SessionUpdates("jupyter-0a1b2c")
    updates.read(
        schema.ToolCallStart(session_update="tool_call", tool_call_id="c9", title="t", kind="read")
    )
    updates.read(chunk("Half a"))
    message, tool = updates.finished(partial=True)
    assert isinstance(message, AssistantMessage) and (message.text, message.partial) == (
        "Half a",
        True,
    )
    assert tool == ToolCompleted(call_id="c9", success=False)
    assert updates.finished(partial=True) == []


def call(kind, **fields):
    return schema.ToolCallUpdate(tool_call_id="c1", kind=kind, status="pending", **fields)


def test_permission_requests_are_cards_of_the_rooms_kinds(tmp_path):
    repo = tmp_path
    shell = permission_ask(call("execute", title="List", raw_input={"command": "ls"}), repo)
    assert (shell.kind, shell.summary, shell.call_id) == ("shell", "ls", "c1")
    edit = permission_ask(
        call(
            "edit",
            title="Edit notes",
            content=[
                schema.FileEditToolCallContent(
                    type="diff", path=str(repo / "notes.md"), old_text="a\n", new_text="b\n"
                )
            ],
        ),
        repo,
    )
    assert (edit.kind, edit.summary) == ("write", "notes.md")
    assert edit.changes[0].path == "notes.md"
    assert "-a\n+b\n" in edit.details["diff"]
    fetch = permission_ask(call("fetch", title="Get", raw_input={"url": "https://x.org"}), repo)
    assert (fetch.kind, fetch.summary) == ("url", "https://x.org")
    outside = permission_ask(
        call("read", locations=[schema.ToolCallLocation(path="/etc/passwd")]), repo
    )
    assert (outside.kind, outside.summary) == ("read", "/etc/passwd")
    other = permission_ask(call("think", title="Ponder", raw_input={"a": 1}), repo)
    assert (other.kind, other.summary) == ("custom-tool", "Ponder")
    assert Path(repo).exists()


OPTIONS = [
    schema.PermissionOption(option_id="yes", name="Allow once", kind="allow_once"),
    schema.PermissionOption(option_id="always", name="Always", kind="allow_always"),
    schema.PermissionOption(option_id="no", name="Deny", kind="reject_once"),
]


def test_an_answer_picks_the_option_by_its_kind_and_never_allow_always():
    def picked(answer, options=OPTIONS):
        outcome = chosen_option(answer, options).outcome
        return getattr(outcome, "option_id", outcome.outcome)

    assert picked(Answer(True)) == "yes"
    assert picked(Answer(False, "bob rejected it")) == "no"
    assert picked(Answer(True), OPTIONS[1:]) == "cancelled"  # only "always": nothing runs
    assert picked(Answer(False), OPTIONS[:2]) == "cancelled"  # no reject option: cancelled


def test_a_tool_of_kind_other_is_named_by_its_title():
    """ACP's `other` names no tool: the row shows the call's title, a room tool by its name."""
    [started] = SessionUpdates("jupyter-0a1b2c").read(
        schema.ToolCallStart(
            session_update="tool_call",
            tool_call_id="c2",
            title="jupyter-0a1b2c-notebook_read",
            kind="other",
            raw_input={"path": "plan.ipynb"},
        )
    )
    assert (started.tool, started.summary) == ("notebook_read", "plan.ipynb")


def announced(title, kind="other", arguments=None):
    """A turn's updates after the agent announced one tool call `c1`, and that call."""
    updates = SessionUpdates("jupyter-0a1b2c")
    arguments = {"path": "a.ipynb"} if arguments is None else arguments
    start = schema.ToolCallStart(
        session_update="tool_call", tool_call_id="c1", title=title, kind=kind, raw_input=arguments
    )
    updates.read(start)
    return updates, updates.room_calls.get("c1")


def asking(title="notebook_read", kind="other", arguments=None, call_id="c1"):
    arguments = {"path": "a.ipynb"} if arguments is None else arguments
    return schema.ToolCallUpdate(tool_call_id=call_id, title=title, kind=kind, raw_input=arguments)


def test_a_permission_request_passes_as_a_room_tool_only_when_it_is_the_announced_call():
    """The room lets an agent's ask through without a card only for the call of its own
    notebook tool the agent announced under the session's server name: same id, no kind that
    acts, the same arguments; a title alone proves nothing."""
    _, call = announced("jupyter-0a1b2c-notebook_read")
    assert room_tool(asking(), call)
    assert room_tool(asking(title="jupyter-0a1b2c-notebook_read"), call)
    assert not room_tool(asking(kind="execute"), call)
    assert not room_tool(asking(arguments={"path": "b.ipynb"}), call)
    assert not room_tool(asking(title="Bash"), call)
    assert not room_tool(asking(), None), "never announced"
    # Announced under another server's name, bare, of a kind that acts, or with arguments no
    # room tool takes: not the room's call at all.
    for title, kind, arguments in (
        ("jupyter-notebook_read", "other", None),
        ("mcp__jupyter__notebook_read", "other", None),
        ("notebook_read", "other", None),
        ("jupyter-0a1b2c-notebook_read", "execute", None),
        ("jupyter-0a1b2c-notebook_read", "other", {"path": "a.ipynb", "command": "rm -rf ~"}),
        ("jupyter-0a1b2c-notebook_read", "other", {"path": 3}),
    ):
        assert announced(title, kind, arguments)[1] is None, (title, kind, arguments)
    assert announced("mcp__jupyter-0a1b2c__notebook_read")[1] is not None


def test_a_terminal_runs_an_approved_line_only_as_it_was_approved():
    """A card approved `python` lets `python` run, never `python -c <anything>`."""
    assert said_by("python", []) == {"python"}
    assert said_by("python", ["-c", "import os"]) == {"python -c 'import os'"}
    assert said_by("/bin/bash", ["-lc", "ls -la"]) == {"/bin/bash -lc 'ls -la'", "ls -la"}
    assert said_by("sh", ["-c"]) == {"sh -c"}


def test_a_command_named_only_in_its_title_is_the_rows_command_with_its_output():
    """Gemini CLI sends a command in the title, no raw input, and its output in an update
    before the one that ends the call: the row shows both."""
    updates = SessionUpdates("jupyter-0a1b2c")
    [started] = updates.read(
        schema.ToolCallStart(
            session_update="tool_call", tool_call_id="t1", title="ls -la", kind="execute"
        )
    )
    assert (started.summary, started.arguments) == ("ls -la", {"command": "ls -la"})
    output = schema.ContentToolCallContent(type="content", content=acp.text_block("a.txt"))
    assert not updates.read(
        schema.ToolCallProgress(
            session_update="tool_call_update", tool_call_id="t1", content=[output]
        )
    )
    [ended] = updates.read(
        schema.ToolCallProgress(
            session_update="tool_call_update", tool_call_id="t1", status="completed"
        )
    )
    assert (ended.success, ended.result) == (True, "a.txt")


def prompt_response(usage=None, meta=None):
    return schema.PromptResponse(stop_reason="end_turn", usage=usage, field_meta=meta)


def test_usage_is_booked_from_wherever_the_agent_says_it():
    """ACP's `usage` (Claude Code), Gemini CLI's `_meta.quota`, or else the context's growth
    over the turn by `usage_update` (Codex); nothing said, nothing booked."""
    readings = UsageReadings()
    said = schema.Usage(input_tokens=120, output_tokens=30, total_tokens=150)
    booked = readings.booked(prompt_response(usage=said), "m")
    assert (booked.input_tokens, booked.output_tokens, booked.model_calls) == (120, 30, 1)

    quota = {"quota": {"token_count": {"input_tokens": 900, "output_tokens": 40}}}
    booked = readings.booked(prompt_response(meta=quota), "gemini-2.5-pro")
    assert (booked.model, booked.input_tokens, booked.output_tokens) == ("gemini-2.5-pro", 900, 40)
    assert readings.booked(prompt_response(meta={"quota": {"token_count": {}}}), "m") is None

    def used(n):
        return schema.UsageUpdate(session_update="usage_update", used=n, size=128_000)

    readings.heard(used(5_000))  # a turn before, or the loaded session's
    readings.begin_turn()
    readings.heard(used(5_400))
    readings.heard(used(5_750))
    assert readings.booked(prompt_response(), "m").input_tokens == 750
    readings.begin_turn()
    assert readings.booked(prompt_response(), "m") is None, "the context did not grow"
