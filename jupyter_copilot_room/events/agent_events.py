"""What an agent reports to the room during a turn (or about itself): streamed deltas, the end of
a turn and its status, which are not recorded as such, and the facts recorded as they happened
(the final message, tools, sub-agents, usage, errors), which the room only stamps with the turn
they belong to."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .strict import MessageKind, Strict


class AgentEvent(Strict):
    """Something an agent reports to the room during a turn (or about itself)."""


class MessageDelta(AgentEvent):
    """A streamed piece of a reply or of reasoning; `entry_id` groups the pieces of one message.
    Deltas reach the live document only: the complete `AssistantMessage` is what is recorded."""

    entry_id: str
    text: str
    kind: MessageKind = "assistant"


class ReplyRetried(AgentEvent):
    """The model call failed mid-reply and is made again: what streamed of it is abandoned (the
    next attempt's reply replaces it)."""


class TurnEnded(AgentEvent):
    """The agent is idle again; `error` says why the turn failed, if it did."""

    error: str | None = None


class AgentStatus(AgentEvent):
    """Whether the agent can take a turn (`ready`), is getting there (`starting`), cannot
    (`unavailable`, with `detail` a short paragraph saying what to do and `error` what exactly
    went wrong), or has lost its runtime (`lost`: the room fails the turn it had and restarts
    it)."""

    state: Literal["starting", "ready", "unavailable", "lost"]
    label: str
    detail: str = ""
    error: str = ""
    model: str = ""  # the model the next turn asks, when the agent knows it
    #: Whether its model calls cost AI Credits (a Copilot login), or not (your own provider, the
    #: demo); None while the agent does not know yet.
    ai_credits: bool | None = None
    #: Where its model access came from (the variable of a Copilot login, never its value; the
    #: runtime's sign-in, the provider, the demo): a token of a front's read as the login would
    #: otherwise switch the room's seat with nothing saying so. "": the agent does not say.
    source: str = ""

    @property
    def ready(self) -> bool:
        return self.state == "ready"


class AssistantMessage(AgentEvent):
    """A whole message (or, when the turn failed or was aborted, what had streamed of it)."""

    entry_id: str
    prompt_id: str | None = None  # stamped by the room
    text: str
    kind: MessageKind = "assistant"
    partial: bool = False
    #: An attempt the model call abandoned and made again: recorded, not shown.
    retried: bool = False


class ToolStarted(AgentEvent):
    call_id: str
    prompt_id: str | None = None  # stamped by the room
    tool: str
    summary: str
    arguments: dict = Field(default_factory=dict)


class ToolCompleted(AgentEvent):
    call_id: str
    success: bool
    result: str = ""
    duration: float | None = None


class PlanStep(Strict):
    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"


class PlanUpdated(AgentEvent):
    """The agent's plan for the turn, whole, each time it changes (an ACP agent's `plan`): the
    turn's one plan entry shows the latest."""

    entry_id: str
    prompt_id: str | None = None  # stamped by the room
    steps: list[PlanStep] = Field(default_factory=list)


class SubagentStarted(AgentEvent):
    call_id: str
    prompt_id: str | None = None  # stamped by the room
    name: str
    description: str = ""


class SubagentEnded(AgentEvent):
    call_id: str
    error: str | None = None
    name: str = ""  # absent from records written before 0.2


class TurnUsage(AgentEvent):
    """What one turn cost, booked to the person whose prompt it was."""

    prompt_id: str | None = None  # stamped by the room
    author: str | None = None  # stamped by the room
    #: The side thread whose turn this was, in its room's transcript (`room/budgets/spending.py`).
    thread: str | None = None
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    #: Premium requests the Copilot runtime billed (its `cost` per model call); 0 with your own
    #: provider, and in records written before 0.3.
    premium_requests: float = 0
    #: AI Credits the Copilot runtime reported (its nano-AIU per model call, 10^9 to a credit);
    #: None when it reported none: your own provider, whose calls credits do not apply to, and
    #: records written before 0.3.
    ai_credits: float | None = None


class AgentError(AgentEvent):
    """The runtime reported an error; the turn usually fails with it (a `TurnEnded` follows)."""

    prompt_id: str | None = None  # stamped by the room
    message: str
