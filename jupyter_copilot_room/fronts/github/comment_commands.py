"""What a person's pull request comment asks of the room, read from its first line: a task for
the agent (`@<name> ...`, on a task with `@<name> task <id>: ...`) or an answer to a card
(`/approve [id]`, `/reject [id] [reason]`). Only prose asks: a first line that is quoted (`>`),
fenced, inline or indented code asks nothing, as GitHub notifies no mention there. Pure: no
GitHub, no room."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Mention:
    """`@<name> ...`: a new task, or more for the task `task` (its text then follows the id)."""

    text: str
    task: str | None = None


@dataclass(frozen=True)
class CardAnswer:
    """`/approve` or `/reject` on a card, of the task `task` when the comment names one."""

    approve: bool
    task: str | None = None
    reason: str | None = None


#: A task's id is `t<n>`; a mention may name it `task 3` too.
_TASK_ID = r"t\d{1,9}"


def read_comment(body: str, name: str) -> Mention | CardAnswer | None:
    """What the comment asks (None: nothing the room acts on). `name` is the room's agent as its
    card names it; a mention is a whole word (`@copilot-roomy` does not mention `copilot-room`)."""
    lines = _without_quotes(body).splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or _indented_code(lines[0]):
        return None  # code shown, not said (fenced and inline code fail the patterns below)
    first, rest = lines[0].strip(), "\n".join(lines[1:])
    answer = re.fullmatch(rf"/(approve|reject)\b(?:\s+({_TASK_ID})\b)?\s*(.*)", first, re.I)
    if answer is not None:
        verb, task, reason = answer.groups()
        approve = verb.lower() == "approve"
        words = "" if approve else _joined(reason, rest)
        return CardAnswer(approve, task.lower() if task else None, words or None)
    mention = re.match(rf"@{re.escape(name)}(?![\w-])[:,]?\s*(.*)", first, re.I | re.S)
    if mention is None:
        return None
    said = mention.group(1)
    on_task = re.match(r"task\s+t?(\d{1,9})\s*:\s*(.*)", said, re.I | re.S)
    if on_task is not None:
        return Mention(_joined(on_task.group(2), rest), f"t{on_task.group(1)}")
    return Mention(_joined(said, rest))


def _joined(first: str, rest: str) -> str:
    return "\n".join(part for part in (first.strip(), rest.strip()) if part)


def _indented_code(line: str) -> bool:
    """A line that opens an indented code block: four columns in, as CommonMark counts (a
    tab to the next stop of four)."""
    text = line.expandtabs(4)
    return len(text) - len(text.lstrip(" ")) >= 4


def _without_quotes(body: str) -> str:
    """The comment without the lines it quotes (`> ...`), which are someone else's words."""
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">"))
