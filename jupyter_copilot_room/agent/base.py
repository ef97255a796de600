"""The seam between the room and an agent: what the room asks of an agent, and what it offers back.

The room owns the queue and calls `send` only when the agent is idle, so every event that comes
back belongs to exactly one prompt. An agent reports progress as plain events and asks for
permissions and answers through the `AgentHost` the room hands it; it never decides those itself.
Only the adapter behind this seam (`copilot.py`) imports an agent SDK.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from .catalog import Catalog
from .notebooks import NotebookEditor
from .queue import Target


@dataclass(frozen=True)
class Turn:
    """One prompt, as the agent receives it (`text` already expanded for its target)."""

    prompt_id: str
    author: str
    text: str
    target: Target | None = None


# -- events an agent reports ---------------------------------------------------------------------


@dataclass(frozen=True)
class MessageDelta:
    """A streamed piece of the assistant's reply; `entry_id` groups the pieces of one message."""

    entry_id: str
    text: str


@dataclass(frozen=True)
class Message:
    """The complete assistant message that the deltas with the same `entry_id` added up to."""

    entry_id: str
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    entry_id: str
    text: str


@dataclass(frozen=True)
class Reasoning:
    entry_id: str
    text: str


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    tool: str
    summary: str
    arguments: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ToolCompleted:
    call_id: str
    success: bool
    result: str = ""
    duration: float | None = None


@dataclass(frozen=True)
class SubagentStarted:
    call_id: str
    name: str
    description: str = ""


@dataclass(frozen=True)
class SubagentEnded:
    call_id: str
    name: str
    error: str | None = None


@dataclass(frozen=True)
class Usage:
    """What the turn cost, as the runtime reported it; the room books it to the prompt's author."""

    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0


@dataclass(frozen=True)
class AgentError:
    """The runtime reported an error; the turn usually fails with it (a `TurnEnded` follows)."""

    message: str


@dataclass(frozen=True)
class TurnEnded:
    """The agent is idle again; `error` says why the turn failed, if it did."""

    error: str | None = None


@dataclass(frozen=True)
class AgentStatus:
    """Whether the agent can take a turn (`ready`), is getting there (`starting`), or cannot
    (`unavailable`, with `detail` saying why and what to do)."""

    state: str
    label: str
    detail: str = ""

    @property
    def ready(self) -> bool:
        return self.state == "ready"


AgentEvent = (
    MessageDelta
    | Message
    | ReasoningDelta
    | Reasoning
    | ToolStarted
    | ToolCompleted
    | SubagentStarted
    | SubagentEnded
    | Usage
    | AgentError
    | TurnEnded
    | AgentStatus
)


# -- what the agent asks of the room -------------------------------------------------------------


@dataclass(frozen=True)
class PermissionAsk:
    kind: str  # shell | write | url | mcp | read | ...
    summary: str  # the exact command, path or URL
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class QuestionAsk:
    question: str
    choices: tuple[str, ...] = ()
    allow_freeform: bool = True


@dataclass(frozen=True)
class Answer:
    """The room's answer: approved or not, and words for the model (who rejected, or timeout)."""

    approved: bool
    text: str = ""


class AgentHost(Protocol):
    """What the room offers an agent."""

    async def publish(self, event: AgentEvent) -> None: ...

    async def request_permission(self, ask: PermissionAsk) -> Answer: ...

    async def ask_question(self, ask: QuestionAsk) -> Answer: ...


@dataclass(frozen=True)
class AgentSettings:
    """What an agent is told about its place: from `c.CopilotRoom.*`."""

    repository: Path
    state_dir: Path
    model: str = ""
    provider: dict = field(default_factory=dict)
    cli_path: str = ""
    catalog: Catalog | None = None  # the repository's skills and custom agents
    notebooks: NotebookEditor | None = None  # the notebook tools, when the server offers them
    log: logging.Logger = field(default_factory=lambda: logging.getLogger(__name__))


class Agent(ABC):
    """An agent the room drives one turn at a time."""

    def __init__(self, settings: AgentSettings):
        self.settings = settings

    @abstractmethod
    async def start(self, host: AgentHost) -> None:
        """Connect (or resume) the agent's session, then report an `AgentStatus`.

        A missing runtime or login is reported as a not-ready status, never raised.
        """

    @abstractmethod
    async def send(self, turn: Turn) -> None:
        """Begin a turn and return once the agent took it; completion arrives as `TurnEnded`."""

    @abstractmethod
    async def abort(self) -> None:
        """Stop the running turn; `TurnEnded` should follow promptly."""

    @abstractmethod
    async def restart(self) -> None:
        """Start the agent's runtime afresh and resume its session (after it hung or died)."""

    @abstractmethod
    async def stop(self) -> None:
        """Release the agent's resources."""
