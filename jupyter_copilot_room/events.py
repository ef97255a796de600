"""Every fact the room records, and every event an agent reports, declared once.

A record in `transcript.jsonl` is a `kind` plus a payload; `RECORD_PAYLOADS` names the one class
for each kind. An agent reports its progress with the same classes where the fact is recorded as
it happened (a tool call, a sub-agent, usage, an error, the final message): the room only stamps
the turn it belongs to (`prompt_id`, and `author` for usage) before recording it, so no field can
be lost between the agent and the file. Events that are not recorded as such (streamed deltas,
the end of a turn, the agent's status) are declared here too, beside them.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _round_trips(text: str) -> str:
    """Text the transcript can hold: it must survive UTF-8 (a lone surrogate does not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("holds a lone surrogate, which is not Unicode text") from None
    return text


#: A text field a person sends: anything Unicode, never what cannot round-trip through UTF-8 JSON.
Text = Annotated[str, AfterValidator(_round_trips)]


class Strict(BaseModel):
    """Unknown fields are an error, and a value never changes once made."""

    model_config = ConfigDict(extra="forbid", frozen=True)


MessageKind = Literal["assistant", "reasoning"]
ParticipantRole = Literal["viewer", "member"]  # what a host may make someone
AdmissionChoice = Literal["viewer", "member", "reject"]  # what a host may decide at the door

# -- what an agent reports ------------------------------------------------------------------------


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
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    #: Premium requests the Copilot runtime billed (its `cost` per model call); 0 with your own
    #: provider, and in records written before 0.3.
    premium_requests: float = 0


class AgentError(AgentEvent):
    """The runtime reported an error; the turn usually fails with it (a `TurnEnded` follows)."""

    prompt_id: str | None = None  # stamped by the room
    message: str


# -- what the room records of its own -------------------------------------------------------------


class Target(Strict):
    """A skill (`/name`) or a custom agent (`@name`) a prompt is addressed to."""

    kind: Literal["skill", "agent"]
    name: Text = Field(min_length=1, max_length=200)


#: Where a prompt came from when not from a person's panel: a notebook kernel acting with the
#: credentials it was started with (`jupyter_copilot_room.kernel`). The author is still the
#: authenticated user; this only says how they sent it.
Origin = Literal["kernel"]


#: Bounds of what a prompt may carry as context (`Chip`): the room refuses more with a 400.
MAX_CHIPS = 8
MAX_CHIP_CELLS = 50
MAX_CHIP_TEXT = 100_000
MAX_IMAGE_BYTES = 10 * 1024 * 1024


class Chip(Strict):
    """Something a person pointed at, attached to their prompt (`notebooks/context.py`).

    `notebook`: a whole notebook; `cells`: cells of a notebook by id; `file`: a file;
    `selection`: lines `start_line`..`end_line` (1-based) of a file; `output`: one output of a
    notebook cell, captured as the person saw it (`text`, or an image as base64 `data`).
    Notebooks, cells, files and selections are read when the turn starts, the output now. The
    room stores an output's image like an uploaded one and records it by `id` (the sha256 of its
    bytes, in `state_dir/attachments/`) and `bytes`, never `data` (earlier records hold it).
    """

    kind: Literal["notebook", "cells", "file", "selection", "output"]
    path: Text = Field(min_length=1, max_length=1000)
    cell_ids: list[Annotated[str, Field(min_length=1, max_length=100)]] | None = Field(
        None, min_length=1, max_length=MAX_CHIP_CELLS
    )
    start_line: int | None = Field(None, ge=1, le=10_000_000)
    end_line: int | None = Field(None, ge=1, le=10_000_000)
    mime: Literal["text/plain", "image/png", "image/jpeg", "image/gif", "image/webp"] | None = None
    text: Text | None = Field(None, max_length=MAX_CHIP_TEXT)
    # An image's bytes, base64; at most MAX_IMAGE_BYTES once decoded (4/3 as many characters).
    data: str | None = Field(
        None, max_length=(MAX_IMAGE_BYTES + 2) // 3 * 4, pattern=r"^[A-Za-z0-9+/]*={0,2}$"
    )
    id: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    bytes: int | None = None  # set by the room with `id`


#: What a prompt may carry besides its text (`Attachment`, `attachments.py`).
MAX_IMAGES = 4
MAX_ATTACHMENTS = 8
MAX_FILE_BYTES = 1024 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class Attachment(Strict):
    """An image or a repository file sent with a prompt, as its record holds it: what it is,
    never its bytes. `image`: `id` is the sha256 of the bytes stored under
    `state_dir/attachments/`; `file`: `path` is inside the repository, read by the agent."""

    kind: Literal["image", "file"]
    id: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    path: Text | None = Field(default=None, min_length=1, max_length=1000)
    name: Text = Field(default="", max_length=200)
    mime: str | None = None
    bytes: int = 0
    width: int | None = None
    height: int | None = None


class PromptSubmitted(Strict):
    id: str
    text: str
    target: Target | None = None
    origin: Origin | None = None  # absent from older records, and from a panel's prompts
    # Absent from older records and from prompts without any.
    chips: list[Chip] | None = Field(None, max_length=MAX_CHIPS)
    attachments: list[Attachment] | None = Field(None, max_length=MAX_ATTACHMENTS)


class PromptRef(Strict):
    id: str


class PromptFinished(Strict):
    id: str
    state: Literal["completed", "failed", "canceled"]
    reason: str | None = None


class AssistantStarted(Strict):
    """The first streamed piece of a message arrived: fixes the entry's place in the transcript."""

    entry_id: str
    prompt_id: str
    kind: MessageKind = "assistant"


class AgentReady(Strict):
    """The agent can take turns, as `label` (a model, or the demo model); `detail` says more."""

    label: str
    detail: str = ""


class RequestOpened(Strict):
    """A permission request or a question (kind `question`) waiting for its author or a host."""

    id: str
    prompt_id: str
    author: str
    kind: str
    summary: str
    details: dict = Field(default_factory=dict)
    choices: list[str] = Field(default_factory=list)
    allow_freeform: bool = True
    deadline: float
    #: Two when the approval policy wants two approvers (since issue 16; older records: one).
    approvers_needed: int = 1
    #: The policy rule that decided how this request is answered (since issue 16).
    rule: str | None = None


class RequestSettled(Strict):
    id: str
    outcome: Literal["approved", "rejected", "answered", "timed_out", "aborted"]
    feedback: str | None = None
    answer: str | None = None
    #: Everyone who approved, in order (since issue 16; older records name only the actor).
    approvers: list[str] = Field(default_factory=list)
    #: The policy rule that settled it without asking anyone (since issue 16).
    rule: str | None = None


class RequestApproval(Strict):
    """One approval of a request that needs two: the approvers so far (the actor last)."""

    id: str
    approvers: list[str]


class PersonSeen(Strict):
    username: str
    display_name: str
    verified: bool
    avatar_url: str | None = None
    color: str | None = None
    gate: ParticipantRole | None = None  # the role the hub granted, if any


class AdmissionDecided(Strict):
    username: str
    decision: AdmissionChoice


class RoleChanged(Strict):
    username: str
    role: ParticipantRole


class PersonRef(Strict):
    username: str


class SettingsChanged(Strict):
    changes: dict


class SystemNote(Strict):
    text: str


class ChatMessage(Strict):
    """Something a person said to the room (`POST messages`): people read it, the agent never
    does (it is no prompt and never waits in the queue)."""

    id: str
    text: str


class Steering(Strict):
    """A message the running prompt's author or a host sent into the turn while it ran (the
    SDK's immediate mode): the model reads it at its next step, attributed to its sender."""

    id: str
    prompt_id: str
    text: str


class BudgetLift(Strict):
    """A host lifted `username`'s per-person daily cap for the UTC day `day` (`2026-12-01`)."""

    username: str
    day: str


class ModelChanged(Strict):
    """A host chose the model that answers the next turns (one of those the access mode
    offers)."""

    model: str


class TurnCheckpointed(Strict):
    """The files a turn changed, committed on `refs/copilot-room/checkpoints` (`commit`); the
    prompt's `author` is the commit's author."""

    prompt_id: str
    author: str
    commit: str
    files: list[str]


class TurnReverted(Strict):
    """Someone put a turn's files back as they were before it (`reverted`, its checkpoint);
    the revert is itself the checkpoint `commit`; `author` is the turn's prompt's author."""

    prompt_id: str
    author: str
    reverted: str
    commit: str
    files: list[str]


class CopilotSeat(Strict):
    """A host signed the room's runtime in to GitHub Copilot from the panel (the actor) as
    `login` ("" when the runtime does not say), or signed it out (`copilot.signed_out`, empty).
    Never a token or a code: the flow's secrets stay between the browser and the runtime."""

    login: str = ""


class RoomCreated(Strict):
    """Someone (the actor) created another room on this server (recorded in main's transcript):
    its `name` and its `repository` folder, relative to the server's root."""

    name: str
    repository: str


#: The payload class of each record kind: the transcript's whole vocabulary.
RECORD_PAYLOADS: dict[str, type[Strict]] = {
    "prompt.submitted": PromptSubmitted,
    "prompt.withdrawn": PromptRef,
    "prompt.started": PromptRef,
    "prompt.finished": PromptFinished,
    "assistant.started": AssistantStarted,
    "assistant.message": AssistantMessage,
    "tool.started": ToolStarted,
    "tool.completed": ToolCompleted,
    "subagent.started": SubagentStarted,
    "subagent.ended": SubagentEnded,
    "usage": TurnUsage,
    "agent.error": AgentError,
    "agent.ready": AgentReady,
    "request.opened": RequestOpened,
    "request.settled": RequestSettled,
    "request.approval": RequestApproval,
    "abort": PromptRef,
    "person.seen": PersonSeen,
    "admission.decided": AdmissionDecided,
    "role.changed": RoleChanged,
    "person.removed": PersonRef,
    "host.claimed": PersonRef,
    "settings.changed": SettingsChanged,
    "system": SystemNote,
    "chat.message": ChatMessage,
    "prompt.steered": Steering,
    "model.changed": ModelChanged,
    "budget.lifted": BudgetLift,
    "turn.checkpointed": TurnCheckpointed,
    "turn.reverted": TurnReverted,
    "copilot.signed_in": CopilotSeat,
    "copilot.signed_out": CopilotSeat,
    "room.created": RoomCreated,
}

#: Agent events recorded as they are, by the kind of their record.
RECORDED_EVENTS: dict[type[Strict], str] = {
    cls: kind for kind, cls in RECORD_PAYLOADS.items() if issubclass(cls, AgentEvent)
}


class Record(BaseModel):
    """One line of `transcript.jsonl`: the envelope around one payload."""

    model_config = ConfigDict(extra="forbid")

    seq: int
    ts: float
    kind: str
    actor: str | None = None
    payload: dict = Field(default_factory=dict)
    #: sha256 of the previous record's `chain` and this record (records before 0.2 have none):
    #: a record changed, removed or added behind the room's back breaks the chain.
    chain: str | None = None

    def linked_to(self, previous: str | None) -> str:
        """This record's `chain` value after the record whose chain is `previous`."""
        body = self.model_dump_json(exclude={"chain"})
        return hashlib.sha256(f"{previous or ''}\n{body}".encode()).hexdigest()

    def parsed(self) -> Strict:
        """The payload as its kind's class; raises ValueError for an unknown kind or bad fields."""
        model = RECORD_PAYLOADS.get(self.kind)
        if model is None:
            raise ValueError(f"unknown record kind {self.kind!r}")
        return model.model_validate(self.payload)
