"""What a turn's records show in the document: the queue and the prompt's entry, replies as they
stream and end, tools and sub-agents, the agent's cards (with who may answer them, from
`access/rules.py`), usage and today's sums, checkpoints.

Each handler is registered for its record kind (`registry.handles`) and changes the document
only through `RoomDocument`'s methods for handlers; a turn's end closes every row it left open.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pycrdt import Map, Text

from .... import events as ev
from ....access import rules
from ....events import AGENT_AUTHOR, Record
from ...budgets import budget_caps
from .registry import handles

if TYPE_CHECKING:
    from ..document import RoomDocument


@handles("prompt.submitted")
def prompt_submitted(doc: RoomDocument, record: Record, p: ev.PromptSubmitted) -> None:
    item = Map(
        {
            "id": p.id,
            "author": record.actor,
            "text": p.text,
            "target": p.target.model_dump() if p.target else None,
            "state": "submitted",
            "submitted_at": record.ts,
            # A kernel's or a front's prompt (`slack`...) has one; a panel's has none.
            **({"origin": p.origin} if p.origin else {}),
            **({"thread": p.thread} if p.thread else {}),  # brought back from a side thread
            # Where a front took it from (a pull request's comment): the panel links to it.
            **({"link": p.link} if p.link else {}),
            # What the author pointed at, as everyone sees it: an image's bytes stay in the
            # transcript (`chips` of the record) and out of every client's document.
            **({"chips": [_chip(c) for c in p.chips]} if p.chips else {}),
            # Images by id (the panel fetches `GET attachments/<id>`), files by path.
            **(
                {"attachments": [a.model_dump(exclude_none=True) for a in p.attachments]}
                if p.attachments
                else {}
            ),
        }
    )
    doc.add_queue_item(p.id, item)


@handles("prompt.withdrawn")
def prompt_withdrawn(doc: RoomDocument, record: Record, p: ev.PromptRef) -> None:
    item = doc.queue_item(p.id)
    if item is not None and item["author"] != record.actor:
        doc.say(record, "{0} withdrew {1}'s prompt.", record.actor, item["author"])
    elif item is not None:  # the queue shows it no more: a line says why
        doc.say(record, "{0} withdrew their prompt.", record.actor)
    doc.drop_queue_item(p.id)


@handles("prompt.started")
def prompt_started(doc: RoomDocument, record: Record, p: ev.PromptRef) -> None:
    item = doc.queue_item(p.id)
    assert item is not None, f"prompt {p.id} started but never submitted"
    doc.turn_started(p.id)
    item["state"] = "working"
    item["started_at"] = record.ts
    doc.add_entry(
        record,
        p.id,
        "prompt",
        item["author"],
        body=item["text"],
        target=item.get("target"),
        state="working",
        **({"origin": origin} if (origin := item.get("origin")) else {}),
        **({"thread": thread} if (thread := item.get("thread")) else {}),
        **({"link": link} if (link := item.get("link")) else {}),
        **({"chips": chips} if (chips := item.get("chips")) else {}),
        **({"attachments": a} if (a := item.get("attachments")) else {}),
    )
    doc.meta["turn_owner"] = item["author"]
    doc.meta["turn_prompt"] = p.id


@handles("prompt.finished")
def prompt_finished(doc: RoomDocument, record: Record, p: ev.PromptFinished) -> None:
    doc.turn_ended(p.id)
    doc.drop_queue_item(p.id)
    if (entry := doc.entry(p.id)) is not None:
        entry["state"] = p.state
    doc.close_rows(p.id)
    if (line := p.end_line(doc.errors_said(p.id))) is not None:
        doc.system(record, line)
    if doc.meta.get("turn_prompt") == p.id:
        doc.meta["turn_owner"] = None
        doc.meta["turn_prompt"] = None


@handles("assistant.started")
def assistant_started(doc: RoomDocument, record: Record, p: ev.AssistantStarted) -> None:
    doc.add_entry(
        record,
        p.entry_id,
        p.kind,
        AGENT_AUTHOR,
        body="",
        prompt_id=p.prompt_id,
        state="streaming",
        **({"agent": p.agent} if p.agent else {}),
    )
    doc.open_row(p.entry_id, p.prompt_id)


@handles("assistant.message")
def assistant_message(doc: RoomDocument, record: Record, p: ev.AssistantMessage) -> None:
    if p.retried:  # an attempt the model call made again: its next attempt is the reply
        doc.drop_entry(p.entry_id)
        return
    entry = doc.entry(p.entry_id)
    if entry is None:
        entry = doc.add_entry(
            record,
            p.entry_id,
            p.kind,
            AGENT_AUTHOR,
            body="",
            prompt_id=p.prompt_id,
        )
    body: Text = entry["body"]
    text = str(body)
    if text != p.text:
        if p.text.startswith(text):
            body.insert(len(text), p.text[len(text) :])
        else:  # the runtime's final text differs from what streamed: the record wins
            del body[:]
            body.insert(0, p.text)
    entry["state"] = "partial" if p.partial else "done"
    doc.close_row(p.entry_id)


@handles("tool.started")
def tool_started(doc: RoomDocument, record: Record, p: ev.ToolStarted) -> None:
    doc.add_entry(
        record,
        p.call_id,
        "tool",
        AGENT_AUTHOR,
        body="",
        prompt_id=p.prompt_id,
        tool=p.tool,
        summary=p.summary,
        arguments=p.arguments,
        state="running",
    )
    doc.open_row(p.call_id, p.prompt_id or "")


@handles("tool.completed")
def tool_completed(doc: RoomDocument, record: Record, p: ev.ToolCompleted) -> None:
    doc.close_row(p.call_id)
    if (entry := doc.entry(p.call_id)) is None:
        return  # evicted: only finished entries are, so its archived form is final
    if p.success or entry.get("state") != "declined":
        entry["state"] = "success" if p.success else "error"
    entry["result"] = p.result
    entry["duration"] = p.duration


@handles("plan.updated")
def plan_updated(doc: RoomDocument, record: Record, p: ev.PlanUpdated) -> None:
    steps = [step.model_dump() for step in p.steps]
    if (entry := doc.entry(p.entry_id)) is not None:
        entry["steps"] = steps  # the turn's one plan entry shows the latest
        return
    doc.add_entry(
        record, p.entry_id, "plan", AGENT_AUTHOR, body="", prompt_id=p.prompt_id, steps=steps
    )


@handles("subagent.started")
def subagent_started(doc: RoomDocument, record: Record, p: ev.SubagentStarted) -> None:
    doc.add_entry(
        record,
        p.call_id,
        "subagent",
        AGENT_AUTHOR,
        body=p.description,
        prompt_id=p.prompt_id,
        name=p.name,
        state="running",
    )
    doc.open_row(p.call_id, p.prompt_id or "")


@handles("subagent.ended")
def subagent_ended(doc: RoomDocument, record: Record, p: ev.SubagentEnded) -> None:
    if (entry := doc.entry(p.call_id)) is not None:
        entry["state"] = "error" if p.error else "success"
        entry["error"] = p.error
    doc.close_row(p.call_id)


@handles("usage")
def usage(doc: RoomDocument, record: Record, p: ev.TurnUsage) -> None:
    # Credits only where the runtime reported any: a record from before 0.3 replays as it was.
    credits = {"ai_credits": p.ai_credits} if p.ai_credits is not None else {}
    if p.prompt_id is not None and (entry := doc.entry(p.prompt_id)) is not None:
        entry["usage"] = {
            "model": p.model,
            "input_tokens": p.input_tokens,
            "output_tokens": p.output_tokens,
            "model_calls": p.model_calls,
            "premium_requests": p.premium_requests,
            **credits,
        }
    # Today's sums (budgets.py reads them): per author and for the room, from the records.
    usage = _usage_of(doc, budget_caps.day_of(record.ts))
    if usage is None:
        return
    spent = {
        "premium_requests": p.premium_requests,
        **credits,
        "input_tokens": p.input_tokens,
        "output_tokens": p.output_tokens,
        "turns": 1,
    }
    usage["room"] = _summed(usage["room"], spent)
    if p.author is not None:
        usage["people"][p.author] = _summed(usage["people"].get(p.author, {}), spent)
    doc.meta["usage"] = usage


@handles("budget.lifted")
def budget_lifted(doc: RoomDocument, record: Record, p: ev.BudgetLift) -> None:
    if (usage := _usage_of(doc, p.day)) is not None and p.username not in usage["lifted"]:
        usage["lifted"] = [*usage["lifted"], p.username]
        doc.meta["usage"] = usage
    doc.say(
        record,
        "{0} lifted the daily cap of {1} for " + p.day + " (UTC).",
        record.actor,
        p.username,
    )


def _usage_of(doc: RoomDocument, day: str) -> dict[str, Any] | None:
    """A copy of `meta.usage` to change for `day` (fresh on a new day); None for a day
    already past."""
    current = doc.meta.get("usage")
    if current is None or current["day"] < day:
        return budget_caps.empty(day)
    if current["day"] > day:
        return None
    return json.loads(json.dumps(current))


@handles("agent.ready")
def agent_ready(doc: RoomDocument, record: Record, p: ev.AgentReady) -> None:
    detail = f" {p.detail}" if p.detail else ""
    label = p.label.removesuffix(".")  # a label may be a sentence of its own
    doc.system(record, f"The agent is ready: {label}.{detail}")


@handles("agent.error")
def agent_error(doc: RoomDocument, record: Record, p: ev.AgentError) -> None:
    doc.add_entry(
        record,
        f"r{record.seq}",
        "error",
        AGENT_AUTHOR,
        body=p.message,
        prompt_id=p.prompt_id,
    )


@handles("request.opened")
def request_opened(doc: RoomDocument, record: Record, p: ev.RequestOpened) -> None:
    fields = {
        "kind": p.kind,
        "summary": p.summary,
        "details": p.details,
        "prompt_id": p.prompt_id,
        "author": p.author,
        "deadline": p.deadline,
        "choices": p.choices,
        "allow_freeform": p.allow_freeform,
        "state": "pending",
        "answered_by": None,
        "answerers": rules.request_answerers(p.author, p.approvers_needed, kind=p.kind),
    }
    if p.approvers_needed > 1:  # the policy wants two approvers: the card counts them
        fields |= {"approvers_needed": p.approvers_needed, "approvers": []}
    if p.rule is not None:
        fields["rule"] = p.rule
    if p.call_id is not None:  # the tool row it is for: refused, that row says so
        fields["call_id"] = p.call_id
    if p.agent is not None:  # who asks, when not the room's own Copilot
        fields["agent"] = p.agent
    doc.approvals[p.id] = Map(dict(fields))
    entry_kind = "question" if p.kind == "question" else "permission"
    extra = {k: v for k, v in fields.items() if k not in ("kind", "summary", "author")}
    doc.add_entry(
        record,
        p.id,
        entry_kind,
        AGENT_AUTHOR,
        body=p.summary,
        request_kind=p.kind,
        prompt_author=p.author,
        **extra,
    )


@handles("request.settled")
def request_settled(doc: RoomDocument, record: Record, p: ev.RequestSettled) -> None:
    if p.id in doc.approvals:
        del doc.approvals[p.id]
    if (entry := doc.entry(p.id)) is None:
        return  # evicted (see _on_tool_completed)
    entry["state"] = p.outcome
    entry["answered_by"] = record.actor
    tool = doc.entry(call_id) if (call_id := entry.get("call_id")) else None
    if tool is not None and p.outcome in ("rejected", "timed_out"):
        tool["state"] = "declined"  # not run: the runtime's failure that follows is no failure
        doc.close_row(tool["id"])
    entry["answerers"] = rules.request_answerers(
        entry.get("prompt_author") or "", approvals=p.approvers or (), open_=False
    )
    if p.feedback is not None:
        entry["feedback"] = p.feedback
    if p.answer is not None:
        entry["answer"] = p.answer
    if p.approvers:
        entry["approvers"] = p.approvers
    if p.rule is not None:
        entry["rule"] = p.rule


@handles("request.approval")
def request_approval(doc: RoomDocument, record: Record, p: ev.RequestApproval) -> None:
    """One of two approvals: the card shows who approved and still waits."""
    for card in (doc.approvals.get(p.id), doc.entry(p.id)):
        if card is not None:
            card["approvers"] = p.approvers
            needed = int(card.get("approvers_needed") or 1)
            author = card.get("author") or card.get("prompt_author") or ""
            kind = card.get("kind") or card.get("request_kind") or ""
            card["answerers"] = rules.request_answerers(author, needed, p.approvers, kind=kind)


@handles("turn.checkpointed")
def turn_checkpointed(doc: RoomDocument, record: Record, p: ev.TurnCheckpointed) -> None:
    """ "Changed N files" on the turn's prompt, with the commit to diff or revert."""
    if (entry := doc.entry(p.prompt_id)) is not None:
        entry["checkpoint"] = {
            "commit": p.commit,
            "files": list(p.files),
            **({"unnamed": list(p.unnamed)} if p.unnamed else {}),
        }


@handles("turn.reverted")
def turn_reverted(doc: RoomDocument, record: Record, p: ev.TurnReverted) -> None:
    count = f"{len(p.files)} file{'s' if len(p.files) != 1 else ''}"
    said = doc.say(
        record, "{0} reverted {1}'s turn (" + count + " restored).", record.actor, p.author
    )
    said["checkpoint"] = {"commit": p.commit, "files": list(p.files)}
    if (entry := doc.entry(p.prompt_id)) is not None:
        entry["reverted_by"] = record.actor


def _summed(sums: dict[str, Any], spent: dict[str, Any]) -> dict[str, Any]:
    """`sums` plus `spent`; a unit `spent` lacks (credits, on a provider's turn) stays."""
    return {**sums, **{key: sums.get(key, 0) + value for key, value in spent.items()}}


def _chip(chip: ev.Chip) -> dict[str, Any]:
    """A context chip as the document shows it: what it names; an image only by type and size."""
    shown = chip.model_dump(exclude={"data", "text"}, exclude_none=True)
    if chip.data is not None:
        shown["bytes"] = len(chip.data) * 3 // 4 - chip.data[-2:].count("=")
    if chip.text is not None:
        shown["chars"] = len(chip.text)
    return shown
