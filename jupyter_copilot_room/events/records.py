"""The transcript's vocabulary and its envelope: the payload class of each record kind (declared
once: the document's handlers, the event schemas and the replay all follow it) and `Record`, one
line of `transcript.jsonl` with its hash chain."""

from __future__ import annotations

import hashlib
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from .agent_events import (
    AgentError,
    AgentEvent,
    AssistantMessage,
    PlanUpdated,
    SubagentEnded,
    SubagentStarted,
    ToolCompleted,
    ToolStarted,
    TurnUsage,
)
from .prompt_records import (
    AgentReady,
    AssistantStarted,
    PromptFinished,
    PromptRef,
    PromptSubmitted,
)
from .room_records import (
    AdmissionDecided,
    BudgetLift,
    ChatMessage,
    CopilotSeat,
    ModelChanged,
    PersonRef,
    PersonSeen,
    RequestApproval,
    RequestOpened,
    RequestSettled,
    RoleChanged,
    RoomCreated,
    SettingsChanged,
    Steering,
    SystemNote,
    TurnCheckpointed,
    TurnReverted,
)
from .strict import Strict

#: The author of the agent's own entries in the document and the exports.
AGENT_AUTHOR = "copilot"

#: Every record kind, as a type: a consumer's declaration (`events/consumers.py`) that misspells
#: one fails the type check.
RecordKind = Literal[
    "prompt.submitted",
    "prompt.withdrawn",
    "prompt.started",
    "prompt.finished",
    "assistant.started",
    "assistant.message",
    "tool.started",
    "tool.completed",
    "plan.updated",
    "subagent.started",
    "subagent.ended",
    "usage",
    "agent.error",
    "agent.ready",
    "request.opened",
    "request.settled",
    "request.approval",
    "abort",
    "person.seen",
    "admission.decided",
    "role.changed",
    "person.removed",
    "host.claimed",
    "settings.changed",
    "system",
    "chat.message",
    "prompt.steered",
    "model.changed",
    "budget.lifted",
    "turn.checkpointed",
    "turn.reverted",
    "copilot.signed_in",
    "copilot.signed_out",
    "room.created",
]

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
    "plan.updated": PlanUpdated,
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

if set(get_args(RecordKind)) != set(RECORD_PAYLOADS):
    raise RuntimeError("RecordKind and RECORD_PAYLOADS name different record kinds")

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
    #: Where the actor acted from when not from JupyterLab (a bridge: "slack", "teams"), as the
    #: in-process API's `Person.source` says (since 0.4; absent otherwise, and then not written).
    source: str | None = None
    #: sha256 of the previous record's `chain` and this record (records before 0.2 have none):
    #: a record changed, removed or added behind the room's back breaks the chain.
    chain: str | None = None

    def linked_to(self, previous: str | None) -> str:
        """This record's `chain` value after the record whose chain is `previous`."""
        body = self.model_dump_json(exclude={"chain", *self._unset_source()})
        return hashlib.sha256(f"{previous or ''}\n{body}".encode()).hexdigest()

    def line(self) -> bytes:
        """The record as `transcript.jsonl` holds it, one line (no `source` when it has none,
        so every record written before 0.4 keeps its bytes and its chain)."""
        return self.model_dump_json(exclude=self._unset_source()).encode() + b"\n"

    def _unset_source(self) -> set[str]:
        return {"source"} if self.source is None else set()

    def parsed(self) -> Strict:
        """The payload as its kind's class; raises ValueError for an unknown kind or bad fields."""
        model = RECORD_PAYLOADS.get(self.kind)
        if model is None:
            raise ValueError(f"unknown record kind {self.kind!r}")
        return model.model_validate(self.payload)
