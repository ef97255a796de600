"""Runtime events into the room's events: an explicit allow-list, the rest counted and ignored.

A sub-agent's own messages and tools are its work, never the room agent's reply, so only its
start and end pass. Usage arrives per model call (sub-agents' calls too) and is summed into one
`TurnUsage` for the turn, reported just before the turn ends.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

from ...events import (
    AgentError,
    AgentEvent,
    AssistantMessage,
    MessageDelta,
    ReplyRetried,
    SubagentEnded,
    SubagentStarted,
    ToolCompleted,
    ToolStarted,
    TurnEnded,
    TurnUsage,
)
from ..tool_rows import summarize_arguments, trim_arguments

RESULT_EXCERPT = 2000
#: The runtime reports AI Credits in nano-AIU (`copilot_usage.total_nano_aiu`, an exact count).
NANO_AIU_PER_CREDIT = 1_000_000_000

#: The runtime's `ask_user` tool is how the model asks a question; the room already shows it as
#: the question and its answer (`on_user_input_request`), so its tool row would say it twice.
QUESTION_TOOL = "ask_user"

#: The runtime ends a shell tool's result with its own bookkeeping line,
#: `<shellId: 0 completed with exit code 0>` (runtime 1.0.102), in other words too when the
#: command did not simply finish (`<shellId: 3 completed…>` reached the panel in issue 42). People
#: see the command's output; a failing exit code stays, in words.
SHELL_MARKER = re.compile(r"<shellId: [^>\n]*>\s*$")
EXIT_CODE = re.compile(r"exit code (-?\d+)")

#: How the runtime (1.0.102) says a model call failed after its own retries (5, with backoff).
MODEL_FAILED = re.compile(
    r"Failed to get response from the AI model; retried (\d+) times "
    r"\(total retry wait time: ([\d.]+) seconds\) Last error: (.*)",
    re.DOTALL,
)
#: The HTTP client's words for a reply whose connection closed before its end.
CUT_SHORT = re.compile(r"error decoding response body|error reading a body|unexpected EOF")


def event_name(event: Any) -> str:
    return event.raw_type or event.type.value


class EventTranslator:
    """Holds what one turn accumulates: its usage, its error, when each tool started."""

    def __init__(self) -> None:
        self.ignored: Counter[str] = Counter()
        self.busy = False
        self._error: str | None = None
        self._usage: Counter[str] = Counter()
        self._usage_model = ""
        self._premium_requests = 0.0  # the runtime's `cost` per model call (none with BYOK)
        self._tools_started: dict[str, float] = {}
        self._questions: set[str] = set()  # `ask_user` calls, shown as the question itself

    def begin_turn(self) -> None:
        self.busy, self._error, self._usage_model = True, None, ""
        self._usage.clear()
        self._premium_requests = 0.0
        self._nano_aiu: float | None = None

    def translate(self, event: Any) -> list[AgentEvent]:
        name, data = event_name(event), event.data
        if name == "assistant.usage":
            self._usage_model = self._usage_model or data.model or ""
            self._usage["input_tokens"] += data.input_tokens or 0
            self._usage["output_tokens"] += data.output_tokens or 0
            self._usage["model_calls"] += 1
            self._premium_requests += data.cost or 0
            if data.copilot_usage is not None:  # billed by Copilot: never with a provider
                self._nano_aiu = (self._nano_aiu or 0) + data.copilot_usage.total_nano_aiu
            return []
        if event.agent_id is not None and not name.startswith("subagent."):
            self.ignored["subagent:" + name] += 1
            return []
        match name:
            case "assistant.message_delta" if not data.parent_tool_call_id:
                return [MessageDelta(entry_id=data.message_id, text=data.delta_content)]
            case "assistant.message" if not data.parent_tool_call_id:
                if not data.content:
                    return []
                return [AssistantMessage(entry_id=data.message_id, text=data.content)]
            case "assistant.reasoning_delta":
                return [
                    MessageDelta(
                        entry_id=data.reasoning_id, text=data.delta_content, kind="reasoning"
                    )
                ]
            case "assistant.reasoning":
                if not data.content:
                    return []
                return [
                    AssistantMessage(
                        entry_id=data.reasoning_id, text=data.content, kind="reasoning"
                    )
                ]
            case "tool.execution_start" if data.tool_name == QUESTION_TOOL:
                self._questions.add(data.tool_call_id)
                return []
            case "tool.execution_complete" if data.tool_call_id in self._questions:
                self._questions.discard(data.tool_call_id)
                return []
            case "tool.execution_start":
                return [self._tool_started(data)]
            case "tool.execution_complete":
                return [self._tool_completed(data)]
            case "subagent.started":
                return [
                    SubagentStarted(
                        call_id="subagent-" + data.tool_call_id,
                        name=data.agent_name,
                        description=data.agent_description,
                    )
                ]
            case "subagent.completed" | "subagent.failed":
                return [
                    SubagentEnded(
                        call_id="subagent-" + data.tool_call_id,
                        name=data.agent_name,
                        error=data.error if name == "subagent.failed" else None,
                    )
                ]
            case "assistant.turn_retry":  # the model call failed and is made again
                return [ReplyRetried()]
            case "session.error":
                self._error = model_failure(data.message)
                return [AgentError(message=self._error)]
            case "session.idle":
                return self.end_turn()
            case _:
                self.ignored[name] += 1
                return []

    @property
    def turn_credits(self) -> float:
        """The AI Credits this turn's model calls reported so far."""
        return (self._nano_aiu or 0) / NANO_AIU_PER_CREDIT

    def fail(self, message: str) -> None:
        """The room's own reason this turn fails (the runtime will end it as aborted)."""
        self._error = message

    def _tool_started(self, data: Any) -> ToolStarted:
        self._tools_started[data.tool_call_id] = time.monotonic()
        arguments = data.arguments if isinstance(data.arguments, dict) else {}
        return ToolStarted(
            call_id=data.tool_call_id,
            tool=data.tool_name,
            summary=summarize_arguments(data.tool_name, arguments),
            arguments=trim_arguments(arguments),
        )

    def _tool_completed(self, data: Any) -> ToolCompleted:
        started = self._tools_started.pop(data.tool_call_id, None)
        if data.success:
            text = data.result.content if data.result else ""
        else:
            text = data.error.message if data.error else "failed"
        return ToolCompleted(
            call_id=data.tool_call_id,
            success=bool(data.success),
            result=without_shell_marker(text)[:RESULT_EXCERPT],
            duration=time.monotonic() - started if started is not None else None,
        )

    def end_turn(self) -> list[AgentEvent]:
        """The turn's usage and its end; nothing when no turn was running."""
        if not self.busy:
            return []
        self.busy = False
        ended = TurnEnded(error=self._error)
        if not self._usage["model_calls"]:
            return [ended]
        usage = TurnUsage(
            model=self._usage_model,
            input_tokens=self._usage["input_tokens"],
            output_tokens=self._usage["output_tokens"],
            model_calls=self._usage["model_calls"],
            premium_requests=self._premium_requests,
            ai_credits=None if self._nano_aiu is None else self._nano_aiu / NANO_AIU_PER_CREDIT,
        )
        return [usage, ended]


