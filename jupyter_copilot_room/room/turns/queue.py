"""The room's FIFO of prompts: one in flight at most, the next only when the agent is idle.

A pure state machine (no I/O, no clock: times are passed in). States follow the A2A task model.
The whole behaviour is the `TRANSITIONS` table below; every other method reads or guards it.
It holds the open prompts alone: one that reaches a final state is returned by the call that
ended it and forgotten, so a room kept for months does not hold every prompt's text, and a full
replay of the transcript rebuilds the same queue as a start from a snapshot (which brings back
only the open ones). What a finished prompt was is in the transcript (`Room.withdraw` reads it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ...errors import Conflict, NotFound
from ...events import Attachment, Chip, Target


class TaskState(StrEnum):
    SUBMITTED = "submitted"
    WORKING = "working"
    INPUT_REQUIRED = "input-required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELED = "canceled"


class Event(StrEnum):
    START = "start"
    WITHDRAW = "withdraw"
    NEED_INPUT = "need_input"
    RESUME = "resume"
    COMPLETE = "complete"
    FAIL = "fail"
    CANCEL = "cancel"


S, E = TaskState, Event
TRANSITIONS: dict[tuple[TaskState, Event], TaskState] = {
    (S.SUBMITTED, E.START): S.WORKING,
    (S.SUBMITTED, E.WITHDRAW): S.CANCELED,
    (S.WORKING, E.NEED_INPUT): S.INPUT_REQUIRED,
    (S.INPUT_REQUIRED, E.RESUME): S.WORKING,
    (S.WORKING, E.COMPLETE): S.COMPLETED,
    (S.INPUT_REQUIRED, E.COMPLETE): S.COMPLETED,
    (S.WORKING, E.FAIL): S.FAILED,
    (S.INPUT_REQUIRED, E.FAIL): S.FAILED,
    (S.WORKING, E.CANCEL): S.CANCELED,
    (S.INPUT_REQUIRED, E.CANCEL): S.CANCELED,
}
TERMINAL = frozenset({S.COMPLETED, S.FAILED, S.CANCELED})
IN_FLIGHT = frozenset({S.WORKING, S.INPUT_REQUIRED})
OUTCOME_EVENTS = {S.COMPLETED: E.COMPLETE, S.FAILED: E.FAIL, S.CANCELED: E.CANCEL}


@dataclass(frozen=True)
class QueuedPrompt:
    id: str
    author: str
    text: str
    target: Target | None
    state: TaskState
    submitted_at: float
    started_at: float | None = None
    finished_at: float | None = None
    chips: tuple[Chip, ...] = ()  # what the author pointed at, expanded when the turn starts
    attachments: tuple[Attachment, ...] = ()  # images and repository files, read at the start
    #: A side thread's changes this turn applies (`threads/`): the room does it, not the agent.
    applies_thread: str | None = None


def check_withdraw_prompt(prompt: QueuedPrompt) -> None:
    """Raise unless `prompt` can be withdrawn as it is (it still waits): the queue's rule, also
    for a finished prompt the room read back from the transcript. Who may withdraw it is
    `access/rules.py`'s `may_withdraw`, asked before this."""
    if prompt.state is not S.SUBMITTED:
        raise Conflict(
            f"This prompt is {prompt.state.value}; only waiting prompts can be withdrawn "
            "(a host can abort the running one).",
            code="not_pending",
        )


