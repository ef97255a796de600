"""The transcript as a notebook or as Markdown, for people to keep and share
(`GET transcript?format=ipynb|md`).

Built from the transcript's records (the audit trail), not from the document, so an export holds
the whole room, also what left the live window. Prompts, replies, chat and steering messages
become Markdown with their author and time; the commands the agent ran (a tool call with a
`command` argument: the runtime's shell) become Markdown too, the command and its output as
recorded in fenced blocks: a record of what ran, never a cell that runs it again on a keystroke;
other tool calls, permission requests and questions with their answers, withdrawn prompts,
reverted turns, aborts and errors become short notes. Times are the reader's (the time zone the
panel names), as the panel shows them. Opening an export fetches nothing: remote images and the
like are left out, with a word saying so (`remote_resources.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any, Literal
from zoneinfo import ZoneInfo

import nbformat
from nbformat import v4

from . import events as ev
from .access import approval_policy
from .events import AGENT_AUTHOR, Record
from .events.consumers import rebuilds
from .remote_resources import without_remote_resources

#: What an export shows (`events/consumers.py`).
RECORDS = rebuilds(
    "export",
    handles=[
        "prompt.submitted",
        "prompt.withdrawn",
        "prompt.started",
        "prompt.finished",
        "assistant.message",
        "tool.started",
        "tool.completed",
        "plan.updated",
        "agent.error",
        "request.opened",
        "request.settled",
        "abort",
        "person.seen",
        "chat.message",
        "prompt.steered",
        "turn.reverted",
    ],
    ignores=[
        "assistant.started",
        "subagent.started",
        "subagent.ended",
        "usage",
        "agent.ready",
        "request.approval",
        "admission.decided",
        "role.changed",
        "person.removed",
        "host.claimed",
        "settings.changed",
        "system",
        "model.changed",
        "budget.lifted",
        "turn.checkpointed",
        "copilot.signed_in",
        "copilot.signed_out",
        "room.created",
    ],
)

Format = Literal["ipynb", "md", "jsonl"]
FORMATS: tuple[Format, ...] = ("ipynb", "md", "jsonl")
MEDIA_TYPES: dict[Format, str] = {
    "ipynb": "application/x-ipynb+json",
    "md": "text/markdown; charset=utf-8",
    "jsonl": "application/jsonl; charset=utf-8",
}

#: What a settled request says happened, after "Copilot asked to ...".
_OUTCOMES = {
    "approved": "approved by {0}",
    "rejected": "rejected by {0}",
    "answered": "answered by {0}",
    "timed_out": "nobody answered in time: rejected",
    "aborted": "cancelled (the turn stopped)",
}


@dataclass
class Block:
    """One cell of the export: Markdown, or a command with its output."""

    kind: Literal["markdown", "command"]
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    output: str | None = None  # a command's output, once it completed
    failed: bool = False


def zone(name: str | None) -> tzinfo:
    """The time zone an IANA name (`Europe/Paris`) names; UTC when none is given. Raises
    ValueError for a name that is not one (`tzdata` brings every zone, also without the
    system's)."""
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError) as error:  # unknown (a KeyError), malformed, unreadable
        raise ValueError(f"{name[:60]!r} is not a time zone") from error


def filename(fmt: Format, now: float, tz: tzinfo = UTC) -> str:
    stamp = datetime.fromtimestamp(now, tz).strftime("%Y%m%d-%H%M%S")
    return f"copilot-room-{stamp}.{fmt}"


def parse(text: str) -> list[tuple[Record, ev.Strict]]:
    """The records of a transcript's text; a line that is not a valid record is left out."""
    records = []
    for line in text.split("\n"):  # only "\n": a record's text may hold U+2028 and the like
        if not line.strip():
            continue
        try:
            record = Record.model_validate_json(line)
            records.append((record, record.parsed()))
        except ValueError:
            continue
    return records