def without_shell_marker(text: str) -> str:
    """A tool's output without the runtime's trailing `<shellId: ...>` line (see SHELL_MARKER)."""
    found = SHELL_MARKER.search(text)
    if found is None:
        return text
    output = text[: found.start()]
    code = EXIT_CODE.search(found.group())
    if code is None or code.group(1) == "0":
        return output
    return f"{output}(exit code {code.group(1)})"


def model_failure(message: str) -> str:
    """The runtime's report of a model call that failed after its retries, in people's words:
    what the endpoint did, how often it was tried, over how long. Anything else as it is."""
    found = MODEL_FAILED.fullmatch(message.strip())
    if found is None:
        return message
    retries, waited, last = int(found.group(1)), float(found.group(2)), found.group(3).strip()
    tries = f"each of {retries + 1} tries over {waited:.0f} s"
    if status := re.match(r"(\d{3}) (.*)", last):
        what = f"returned {status.group(1)} ({status.group(2)}) to {tries}"
    elif CUT_SHORT.search(last):
        what = f"closed the connection mid-reply on {tries} ({last})"
    else:
        what = f"failed on {tries}: {last}"
    return f"The model endpoint {what}, so the turn failed."


def model_silent(timeout: float) -> str:
    return f"The model endpoint did not answer within {timeout:g} s, so the turn failed."
