"""The prompt in flight and how it is being stopped: one `RunningTurn` at a time, with at most one
`Stop` (a host's abort, its deadline, a full disk), so whatever stops a turn settles its open
requests once, with the real reason."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from .queue import QueuedPrompt, TaskState


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