def blocks(records: Iterable[tuple[Record, ev.Strict]], tz: tzinfo = UTC) -> list[Block]:
    """The transcript as the cells an export shows, in the order things happened."""
    names: dict[str, str] = {}
    prompts: dict[str, tuple[Record, ev.PromptSubmitted]] = {}
    commands: dict[str, Block] = {}
    requests: dict[str, tuple[ev.RequestOpened, Block]] = {}
    plans: dict[str, Block] = {}  # each turn's plan, where it first showed, as it ended
    errors: dict[str, set[str]] = {}  # what the agent reported on each running turn
    out: list[Block] = []

    def who(username: str | None) -> str:
        return _escape(names.get(username or "", username or "someone"))

    def said(record: Record, kind: str, heading: str, text: str, **more: Any) -> None:
        meta = {"kind": kind, "author": record.actor or AGENT_AUTHOR, "ts": record.ts, **more}
        out.append(Block("markdown", f"{heading} · {_time(record.ts, tz)}\n\n{text}", meta))

    def note(record: Record, text: str) -> Block:
        out.append(Block("markdown", f"*{text}*", {"kind": "note", "ts": record.ts}))
        return out[-1]

    for record, p in records:
        match p:
            case ev.PersonSeen():
                names[p.username] = p.display_name or p.username
            case ev.PromptSubmitted():
                prompts[p.id] = (record, p)
            case ev.PromptRef() if record.kind == "prompt.started" and p.id in prompts:
                asked, prompt = prompts.pop(p.id)
                target = f" ({_target(prompt.target)})" if prompt.target else ""
                attached = [a.name or a.path or a.kind for a in prompt.attachments or ()]
                more = f"\n\n*Attached: {', '.join(attached)}*" if attached else ""
                heading = f"**{who(asked.actor)}** asked Copilot{target}"
                origin = {"origin": prompt.origin} if prompt.origin else {}  # slack, kernel...
                said(asked, "prompt", heading, prompt.text + more, **origin)
            case ev.PromptRef() if record.kind == "prompt.withdrawn" and p.id in prompts:
                asked, prompt = prompts.pop(p.id)
                whose = "their" if asked.actor == record.actor else f"{who(asked.actor)}'s"
                quoted = _escape(_first_line(prompt.text))
                note(record, f"{who(record.actor)} withdrew {whose} prompt before it ran: {quoted}")
            case ev.PromptRef() if record.kind == "abort":
                note(record, f"{who(record.actor)} aborted the running turn.")
            case ev.TurnReverted():
                files = ", ".join(_code(f) for f in p.files) or "no files"
                whose = f"{who(p.author)}'s"
                note(record, f"{who(record.actor)} reverted {whose} turn: {files} put back.")
            case ev.AssistantMessage() if p.kind == "assistant" and p.text and not p.retried:
                stopped = "\n\n*(The reply stopped here.)*" if p.partial else ""
                said(record, "assistant", "**Copilot**", p.text + stopped)
            case ev.ChatMessage():
                said(record, "chat", f"**{who(record.actor)}** said to the room", p.text)
            case ev.Steering():
                said(record, "steering", f"**{who(record.actor)}** steered the turn", p.text)
            case ev.ToolStarted():
                command = p.arguments.get("command")
                if isinstance(command, str) and command.strip():
                    meta = {"kind": "command", "tool": p.tool, "ts": record.ts}
                    commands[p.call_id] = Block("command", command, meta)
                    out.append(commands[p.call_id])
                else:
                    note(record, f"Copilot used {_code(p.tool)}: {p.summary}")
            case ev.PlanUpdated():
                if (plan := plans.get(p.entry_id)) is None:
                    plan = plans[p.entry_id] = Block(
                        "markdown", "", {"kind": "plan", "ts": record.ts}
                    )
                    out.append(plan)
                plan.text = _plan(p.steps)
            case ev.ToolCompleted() if p.call_id in commands:
                block = commands.pop(p.call_id)
                block.output, block.failed = p.result, not p.success
            case ev.RequestOpened():  # shown where it was asked, with how it ended
                block = note(record, _asked(p) + " (not answered)")
                if len(out) > 1 and any(out[-2] is c for c in commands.values()):
                    out[-2:] = [block, out[-2]]  # the runtime starts a command, then asks
                requests[p.id] = (p, block)
            case ev.RequestSettled() if p.id in requests:
                opened, block = requests.pop(p.id)
                block.text = f"*{_settled(opened, p, who(record.actor))}*"
            case ev.AgentError():
                note(record, f"Error: {p.message}")
                if p.prompt_id is not None:
                    errors.setdefault(p.prompt_id, set()).add(p.message)
            case ev.PromptFinished():
                if (line := p.end_line(errors.pop(p.id, set()))) is not None:
                    note(record, line)
    for block in out:  # a command and its output go in fences of their own (`_markdown`)
        block.text = ev.bidi_shown(block.text)  # what people read never runs backwards
        if block.kind == "markdown":
            block.text = without_remote_resources(block.text)
    return out


