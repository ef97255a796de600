"""The live room document (pycrdt), and the only code that writes it.

Layout (docs/architecture.md): `meta` Map, `participants` Map of Maps, `queue` Array of Maps,
`transcript` Array of Maps (each with a `body` Text that grows by appending streamed deltas),
`approvals` Map of Maps. A line about people never holds a username in its text: its `body` is a
template (`{0} admitted {1} as a member.`) and `people` the usernames it names, so the panel shows
display names from `participants`, which keeps everyone the room has seen. Everything but
presence and streaming is derived from transcript records by `apply`, through one handler per
record kind (`HANDLERS`), so replaying `transcript.jsonl` into a fresh document rebuilds the same
state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pycrdt import Array, Doc, Map, Text

from .. import events as ev
from ..events import Record

AGENT_AUTHOR = "copilot"


class RoomDocument:
    def __init__(self) -> None:
        self.ydoc: Doc = Doc()
        self.meta = self.ydoc.get("meta", type=Map)
        self.participants = self.ydoc.get("participants", type=Map)
        self.queue = self.ydoc.get("queue", type=Array)
        self.transcript = self.ydoc.get("transcript", type=Array)
        self.approvals = self.ydoc.get("approvals", type=Map)
        # Python-side indexes of the arrays: reading a pycrdt Array by position walks every
        # item ever deleted from it, so lookups go through these instead.
        self._entries: dict[str, Map] = {}
        self._queue_items: dict[str, Map] = {}
        # Rows still open (a tool or sub-agent running, a reply streaming): entry id -> prompt id.
        self._open_rows: dict[str, str] = {}

    def snapshot(self, *roots: str) -> dict[str, Any]:
        """The document (or only the named roots) as plain data, as a client sees it."""
        names = roots or ("meta", "participants", "queue", "transcript", "approvals")
        return {name: getattr(self, name).to_py() for name in names}

    # -- state the room sets directly -------------------------------------------------------------

    def set_meta(self, **values: Any) -> None:
        with self.ydoc.transaction():
            for key, value in values.items():
                if self.meta.get(key) != value:
                    self.meta[key] = value

    def put_participant(self, username: str, **fields: Any) -> None:
        with self.ydoc.transaction():
            person = self.participants.get(username)
            if person is None:
                self.participants[username] = Map(fields)
                return
            for key, value in fields.items():
                if person.get(key) != value:
                    person[key] = value

    def set_prompt_state(self, prompt_id: str, state: str) -> None:
        if (item := self._queue_item(prompt_id)) is not None:
            item["state"] = state

    def stream(self, entry_id: str, delta: str) -> None:
        """Append a streamed delta to an entry's body: an insert at the end, never a rewrite."""
        body: Text = self._entries[entry_id]["body"]
        body.insert(len(body), delta)

    def has_entry(self, entry_id: str) -> bool:
        return entry_id in self._entries

    def display_name(self, username: str) -> str:
        """The name people know `username` by, as the participants list has it."""
        person = self.participants.get(username)
        return (person.get("display_name") if person is not None else None) or username

    def streamed_text(self, entry_id: str) -> str:
        return str(self._entries[entry_id]["body"])

    # -- state derived from records ----------------------------------------------------------------

    def apply(self, record: Record, payload: ev.Strict) -> None:
        with self.ydoc.transaction():
            HANDLERS[record.kind](self, record, payload)

    def _on_prompt_submitted(self, record: Record, p: ev.PromptSubmitted) -> None:
        item = Map(
            {
                "id": p.id,
                "author": record.actor,
                "text": p.text,
                "target": p.target.model_dump() if p.target else None,
                "state": "submitted",
                "submitted_at": record.ts,
            }
        )
        self.queue.append(item)
        self._queue_items[p.id] = item

    def _on_prompt_withdrawn(self, record: Record, p: ev.PromptRef) -> None:
        item = self._queue_item(p.id)
        if item is not None and item["author"] != record.actor:
            self._said(record, "{0} withdrew {1}'s prompt.", record.actor, item["author"])
        self._drop_queue_item(p.id)

    def _on_prompt_started(self, record: Record, p: ev.PromptRef) -> None:
        item = self._queue_items[p.id]
        item["state"] = "working"
        item["started_at"] = record.ts
        self._add_entry(
            p.id,
            "prompt",
            item["author"],
            record.ts,
            body=item["text"],
            target=item.get("target"),
            state="working",
        )
        self.meta["turn_owner"] = item["author"]
        self.meta["turn_prompt"] = p.id

    def _on_prompt_finished(self, record: Record, p: ev.PromptFinished) -> None:
        self._drop_queue_item(p.id)
        if (entry := self._entries.get(p.id)) is not None:
            entry["state"] = p.state
        self._close_rows(p.id)
        # A host's abort said so in its own line (`abort`); its end carries no reason then.
        if p.state != "completed" and (p.reason or p.state != "canceled"):
            self._system(record, p.reason or f"The turn was {p.state}.")
        if self.meta.get("turn_prompt") == p.id:
            self.meta["turn_owner"] = None
            self.meta["turn_prompt"] = None

    def _on_assistant_started(self, record: Record, p: ev.AssistantStarted) -> None:
        self._add_entry(
            p.entry_id,
            p.kind,
            AGENT_AUTHOR,
            record.ts,
            body="",
            prompt_id=p.prompt_id,
            state="streaming",
        )
        self._open_rows[p.entry_id] = p.prompt_id

    def _on_assistant_message(self, record: Record, p: ev.AssistantMessage) -> None:
        entry = self._entries.get(p.entry_id)
        if entry is None:
            entry = self._add_entry(
                p.entry_id,
                p.kind,
                AGENT_AUTHOR,
                record.ts,
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
        self._open_rows.pop(p.entry_id, None)

    def _on_tool_started(self, record: Record, p: ev.ToolStarted) -> None:
        self._add_entry(
            p.call_id,
            "tool",
            AGENT_AUTHOR,
            record.ts,
            body="",
            prompt_id=p.prompt_id,
            tool=p.tool,
            summary=p.summary,
            arguments=p.arguments,
            state="running",
        )
        self._open_rows[p.call_id] = p.prompt_id or ""

    def _on_tool_completed(self, record: Record, p: ev.ToolCompleted) -> None:
        entry = self._entries[p.call_id]
        entry["state"] = "success" if p.success else "error"
        entry["result"] = p.result
        entry["duration"] = p.duration
        self._open_rows.pop(p.call_id, None)

    def _on_subagent_started(self, record: Record, p: ev.SubagentStarted) -> None:
        self._add_entry(
            p.call_id,
            "subagent",
            AGENT_AUTHOR,
            record.ts,
            body=p.description,
            prompt_id=p.prompt_id,
            name=p.name,
            state="running",
        )
        self._open_rows[p.call_id] = p.prompt_id or ""

    def _on_subagent_ended(self, record: Record, p: ev.SubagentEnded) -> None:
        if (entry := self._entries.get(p.call_id)) is not None:
            entry["state"] = "error" if p.error else "success"
            entry["error"] = p.error
        self._open_rows.pop(p.call_id, None)

    def _on_usage(self, record: Record, p: ev.TurnUsage) -> None:
        if p.prompt_id is not None and (entry := self._entries.get(p.prompt_id)) is not None:
            entry["usage"] = {
                "model": p.model,
                "input_tokens": p.input_tokens,
                "output_tokens": p.output_tokens,
                "model_calls": p.model_calls,
            }

    def _on_agent_ready(self, record: Record, p: ev.AgentReady) -> None:
        detail = f" {p.detail}" if p.detail else ""
        self._system(record, f"The agent is ready: {p.label}.{detail}")

    def _on_agent_error(self, record: Record, p: ev.AgentError) -> None:
        self._add_entry(
            f"r{record.seq}",
            "error",
            AGENT_AUTHOR,
            record.ts,
            body=p.message,
            prompt_id=p.prompt_id,
        )

    def _on_request_opened(self, record: Record, p: ev.RequestOpened) -> None:
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
        }
        self.approvals[p.id] = Map(dict(fields))
        entry_kind = "question" if p.kind == "question" else "permission"
        extra = {k: v for k, v in fields.items() if k not in ("kind", "summary", "author")}
        self._add_entry(
            p.id,
            entry_kind,
            AGENT_AUTHOR,
            record.ts,
            body=p.summary,
            request_kind=p.kind,
            prompt_author=p.author,
            **extra,
        )

    def _on_request_settled(self, record: Record, p: ev.RequestSettled) -> None:
        if p.id in self.approvals:
            del self.approvals[p.id]
        entry = self._entries[p.id]
        entry["state"] = p.outcome
        entry["answered_by"] = record.actor
        if p.feedback is not None:
            entry["feedback"] = p.feedback
        if p.answer is not None:
            entry["answer"] = p.answer

    def _on_abort(self, record: Record, p: ev.PromptRef) -> None:
        self._said(record, "{0} aborted the running turn.", record.actor)

    def _on_person_seen(self, record: Record, p: ev.PersonSeen) -> None:
        """People are kept in `participants`, which the room writes with their live role."""

    def _on_admission_decided(self, record: Record, p: ev.AdmissionDecided) -> None:
        said = {
            "member": "{0} admitted {1} as a member.",
            "viewer": "{0} admitted {1} as a viewer.",
            "reject": "{0} turned {1} away.",
        }[p.decision]
        self._add_entry(
            f"r{record.seq}",
            "admission",
            record.actor,
            record.ts,
            body=said,
            people=[record.actor, p.username],
            username=p.username,
            decision=p.decision,
        )

    def _on_role_changed(self, record: Record, p: ev.RoleChanged) -> None:
        self._said(record, "{0} made {1} a " + p.role + ".", record.actor, p.username)

    def _on_person_removed(self, record: Record, p: ev.PersonRef) -> None:
        self._said(record, "{0} removed {1} from the room.", record.actor, p.username)

    def _on_host_claimed(self, record: Record, p: ev.PersonRef) -> None:
        self._said(record, "{0} claimed the room as its host.", p.username)

    def _on_settings_changed(self, record: Record, p: ev.SettingsChanged) -> None:
        changed = _literal(", ".join(f"{k} = {v}" for k, v in sorted(p.changes.items())))
        self._said(record, "{0} changed the room settings: " + changed + ".", record.actor)

    def _on_system(self, record: Record, p: ev.SystemNote) -> None:
        self._system(record, p.text)

    # -- helpers ---------------------------------------------------------------------------------

    def _close_rows(self, prompt_id: str) -> None:
        """A turn's end closes what it left open: the runtime reports no end for a tool or a
        sub-agent cut by an abort, a deadline or a lost runtime, and a restart finds them open.
        A tool or sub-agent is `stopped`; a reply keeps what streamed, `partial`."""
        for entry_id in [e for e, prompt in self._open_rows.items() if prompt == prompt_id]:
            del self._open_rows[entry_id]
            entry = self._entries[entry_id]
            entry["state"] = "stopped" if entry["kind"] in ("tool", "subagent") else "partial"

    def _system(self, record: Record, text: str) -> None:
        self._add_entry(f"r{record.seq}", "system", None, record.ts, body=text)

    def _said(self, record: Record, template: str, *usernames: str | None) -> None:
        """A system line about people: `{0}`, `{1}`... in `template` stand for `people[0]`...
        (usernames, which the panel shows by their display names); `{{` and `}}` are braces."""
        self._add_entry(
            f"r{record.seq}",
            "system",
            None,
            record.ts,
            body=template,
            people=[name or "" for name in usernames],
        )

    def _add_entry(
        self, entry_id: str, kind: str, author: str | None, ts: float, *, body: str, **extra: Any
    ) -> Map:
        entry = Map(
            {"id": entry_id, "kind": kind, "author": author, "ts": ts, "body": Text(body), **extra}
        )
        self.transcript.append(entry)
        self._entries[entry_id] = entry
        return entry

    def _queue_item(self, prompt_id: str) -> Map | None:
        return self._queue_items.get(prompt_id)

    def _drop_queue_item(self, prompt_id: str) -> None:
        if prompt_id in self._queue_items:
            del self.queue[list(self._queue_items).index(prompt_id)]
            del self._queue_items[prompt_id]


