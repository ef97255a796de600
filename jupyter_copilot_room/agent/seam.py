"""The seam between the room and an agent: what the room asks of an agent, and what it offers back.

The room owns the queue and calls `send` only when the agent is idle, so every event that comes
back belongs to exactly one prompt. An agent reports progress as the events of `events.py` and
asks for permissions and answers through the `AgentHost` the room hands it; it never decides those
itself, and it never sees the room. Only the adapter behind this seam (the `copilot` package)
imports an agent SDK.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..catalog import Catalog
from ..events import AgentEvent, Target
from ..notebooks import NotebookEditor

#: The room's own agent (the Copilot SDK's), the default of `c.CopilotRoom.default_agent`: a
#: name of the seam, so the room tells its own agent from another without importing an adapter.
COPILOT = "copilot"


@dataclass(frozen=True)
class TurnImage:
    """An image given to the model beside a prompt's text (an uploaded image, or a notebook
    output a person sent)."""

    mime: str
    data: str  # base64
    name: str


@dataclass(frozen=True)
class File:
    """A repository file given to the model beside a prompt's text (the agent reads it)."""

    path: str  # absolute, inside the repository
    name: str


@dataclass(frozen=True)
class AgentTurn:
    """One prompt, as the agent receives it (`text` already expanded for its target and with the
    context its chips name; `images` the chips' and the attached images, `files` the attached
    repository files)."""

    prompt_id: str
    author: str
    text: str
    target: Target | None = None
    author_name: str = ""  # the author's display name, for what people see (the agent's cursor)
    images: tuple[TurnImage, ...] = ()
    files: tuple[File, ...] = ()


# -- what the agent asks of the room -------------------------------------------------------------


@dataclass(frozen=True)
class FileChange:
    """One file a write would change, whole before and after (None: it does not exist), so the
    room can show it as people read it (a notebook cell by cell)."""

    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class PermissionAsk:
    kind: str  # shell | write | url | mcp | read | ...
    summary: str  # the exact command, path or URL
    details: dict = field(default_factory=dict)
    changes: tuple[FileChange, ...] = ()  # a write's files, where the runtime says them whole
    call_id: str | None = None  # the tool call it asks for, where the runtime says which


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


@dataclass(frozen=True)
class SeatQuota:
    """What the Copilot seat that answers has left of its premium requests this period, as the
    runtime reports it for a Copilot login."""

    entitlement: int  # premium requests per period
    used: int
    remaining_percentage: float
    unlimited: bool
    resets_at: str | None = None  # ISO 8601, when the runtime says


class SignInFailed(Exception):
    """A login flow ended without a login; the message says why, for the host."""


class ConsentNeeded(Exception):
    """The login worked, but the runtime has no keychain on this server: it asks before it keeps
    the token in plain text in its state directory (`LoginFlow.allow` goes on)."""


class ForkFailed(Exception):
    """The conversation cannot be forked where asked (`Agent.fork`); the message says why."""


class LoginFlow(Protocol):
    """One run of a runtime's own sign-in: `begin` gives the address where the host signs in,
    `finish` waits for the browser's return and gives the login's name ("" if unknown), or
    raises `ConsentNeeded`, after which `allow` stores the login in plain text and gives it."""

    callback: str  # where the browser lands after signing in ("" if nowhere the host pastes)

    async def begin(self) -> str: ...

    async def finish(self) -> str: ...

    async def deliver(self, landed: str) -> None: ...

    async def allow(self) -> str: ...

    async def cancel(self) -> None: ...


class AgentHost(Protocol):
    """What the room offers an agent."""

    async def publish(self, event: AgentEvent) -> None: ...

    async def request_permission(self, ask: PermissionAsk) -> Answer: ...

    async def ask_question(self, ask: QuestionAsk) -> Answer: ...

    def credits_left(self) -> float | None:
        """AI Credits the running turn's author (or, between turns, the room) may still spend
        today under the room's caps, this turn not counted yet; None: no cap in credits."""
        ...


