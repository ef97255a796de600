"""What a room's link to a pull request keeps across restarts, in `<state_dir>/github/<room>.json`
(written atomically): the pull request, the card's comment, the comments already handled, the
tasks with the Messages not yet posted, and how far into the transcript the tasks have read."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..statefiles import read_json, write_json_atomically
from .pull_tasks import Task


@dataclass
class Outgoing:
    """A Message to post (or edit in) for a task: the state and the prose it says, in order."""

    task: str
    state: str
    prose: str


@dataclass
class PullLink:
    file: Path
    number: int
    url: str = ""
    card: int | None = None  # the card's comment
    handled: set[int] = field(default_factory=set)  # comments acted on (or passed over)
    tasks: dict[str, Task] = field(default_factory=dict)
    outbox: list[Outgoing] = field(default_factory=list)
    seq: int = 0  # the last transcript record the tasks read

    @classmethod
    def load(cls, file: Path) -> PullLink | None:
        data = read_json(file)
        if data is None:
            return None
        return cls(
            file=file,
            number=data["number"],
            url=data.get("url", ""),
            card=data.get("card"),
            handled=set(data.get("handled", [])),
            tasks={t["id"]: Task.from_dict(t) for t in data.get("tasks", [])},
            outbox=[Outgoing(**o) for o in data.get("outbox", [])],
            seq=data.get("seq", 0),
        )

    def save(self) -> None:
        write_json_atomically(
            self.file,
            {
                "number": self.number,
                "url": self.url,
                "card": self.card,
                "handled": sorted(self.handled),
                "tasks": [task.as_dict() for task in self.tasks.values()],
                "outbox": [vars(o) for o in self.outbox],
                "seq": self.seq,
            },
        )

    def new_task(self, owner: str) -> Task:
        task = Task(id=f"t{len(self.tasks) + 1}", owner=owner, last_author=owner)
        self.tasks[task.id] = task
        return task

    def task_of_prompt(self, prompt_id: str | None) -> Task | None:
        return next(
            (t for t in self.tasks.values() if prompt_id and t.prompt_id == prompt_id), None
        )

    def task_of_card(self, card_id: str | None) -> Task | None:
        return next((t for t in self.tasks.values() if card_id and t.card == card_id), None)

    def task_in_review(self, root: int | None) -> Task | None:
        return next((t for t in self.tasks.values() if root and t.review_root == root), None)

    def waiting(self) -> list[Task]:
        return [t for t in self.tasks.values() if t.state == "input-required"]
