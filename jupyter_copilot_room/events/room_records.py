"""What the room records of its own besides prompts: the agent's cards and their answers,
people and hosts' decisions, settings, chat and steering, the model, budgets, checkpoints, the
Copilot sign-in, rooms created."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .strict import AdmissionChoice, ParticipantRole, Strict


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
    #: The tool call a permission request is for, where the runtime says (since 0.3).
    call_id: str | None = None
    #: The title of the agent that asked, when not the room's own Copilot (since 0.4).
    agent: str | None = None


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
    #: The title of the agent `changes` names (its `agent`), for the line people read.
    agent_title: str | None = None


class SystemNote(Strict):
    """A line the room says. With `people`, `text` is a template: `{0}`, `{1}`... stand for those
    usernames, which the panel shows by their names of the day; `{{` and `}}` are braces."""

    text: str
    people: tuple[str, ...] | None = None


def literal(text: str) -> str:
    """`text` put into a SystemNote's template as it is (its braces are no placeholders)."""
    return text.replace("{", "{{").replace("}", "}}")


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
    #: Of `files`, those the agent's tools did not name: changed while its shell or a notebook
    #: cell ran (since 0.4; absent when there are none).
    unnamed: list[str] | None = None


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