def _literal(text: str) -> str:
    """Text put into a `_said` template as it is (its braces are not placeholders)."""
    return text.replace("{", "{{").replace("}", "}}")


#: The document's handler of each record kind (`events.RECORD_PAYLOADS` names their payloads).
HANDLERS: dict[str, Callable[[RoomDocument, Record, Any], None]] = {
    "prompt.submitted": RoomDocument._on_prompt_submitted,
    "prompt.withdrawn": RoomDocument._on_prompt_withdrawn,
    "prompt.started": RoomDocument._on_prompt_started,
    "prompt.finished": RoomDocument._on_prompt_finished,
    "assistant.started": RoomDocument._on_assistant_started,
    "assistant.message": RoomDocument._on_assistant_message,
    "tool.started": RoomDocument._on_tool_started,
    "tool.completed": RoomDocument._on_tool_completed,
    "subagent.started": RoomDocument._on_subagent_started,
    "subagent.ended": RoomDocument._on_subagent_ended,
    "usage": RoomDocument._on_usage,
    "agent.ready": RoomDocument._on_agent_ready,
    "agent.error": RoomDocument._on_agent_error,
    "request.opened": RoomDocument._on_request_opened,
    "request.settled": RoomDocument._on_request_settled,
    "abort": RoomDocument._on_abort,
    "person.seen": RoomDocument._on_person_seen,
    "admission.decided": RoomDocument._on_admission_decided,
    "role.changed": RoomDocument._on_role_changed,
    "person.removed": RoomDocument._on_person_removed,
    "host.claimed": RoomDocument._on_host_claimed,
    "settings.changed": RoomDocument._on_settings_changed,
    "system": RoomDocument._on_system,
}