def to_notebook(records: Iterable[tuple[Record, ev.Strict]], now: float, tz: tzinfo = UTC) -> str:
    """The transcript as an nbformat 4 notebook (JSON), valid by `nbformat.validate`."""
    cells = [
        v4.new_markdown_cell(_markdown(block, tz), metadata={"copilot_room": block.meta})
        for block in blocks(records, tz)
    ]
    title = f"# Copilot room\n\n*Transcript exported {_time(now, tz)}.*"
    notebook = v4.new_notebook(
        cells=[v4.new_markdown_cell(title), *cells],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            "copilot_room": {"exported_at": now},
        },
    )
    nbformat.validate(notebook)
    return nbformat.writes(notebook)


def to_markdown(records: Iterable[tuple[Record, ev.Strict]], now: float, tz: tzinfo = UTC) -> str:
    """The same content as Markdown: each command a fenced block, its output another."""
    parts = [f"# Copilot room\n\n*Transcript exported {_time(now, tz)}.*"]
    parts += [_markdown(block, tz) for block in blocks(records, tz)]
    return "\n\n".join(parts) + "\n"


def _markdown(block: Block, tz: tzinfo) -> str:
    """A block as Markdown: a command as fenced blocks, shown, never runnable."""
    if block.kind == "markdown":
        return block.text
    ran = f"**Copilot ran** {_code(block.meta.get('tool') or 'a command')}"
    parts = [f"{ran} · {_time(block.meta['ts'], tz)}", _fenced(block.text, "bash")]
    if block.output:
        label = "Error output" if block.failed else "Output"
        parts.append(f"{label}:\n\n{_fenced(block.output, 'text')}")
    return "\n\n".join(parts)


def render(text: str, fmt: Format, now: float, tz: tzinfo = UTC) -> str:
    """A transcript's JSONL text in the format asked for, its times in `tz`."""
    if fmt == "jsonl":
        return text
    records = parse(text)
    return to_notebook(records, now, tz) if fmt == "ipynb" else to_markdown(records, now, tz)


def _asked(opened: ev.RequestOpened) -> str:
    summary = opened.summary
    if hidden := opened.details.get("truncated", {}).get("summary"):  # room/cards/card_content.py
        summary += f"… ({hidden['total'] - hidden['shown']:,} more characters not shown)"
    who = opened.agent or "Copilot"
    if opened.kind == "question":
        return f"{who} asked: {summary}"
    return f"{who} asked to {approval_policy.action(opened.kind)}: {summary}"


def _plan(steps: list[ev.PlanStep]) -> str:
    """The plan as a task list, the step in progress said so."""
    lines = [
        f"- [{'x' if s.status == 'completed' else ' '}] {_escape(s.content)}"
        + (" *(in progress)*" if s.status == "in_progress" else "")
        for s in steps
    ]
    return "**Plan**\n\n" + "\n".join(lines)


def _settled(opened: ev.RequestOpened, settled: ev.RequestSettled, by: str) -> str:
    said = f"{_asked(opened)} ({_OUTCOMES[settled.outcome].format(by)})"
    if settled.answer:
        return f"{said}. Answer: {settled.answer}"
    return said + (f". Feedback: {settled.feedback}" if settled.feedback else "")


def _time(ts: float, tz: tzinfo) -> str:
    return datetime.fromtimestamp(ts, tz).strftime("%Y-%m-%d %H:%M %Z")


def _first_line(text: str, limit: int = 80) -> str:
    whole = text.strip()
    line = whole.split("\n", 1)[0][:limit].rstrip()
    return line if line == whole else line + "…"


def _target(target: ev.Target) -> str:
    return ("/" if target.kind == "skill" else "@") + target.name


def _escape(text: str) -> str:
    """A name as Markdown shows it, never as emphasis, a link or HTML."""
    return re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", text)


def _code(text: str) -> str:
    """Inline code that holds any backticks `text` has."""
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(text: str, language: str) -> str:
    """A fenced block no line of `text` can close early."""
    run = max((len(m) for m in re.findall(r"^\s*(`{3,})", text, re.M)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"
