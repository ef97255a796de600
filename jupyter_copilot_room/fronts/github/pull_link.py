"""What a room's link to a pull request keeps across restarts, in `<state_dir>/github/<room>.json`
(written atomically): the pull request, the card's comment, the comments already handled, the
tasks with the Messages not yet posted, and how far into the transcript the tasks have read.

A comment is acted on once, in the version it was acted on: then it is done for good (`handled`,
with the room's own and those made before the link), while one the room passed over is kept with
the version heard (`passed`, its `updated_at`), so an edit that makes it ask something is acted on,
once, and an older version delivered late is not. GitHub's redeliveries and the polls that list
the same comment again change nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ...statefiles import read_json, write_json_atomically
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
    handled: set[int] = field(default_factory=set)  # comments done with: no edit is read
    passed: dict[int, str] = field(default_factory=dict)  # comment -> the version passed over
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
            passed={int(k): v for k, v in data.get("passed", {}).items()},
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
                "passed": {str(k): v for k, v in sorted(self.passed.items())},
                "tasks": [task.as_dict() for task in self.tasks.values()],
                "outbox": [vars(o) for o in self.outbox],
                "seq": self.seq,
            },
        )

    def is_new(self, comment: dict) -> bool:
        """Whether `comment` is one to read: not done with, and not older than the version
        passed over (an edit is later; a version brought late, after a newer one, is older).
        The same version again reads as it did, unless its body changed under the same time."""
        if comment["id"] in self.handled:
            return False
        heard = self.passed.get(comment["id"])
        return heard is None or _when(comment.get("updated_at")) >= _when(heard)

    def handle(self, comment: dict) -> None:
        """`comment` is done with: acted on, or never to be (edits included)."""
        self.handled.add(comment["id"])
        self.passed.pop(comment["id"], None)

    def pass_over(self, comment: dict) -> bool:
        """`comment` asks nothing as it is now; a later version is read again. Whether that is
        news (to save)."""
        version = comment.get("updated_at") or ""
        news = self.passed.get(comment["id"]) != version
        self.passed[comment["id"]] = version
        return news

    def new_task(self, owner: str, comment: int | None = None) -> Task:
        task = Task(id=f"t{len(self.tasks) + 1}", owner=owner, last_author=owner, comment=comment)
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

    def task_asked_by(self, comment: int) -> Task | None:
        return next((t for t in self.tasks.values() if t.comment == comment), None)

    def waiting(self) -> list[Task]:
        return [t for t in self.tasks.values() if t.state == "input-required"]


def _when(stamp: str | None) -> datetime:
    """GitHub's `updated_at` (`2026-12-07T21:17:20Z`); the earliest time when it has none."""
    try:
        when = datetime.fromisoformat(stamp or "")
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)
