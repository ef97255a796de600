"""A pull request's tasks, as the room moves them: each task is a prompt asked in a comment, with
an id (`t<n>`), an A2A state, an owner and a round. Pure: the records of the room's transcript
and the comments on the task move it; `pull_room.py` posts what changed.

The states are A2A's: `submitted` (queued), `working` (its turn runs), `input-required` (a card
waits), then one of `completed`, `failed`, `canceled` (aborted or withdrawn) and `rejected` (a
refused card ended it, or the room refused the comment). A terminal task takes no further
Message.

Rounds: a task's round advances each time someone other than the last to post on it posts (the
room's own Messages and replies count as posts), so two agents that answer each other on a task
spend it; a post that would take it past the cap fails the task instead (`capped`): its `failed`
Message is the room's last word on it, even after it had ended.

The room writes the states above in its markers and reads A2A 1.0's names too
(`TASK_STATE_INPUT_REQUIRED`, ...), which other agents' markers may use (`a2a_state`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ...events.consumers import reads

TERMINAL = frozenset({"completed", "failed", "canceled", "rejected"})
#: The states as A2A 1.0 names them (`TaskState` in its a2a.proto), beside the ones written here.
A2A_NAMES = {
    f"TASK_STATE_{state.upper().replace('-', '_')}": state
    for state in (*TERMINAL, "submitted", "working", "input-required", "auth-required")
}
A2A_NAMES["TASK_STATE_CANCELLED"] = "canceled"  # the spelling of A2A's protobuf before 1.0
#: What a running task's Message adds once the comment that asked for it is deleted.
ORPHANED = "The comment that asked for this task was deleted; its turn had started and goes on."
#: Who posts the room's own Messages, as a task's `last_author`.
ROOM = ""
#: What the room says when its turn ends, beside the reply.
_ENDED = {
    "completed": "Done.",
    "failed": "The turn failed.",
    "canceled": "The task was canceled.",
    "rejected": "The task ended when its request was refused.",
}

#: Not `prompt.submitted`: a task is opened by its comment, before its prompt is recorded.
RECORDS = reads(
    "pull_tasks",
    handles={
        "prompt.started",
        "prompt.finished",
        "prompt.withdrawn",
        "assistant.message",
        "request.opened",
        "request.settled",
    },
)


@dataclass
class Task:
    id: str
    owner: str  # the GitHub login that opened it
    state: str = "submitted"
    round: int = 1
    last_author: str = ""  # who posted on it last (ROOM: the room's Message)
    prompt_id: str | None = None  # its prompt in the room (the newest, after a follow-up)
    prose: str = ""  # what its Message says to people
    review_root: int | None = None  # the review thread it lives in (answers go there)
    message: int | None = None  # the room's current Message comment, edited while nobody posts
    posted: dict | None = None  # the marker that Message holds now
    card: str | None = None  # the card it waits on
    refused: bool = False  # the last card of its turn was refused
    reply: list[str] = field(default_factory=list)  # the turn's reply so far
    comment: int | None = None  # the comment that asked for it (None once handled as deleted)
    orphaned: bool = False  # that comment was deleted while its turn ran
    capped: bool = False  # it reached the cap: failed, and the room says nothing more on it

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    def marker(self, agent: str) -> dict[str, Any]:
        return {"task": self.id, "state": self.state, "agent": agent, "round": self.round}

    def posts(self, author: str, max_rounds: int) -> bool:
        """`author` posted on the task: its round advances if they are not the last to post;
        False (and the round kept) when that would take it past `max_rounds`."""
        if author == self.last_author:
            return True
        if self.round + 1 > max_rounds:
            return False
        self.round += 1
        self.last_author = author
        return True

    def takes(self, state: str) -> bool:
        """Whether its Message may still say `state`: an ended task says nothing more, but for
        its cap's failure, once."""
        said = None if self.posted is None else a2a_state(self.posted.get("state"))
        if said not in TERMINAL:
            return True
        return self.capped and state == "failed" and said != "failed"

    def how_to_answer(self, who: str) -> None:
        """What the card it waits on does not say on its own: the words that answer it, and
        `who` may (as the room's refusal would name them)."""
        self.prose += (
            f"\n\nTo answer: `/approve {self.id}` or `/reject {self.id} [reason]`, by {who}, "
            "with write access to the repository."
        )

    def left_running(self) -> None:
        """The comment that asked for it was deleted after its turn started: it goes on."""
        self.comment, self.orphaned = None, True
        self.prose = f"{self.prose}\n\n{ORPHANED}".strip()

    def needs_new_message(self) -> bool:
        """Someone posted since the room's Message (or it has none): the next is a new comment."""
        return self.message is None or self.last_author != ROOM

    def moved_by(self, record: dict) -> bool:
        """Apply one transcript record of this task's prompt; whether its state or prose moved."""
        kind, payload = record["kind"], record["payload"]
        before = (self.state, self.prose)
        if kind == "prompt.started":
            self.state, self.prose, self.refused = "working", "Working on it.", False
            self.reply = []
        elif kind == "request.opened":
            self.state, self.card, self.prose = "input-required", payload["id"], payload["summary"]
        elif kind == "request.settled" and payload["id"] == self.card:
            self.card = None
            self.refused = payload["outcome"] in ("rejected", "timed_out")
            self.state, self.prose = "working", f"The request was {payload['outcome']}."
        elif kind == "assistant.message" and not payload.get("partial"):
            if payload.get("kind", "assistant") == "assistant" and not payload.get("retried"):
                self.reply.append(payload["text"])
        elif kind == "prompt.withdrawn":
            self.state, self.prose = "canceled", "The prompt was withdrawn before it ran."
        elif kind == "prompt.finished":
            state = payload["state"]
            self.state = "rejected" if state == "completed" and self.refused else state
            said = "\n\n".join(text for text in self.reply if text.strip())
            reason = payload.get("reason") or ""
            self.prose = "\n\n".join(p for p in (said, reason, _ENDED[self.state]) if p)
        if self.orphaned and not self.prose.endswith(ORPHANED):
            self.prose = f"{self.prose}\n\n{ORPHANED}"
        return (self.state, self.prose) != before

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Task:
        return cls(**data)


def a2a_state(value: object) -> str | None:
    """A marker's state as the room names it (`input-required`), whether it was written so or
    as A2A 1.0 writes it (`TASK_STATE_INPUT_REQUIRED`); None for anything else."""
    if not isinstance(value, str):
        return None
    if value in A2A_NAMES.values():
        return value
    return A2A_NAMES.get(value.upper())


def prompt_of(record: dict) -> str | None:
    """The prompt a record belongs to, for the kinds a task reads."""
    payload = record["payload"]
    if record["kind"] in ("prompt.started", "prompt.finished", "prompt.withdrawn"):
        return payload.get("id")
    return payload.get("prompt_id")


def card_of(record: dict) -> str | None:
    """The card a `request.settled` settles (its prompt is known only by the task waiting)."""
    return record["payload"].get("id") if record["kind"] == "request.settled" else None
