"""Where a thread forks: right after the turn of a finished prompt (the latest finished one when
none is named), read from the room's transcript, the record of what ran in which order. The
agent cuts its session before the first later turn it was sent (`Agent.fork`)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..errors import InvalidRequest
from ..events.consumers import reads

#: Where a side thread forks: a finished turn (`events/consumers.py`).
RECORDS = reads("fork_point", handles=["prompt.submitted", "prompt.started", "prompt.finished"])


@dataclass(frozen=True)
class ForkPoint:
    after: str | None  # the prompt whose turn is the thread's last (None: no turn yet)
    later: list[str]  # the prompts that started after it, in order
    asked: tuple[str, str] | None = None  # who asked `after`, and what


def fork_point(transcript: str, after: str | None) -> ForkPoint:
    """From the room's transcript text: a 400 for a prompt unknown or not finished."""
    started: list[str] = []
    finished: set[str] = set()
    submitted: dict[str, tuple[str, str]] = {}
    for line in transcript.split("\n"):
        if '"prompt.' not in line:
            continue
        record = json.loads(line)
        prompt_id = record.get("payload", {}).get("id")
        match record.get("kind"):
            case "prompt.submitted":
                submitted[prompt_id] = (
                    record.get("actor") or "",
                    record["payload"].get("text", ""),
                )
            case "prompt.started":
                started.append(prompt_id)
            case "prompt.finished":
                finished.add(prompt_id)
    if after is None:
        done = [prompt_id for prompt_id in started if prompt_id in finished]
        after = done[-1] if done else None
    elif after not in submitted:
        raise InvalidRequest(f"This room has no prompt {after!r}.", code="unknown_prompt")
    elif after not in started or after not in finished:
        raise InvalidRequest(
            "A thread forks after a finished turn: this prompt's turn has not run to its end.",
            code="prompt_not_finished",
        )
    later = started[started.index(after) + 1 :] if after is not None else started
    return ForkPoint(after, later, submitted.get(after) if after is not None else None)
