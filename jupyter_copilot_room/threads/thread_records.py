"""What a room keeps of its threads: `threads.json` in `<room state_dir>/threads/`, written
atomically, one entry per thread ever opened (a closed thread keeps its transcript and entry)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..access import rules
from ..errors import NotFound
from ..statefiles import read_json, write_json_atomically

State = Literal["open", "closed"]


@dataclass
class Thread:
    id: str
    title: str
    owner: str
    #: The prompt whose turn the thread forked after (None: the room had no finished turn).
    forked_after: str | None
    base: str  # the commit the worktree started from: the repository as it was, changes too
    folder: str  # the room's repository inside the worktree (the thread's agent works there)
    created_at: float
    state: State = "open"
    people: list[str] = field(default_factory=list)  # added by the owner or a host

    def may_use(self, username: str) -> bool:
        return username == self.owner or username in self.people

    def listing(self) -> dict:
        """As `GET threads` shows it to everyone admitted to the room."""
        return {
            "id": self.id,
            "title": self.title,
            "owner": self.owner,
            "from": self.forked_after,
            "state": self.state,
            "people": [self.owner, *self.people],
            "created_at": self.created_at,
            "access": rules.thread_access(self.owner, self.people),
        }


class ThreadRecords:
    def __init__(self, folder: Path):
        self.folder = folder
        self.file = folder / "threads.json"
        data = read_json(self.file) or {}
        self._threads = {entry["id"]: Thread(**entry) for entry in data.get("threads", [])}

    def __iter__(self):
        return iter(self._threads.values())

    def get(self, thread_id: str) -> Thread:
        try:
            return self._threads[thread_id]
        except KeyError:
            raise NotFound(
                f"This room has no thread {thread_id!r}.", code="thread_not_found"
            ) from None

    def add(self, thread: Thread) -> None:
        self._threads[thread.id] = thread
        self.save()

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        write_json_atomically(
            self.file, {"threads": [dataclasses.asdict(t) for t in self._threads.values()]}
        )

    def state_dir(self, thread_id: str) -> Path:
        return self.folder / thread_id / "state"

    def worktree(self, thread_id: str) -> Path:
        return self.folder / thread_id / "worktree"
