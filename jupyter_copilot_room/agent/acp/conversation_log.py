"""What an ACP agent's session was told and answered, turn by turn, kept beside the session in
the room's state (`agents/<name>/conversation.jsonl`). ACP offers no fork of a session (the
agents probed here have none), so a side thread's agent starts a new session primed with this
conversation up to the thread's fork point: `AcpAgent.fork` writes the primer into the thread's
state, and the thread's first prompt carries it. A session the agent could not load again after a
restart is replaced the same way, primed with the whole conversation."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

#: The primer a forked agent's first prompt carries, in its state folder (taken once used).
PRIMER = "primer.txt"


class ConversationLog:
    def __init__(self, folder: Path):
        self.path = folder / "conversation.jsonl"

    def add(self, prompt_id: str, said: str, replied: str) -> None:
        """One turn: the prompt as the agent read it (attributed) and its reply."""
        line = {"prompt_id": prompt_id, "said": said, "replied": replied}
        with self.path.open("a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")

    def turns(self) -> list[dict]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def primer(self, later: Sequence[str], why: str = "a side thread forked it") -> str:
        """The conversation before the first turn of `later` that reached the agent (all of it
        when none did), as a new session's first prompt carries it; `why` a new session."""
        turns, later_ids = self.turns(), set(later)
        cut = next((n for n, t in enumerate(turns) if t["prompt_id"] in later_ids), len(turns))
        said = "\n\n".join(f"{t['said']}\n\nYou answered:\n{t['replied']}" for t in turns[:cut])
        return (
            "<room_history>\nThis session continues the room's conversation as it was up to "
            f"here ({why}):\n\n{said}\n</room_history>"
            if said
            else ""
        )
