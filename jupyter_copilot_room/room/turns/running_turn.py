"""The prompt in flight and how it is being stopped: one `RunningTurn` at a time, with at most one
`Stop` (a host's abort, its deadline, a full disk), so whatever stops a turn settles its open
requests once, with the real reason; the words of the ends the agent did not choose."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from ...events import AgentStatus
from .queue import QueuedPrompt, TaskState

LOST_RUNTIME = (
    "{what} during this turn, so the turn failed; it was not re-run. "
    "Submit it again if it is still needed."
)


def lost_turn(status: AgentStatus) -> str:
    """The words of a turn its agent's death ended: what stopped (as the agent said it)."""
    return LOST_RUNTIME.format(what=status.error or "The Copilot runtime stopped")


DISK_FULL = (
    "The server's disk filled up during this turn, so the room could not record what the agent "
    "did and stopped the turn; it was not re-run. Submit it again if it is still needed."
)


@dataclass(frozen=True)
class Stop:
    """Why the running turn is being stopped, and how it will be recorded when it ends."""

    outcome: TaskState  # CANCELED (a host aborted it) or FAILED (its deadline passed)
    reason: str
    announced: bool = False  # its own record (`abort`) told people; the turn's end repeats nothing


@dataclass
class RunningTurn:
    prompt: QueuedPrompt
    timer: asyncio.TimerHandle | None = None
    stop: Stop | None = None
    ended: asyncio.Event = field(default_factory=asyncio.Event)
    #: Files the agent wrote itself (approved write requests), relative to the repository: a
    #: notebook among them is the agent's change whole (`notebooks/turn_share.py`).
    wrote: set[str] = field(default_factory=set)
    #: The agent ran a shell command or a notebook cell: a file it did not name may be its change.
    ran_code: bool = False