@dataclass(frozen=True)
class AgentSettings:
    """What an agent is told about its place: from `c.CopilotRoom.*`."""

    repository: Path
    state_dir: Path
    #: Where the agent's runtime keeps its own state, shared by every room of the server
    #: (None: `state_dir/copilot`, a runtime of the room's own).
    runtime_directory: Path | None = None
    model: str = ""
    #: With a provider: the models hosts may switch between (`c.CopilotRoom.models`).
    models: tuple[str, ...] = ()
    provider: dict = field(default_factory=dict)
    cli_path: str = ""
    #: Environment variables the runtime gets beyond its allow-list (`c.CopilotRoom.agent_env`).
    agent_env: tuple[str, ...] = ()
    #: The GitHub Enterprise Cloud host a host signs in to from the panel ("": github.com).
    github_host: str = ""
    #: Seconds a sign-in from the panel may stay open before the room cancels it.
    signin_timeout: float = 600.0
    #: Seconds a model call may go without a byte (no runtime event) before the turn fails.
    model_timeout: float = 300.0
    catalog: Catalog | None = None  # the repository's skills and custom agents
    notebooks: NotebookEditor | None = None  # the notebook tools, when the server offers them
    log: logging.Logger = field(default_factory=lambda: logging.getLogger(__name__))


class Agent(ABC):
    """An agent the room drives one turn at a time."""

    #: Which agent it is (`c.CopilotRoom.agents`' name, or the room's own) and its title.
    name: str = COPILOT
    title: str = "GitHub Copilot"

    def __init__(self, settings: AgentSettings):
        self.settings = settings

    def offered(self) -> dict[str, str]:
        """The agents a host may choose for the room (name: title): this one alone, unless the
        server offers others (`agent_choice.py`)."""
        return {self.name: self.title}

    def switch_wanted(self) -> bool:
        """Whether the room's setting names another agent than this one (the room restarts it
        between turns, which makes the switch)."""
        return False

    @abstractmethod
    async def start(self, host: AgentHost) -> None:
        """Connect (or resume) the agent's session, then report an `AgentStatus`.

        A missing runtime or login is reported as a not-ready status, never raised. A runtime
        found dead later is reported as `lost`: the room then fails the turn and calls `restart`.
        """

    @abstractmethod
    async def send(self, turn: AgentTurn) -> None:
        """Begin a turn and return once the agent took it; completion arrives as `TurnEnded`."""

    @abstractmethod
    async def steer(self, author: str, text: str) -> None:
        """Say `text`, from `author`, into the running turn now (not after it): the model reads
        it at its next step, attributed like a prompt."""

    @abstractmethod
    async def models(self) -> list[str]:
        """The models a host may choose between (fewer than two: there is no choice)."""

    @abstractmethod
    async def use_model(self, model: str) -> None:
        """Ask `model` from the next turn on (also after a restart: the room says it again)."""

    async def fork(self, later: Sequence[str], into: Path, name: str) -> None:
        """Copy the agent's conversation, up to the first turn of the prompts `later` (in the
        order they started) that reached it, as a new session that an agent whose state_dir is
        `into` resumes at its start: a side thread's (`threads/`). None reached it: all of it.
        The agent must be connected. Raises `ForkFailed` when it cannot fork there (an agent
        without sessions: `NotImplementedError`)."""
        raise NotImplementedError("This agent cannot fork its conversation.")

    @abstractmethod
    async def abort(self) -> None:
        """Stop the running turn; `TurnEnded` should follow promptly."""

    @abstractmethod
    async def restart(self) -> None:
        """Start the agent's runtime afresh and resume its session (after it hung or died)."""

    @abstractmethod
    async def stop(self) -> None:
        """Release the agent's resources (its session closes; a runtime nobody else uses ends).
        The room may `start` it again later (a sleeping room's next prompt): the session is
        then resumed."""

    # -- signing in from the panel (an agent without a login flow of its own offers none) --------

    def login_flow(self) -> LoginFlow | None:
        """A new run of the runtime's login flow, offered only while the agent has no model
        access but the demo's (a provider or a login already answers otherwise)."""
        return None

    async def use_login(self) -> None:
        """Start afresh with the login the flow just stored (leaving demo mode)."""
        raise NotImplementedError

    async def sign_out(self) -> bool:
        """Forget the runtime's login and start afresh; false when there is none to forget."""
        return False

    async def seat_quota(self) -> SeatQuota | None:
        """The premium-request quota of the Copilot seat that answers, where the runtime reports
        one (a Copilot login); None otherwise (a provider, the demo, a runtime that cannot say)."""
        return None
