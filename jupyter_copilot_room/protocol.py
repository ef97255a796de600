"""The room's wire contract: REST request bodies and the transcript's record types.

Request bodies reject unknown fields, so a typo is a clear 400 rather than a silently ignored
option, and none of them carries an author: the acting user is always `current_user`. Records are
what `transcript.jsonl` holds and what the live document is derived from; each `kind` has a
payload model here, so both the file and the document are built from the same validated data.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- REST request bodies -------------------------------------------------------------------------


class TargetBody(Strict):
    kind: Literal["skill", "agent"]
    name: str = Field(min_length=1, max_length=200)


class PromptBody(Strict):
    text: str
    target: TargetBody | None = None


class ApprovalBody(Strict):
    decision: Literal["approve", "reject"]
    feedback: str | None = Field(None, max_length=2000)


class QuestionBody(Strict):
    answer: str = Field(min_length=1, max_length=20_000)


class RoleBody(Strict):
    role: Literal["viewer", "member"]


class AdmissionBody(Strict):
    decision: Literal["viewer", "member", "reject"]


# -- transcript records --------------------------------------------------------------------------


class Record(BaseModel):
    """One line of `transcript.jsonl`."""

    model_config = ConfigDict(extra="forbid")

    seq: int
    ts: float
    kind: str
    actor: str | None = None
    payload: dict = Field(default_factory=dict)


class PromptSubmitted(Strict):
    id: str
    text: str
    target: TargetBody | None = None


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
    kind: Literal["assistant", "reasoning"] = "assistant"


class AssistantMessage(Strict):
    """The whole message (or, when the turn failed or was aborted, what had streamed of it)."""

    entry_id: str
    prompt_id: str
    text: str
    kind: Literal["assistant", "reasoning"] = "assistant"
    partial: bool = False


class ToolStarted(Strict):
    call_id: str
    prompt_id: str
    tool: str
    summary: str
    arguments: dict = Field(default_factory=dict)


class ToolCompleted(Strict):
    call_id: str
    success: bool
    result: str = ""
    duration: float | None = None


class SubagentStarted(Strict):
    call_id: str
    prompt_id: str
    name: str
    description: str = ""


class SubagentEnded(Strict):
    call_id: str
    error: str | None = None


class TurnUsage(Strict):
    """What one turn cost, booked to the person whose prompt it was."""

    prompt_id: str
    author: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0


class AgentReady(Strict):
    """The agent can take turns, as `label` (a model, or the demo model); `detail` says more."""

    label: str
    detail: str = ""


class AgentError(Strict):
    prompt_id: str | None = None
    message: str


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


class RequestSettled(Strict):
    id: str
    outcome: Literal["approved", "rejected", "answered", "timed_out", "aborted"]
    feedback: str | None = None
    answer: str | None = None


class PersonSeen(Strict):
    username: str
    display_name: str
    verified: bool
    avatar_url: str | None = None
    color: str | None = None
    gate: Literal["member", "viewer"] | None = None


class AdmissionDecided(Strict):
    username: str
    decision: Literal["viewer", "member", "reject"]


class RoleChanged(Strict):
    username: str
    role: Literal["viewer", "member"]


class PersonRef(Strict):
    username: str


class SettingsChanged(Strict):
    changes: dict


class SystemNote(Strict):
    text: str


RECORD_PAYLOADS: dict[str, type[BaseModel]] = {
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
    "abort": PromptRef,
    "person.seen": PersonSeen,
    "admission.decided": AdmissionDecided,
    "role.changed": RoleChanged,
    "person.removed": PersonRef,
    "host.claimed": PersonRef,
    "settings.changed": SettingsChanged,
    "system": SystemNote,
}
