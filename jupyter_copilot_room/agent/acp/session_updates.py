"""An ACP session's updates during a turn as the room's events: `agent_message_chunk` is the
reply and `agent_thought_chunk` its reasoning, each streamed as deltas and recorded whole when
the next thing begins; `tool_call` and `tool_call_update` are the turn's tool rows; `plan` is
the turn's plan, one entry showing the latest (each update holds the whole plan). What an
agent says between turns (its command list, its title) and what a `session/load` replays is no
turn's, so it is not read."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from acp import schema

from ...events import (
    AgentEvent,
    AssistantMessage,
    MessageDelta,
    MessageKind,
    PlanStep,
    PlanUpdated,
    ToolCompleted,
    ToolStarted,
)
from ..notebook_mcp import room_tool_name, takes
from ..tool_rows import summarize_arguments, trim_arguments

#: A tool call's statuses that end it.
ENDED = {"completed": True, "failed": False}


@dataclass
class Streaming:
    """The message being streamed: its entry and what came of it so far."""

    kind: MessageKind
    entry_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    text: str = ""


@dataclass(frozen=True)
class RoomCall:
    """A call of the room's notebook tool `tool` the agent announced, named `title`."""

    tool: str
    title: str
    arguments: dict


class SessionUpdates:
    """One turn's updates, read in order; `finished` says what was still streaming. `server`:
    the session's name for the room's notebook tools' server."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.room_calls: dict[str, RoomCall] = {}  # by call id
        self.streaming: Streaming | None = None
        self.open_calls: dict[str, str] = {}  # each running call's output as last said
        self.replies: list[str] = []  # the turn's finished replies (not its reasoning)
        self.plan_entry = uuid.uuid4().hex  # the turn's plan, one entry however often it changes

    def read(self, update: object) -> list[AgentEvent]:
        match update:
            case schema.AgentMessageChunk(content=schema.TextContentBlock(text=text)):
                return self._chunk("assistant", text)
            case schema.AgentThoughtChunk(content=schema.TextContentBlock(text=text)):
                return self._chunk("reasoning", text)
            case schema.ToolCallStart():
                return self._tool_started(update)
            case schema.ToolCallProgress(status=status) if status in ENDED:
                return self._tool_ended(update, ENDED[status])
            case schema.ToolCallProgress(tool_call_id=call_id) if call_id in self.open_calls:
                self.open_calls[call_id] = text_of(update.content) or self.open_calls[call_id]
            case schema.AgentPlanUpdate(entries=entries):
                steps = [PlanStep(content=e.content, status=e.status) for e in entries]
                return [*self._flush(False), PlanUpdated(entry_id=self.plan_entry, steps=steps)]
        return []

    def asked(self, call: schema.ToolCallUpdate) -> list[AgentEvent]:
        """A permission request for a call the agent did not announce (Gemini CLI announces
        none it asks for): its row starts with the request."""
        if call.tool_call_id in self.open_calls:
            return []
        return self._tool_started(call, announced=False)

    def finished(self, partial: bool) -> list[AgentEvent]:
        """The turn ended: the message still streaming, whole (`partial` when the turn failed or
        was cancelled), and every tool still running, ended without a result."""
        events = self._flush(partial)
        events += [
            ToolCompleted(call_id=c, success=False, result=out)
            for c, out in sorted(self.open_calls.items())
        ]
        self.open_calls.clear()
        return events

    def _chunk(self, kind: MessageKind, text: str) -> list[AgentEvent]:
        events = [] if self.streaming and self.streaming.kind == kind else self._flush(False)
        if self.streaming is None:
            self.streaming = Streaming(kind)
        self.streaming.text += text
        return [*events, MessageDelta(entry_id=self.streaming.entry_id, text=text, kind=kind)]

    def _flush(self, partial: bool) -> list[AgentEvent]:
        message, self.streaming = self.streaming, None
        if message is None or not message.text:
            return []
        if message.kind == "assistant":
            self.replies.append(message.text)
        return [
            AssistantMessage(
                entry_id=message.entry_id, text=message.text, kind=message.kind, partial=partial
            )
        ]

    def _tool_started(
        self, call: schema.ToolCallStart | schema.ToolCallUpdate, announced: bool = True
    ) -> list[AgentEvent]:
        """A call's row; `announced`: the agent's `tool_call` (only such a call can be the
        room's notebook tool's, `permission_asks.room_tool`)."""
        if call.tool_call_id in self.open_calls:
            return []
        self.open_calls[call.tool_call_id] = ""
        arguments = call.raw_input if isinstance(call.raw_input, dict) else {}
        if not arguments:  # an agent that names its command or path only in the title
            arguments = said_in_title(call)
        # ACP's `other` says nothing: the call's title names the tool (the room's by its name).
        tool = call.kind if call.kind not in (None, "other") else call.title or "tool"
        room = room_tool_name(tool, self.server) if announced else None
        if room is not None and takes(room, arguments):
            self.room_calls[call.tool_call_id] = RoomCall(room, tool, arguments)
        tool = room_tool_name(tool, self.server, bare=True) or tool
        summary = summarize_arguments(tool, arguments) or call.title or tool
        started = ToolStarted(
            call_id=call.tool_call_id,
            tool=tool,
            summary=summary,
            arguments=trim_arguments(arguments),
        )
        return [*self._flush(False), started]

    def _tool_ended(self, call: schema.ToolCallProgress, success: bool) -> list[AgentEvent]:
        if call.tool_call_id not in self.open_calls:
            return []
        said_before = self.open_calls.pop(call.tool_call_id)
        result = text_of(call.content) or said_before
        if not result and call.raw_output is not None:
            result = str(call.raw_output)
        return [ToolCompleted(call_id=call.tool_call_id, success=success, result=result)]


def said_in_title(call: schema.ToolCallStart | schema.ToolCallUpdate) -> dict[str, str]:
    """A call's arguments as its title and locations say them, for an agent that sends no raw
    input (Gemini CLI titles a command with the command itself)."""
    if call.kind == "execute" and call.title:
        return {"command": call.title}
    if call.locations:
        return {"path": ", ".join(location.path for location in call.locations)}
    return {}


def text_of(content: list[Any] | None) -> str:
    """A tool call's content as text: its text blocks, its diffs' paths."""
    parts = []
    for item in content or ():
        if isinstance(item, schema.ContentToolCallContent) and isinstance(
            item.content, schema.TextContentBlock
        ):
            parts.append(item.content.text)
        elif isinstance(item, schema.FileEditToolCallContent):
            parts.append(f"edited {item.path}")
    return "\n".join(parts)