class PromptQueue:
    def __init__(self) -> None:
        self._prompts: dict[str, QueuedPrompt] = {}  # the open ones
        # Indexes over _prompts, kept by _move: the waiting ids in order (a dict as ordered set)
        # and the one in flight, so long transcripts replay in linear time.
        self._waiting: dict[str, None] = {}
        self._running: str | None = None

    # -- reading ---------------------------------------------------------------------------------

    def get(self, prompt_id: str) -> QueuedPrompt:
        """An open prompt; NotFound for one that finished (or never was)."""
        try:
            return self._prompts[prompt_id]
        except KeyError:
            raise NotFound(f"There is no prompt {prompt_id!r}.", code="prompt_not_found") from None

    @property
    def in_flight(self) -> QueuedPrompt | None:
        return None if self._running is None else self._prompts[self._running]

    def open(self) -> Iterator[QueuedPrompt]:
        """Prompts not finished yet, the running one first, then the waiting ones in order."""
        if self._running is not None:
            yield self._prompts[self._running]
        yield from (self._prompts[prompt_id] for prompt_id in self._waiting)

    def waiting_by(self, author: str) -> int:
        """How many prompts of this author wait to start."""
        return sum(self._prompts[prompt_id].author == author for prompt_id in self._waiting)

    def position(self, prompt_id: str) -> int:
        """How many open prompts are ahead of this one (the running one included)."""
        for index, prompt in enumerate(self.open()):
            if prompt.id == prompt_id:
                return index
        raise Conflict(f"Prompt {prompt_id!r} is no longer queued.", code="prompt_finished")

    # -- changing --------------------------------------------------------------------------------

    def submit(
        self,
        prompt_id: str,
        author: str,
        text: str,
        target: Target | None,
        now: float,
        chips: Sequence[Chip] = (),
        attachments: Sequence[Attachment] = (),
        applies_thread: str | None = None,
    ) -> QueuedPrompt:
        """Queue a prompt. Only open prompts' ids are checked for duplicates (finished ones are
        forgotten), which is enough: ids are made by the server (uuid4), never by a client."""
        if prompt_id in self._prompts:
            raise Conflict(f"A prompt with id {prompt_id!r} exists already.", code="duplicate_id")
        prompt = QueuedPrompt(
            prompt_id,
            author,
            text,
            target,
            S.SUBMITTED,
            submitted_at=now,
            chips=tuple(chips),
            attachments=tuple(attachments),
            applies_thread=applies_thread,
        )
        self._prompts[prompt_id] = prompt
        self._waiting[prompt_id] = None
        return prompt

    def check_withdraw(self, prompt_id: str) -> QueuedPrompt:
        """The prompt, if it can be withdrawn now; raises (changing nothing) when it cannot."""
        prompt = self.get(prompt_id)
        check_withdraw_prompt(prompt)
        return prompt

    def withdraw(self, prompt_id: str, now: float) -> QueuedPrompt:
        """Withdraw a waiting prompt: returned canceled, and forgotten."""
        prompt = self.check_withdraw(prompt_id)
        return self._move(prompt, E.WITHDRAW, finished_at=now)

    def next_up(self) -> QueuedPrompt | None:
        """The prompt `start_next` would start now (the oldest waiting, if none is in flight)."""
        if self._running is not None or not self._waiting:
            return None
        return self._prompts[next(iter(self._waiting))]

    def start_next(self, now: float) -> QueuedPrompt | None:
        """Start the oldest waiting prompt, unless one is already in flight."""
        prompt = self.next_up()
        return None if prompt is None else self._move(prompt, E.START, started_at=now)

    def need_input(self, prompt_id: str) -> QueuedPrompt:
        return self._move(self.get(prompt_id), E.NEED_INPUT)

    def resume(self, prompt_id: str) -> QueuedPrompt:
        return self._move(self.get(prompt_id), E.RESUME)

    def finish(self, prompt_id: str, outcome: TaskState, now: float) -> QueuedPrompt:
        """End the prompt in flight: returned in its final state, and forgotten."""
        if outcome not in OUTCOME_EVENTS:
            raise ValueError(f"{outcome} is not a final state")
        return self._move(self.get(prompt_id), OUTCOME_EVENTS[outcome], finished_at=now)

    def _move(self, prompt: QueuedPrompt, event: Event, **times: Any) -> QueuedPrompt:
        new_state = TRANSITIONS.get((prompt.state, event))
        if new_state is None:
            raise Conflict(
                f"Prompt {prompt.id!r} is {prompt.state.value}; it cannot {event.value}.",
                code="invalid_transition",
            )
        moved = replace(prompt, state=new_state, **times)
        if new_state in TERMINAL:
            del self._prompts[prompt.id]
        else:
            self._prompts[prompt.id] = moved
        self._waiting.pop(prompt.id, None)
        if new_state in IN_FLIGHT:
            self._running = prompt.id
        elif self._running == prompt.id:
            self._running = None
        return moved
