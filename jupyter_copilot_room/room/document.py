"""The live room document (pycrdt), and the only code that writes it.

Layout (docs/architecture.md): `meta` Map, `participants` Map of Maps, `queue` Array of Maps,
`transcript` Array of Maps (each with a `body` Text that grows by appending streamed deltas),
`approvals` Map of Maps. A line about people never holds a username in its text: its `body` is a
template (`{0} admitted {1} as a member.`) and `people` the usernames it names, so the panel shows
display names from `participants`, which keeps everyone the room has seen. Everything but
presence and streaming is derived from transcript records by `apply`, through one handler per
record kind (`HANDLERS`), so replaying `transcript.jsonl` into a fresh document rebuilds the same
state.

The document holds a window of recent entries (`window`, each entry's `seq` names the record that
created it): once an entry is added past the window, the oldest finished ones are evicted, handed
to `on_evict` as plain data (the room archives them in `history.jsonl`). Evicted items stay in a
pycrdt Array as tombstones that every append walks, as do dropped entries (an attempt the model
call made again), so after `window` of them the document is rebuilt compactly (`compact`) into a
new `Doc`, which `on_compacted` hands to the sync layer.

Building a `Doc` of a whole window takes a fifth of a second on a busy core, so neither a restart
(`load`) nor a compaction while serving builds it on the event loop: the new `Doc` is built in a
worker thread (a pycrdt call holds the GIL, but the loop runs between calls), from the plain state
read in one call per root (`str()` of a root is pycrdt's JSON; `to_py()` takes a transaction per
item). A compaction then catches up with what changed meanwhile on the loop (`_catch_up`).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Collection
from typing import Any, NamedTuple

from pycrdt import Array, Doc, Map, Text

from .. import events as ev
from ..access import rules
from ..access.approval_policy import describe_policy
from ..events import Record
from . import budgets

AGENT_AUTHOR = "copilot"
ROOTS = ("meta", "participants", "queue", "transcript", "approvals")
_ARRAYS = ("queue", "transcript")
#: The `meta` keys records set; the others (the agent's status) are the live room's own.
RECORDED_META = ("turn_owner", "turn_prompt", "usage")
DEFAULT_WINDOW = 1000
MIN_WINDOW = 10
#: A compaction catches up with at most this many changed entries on the event loop, after at
#: most `CATCH_UP_ROUNDS` rounds in a worker thread.
CATCH_UP_ON_LOOP, CATCH_UP_ROUNDS = 50, 5


class _Slot(NamedTuple):
    """One transcript entry in array order: its id, its Map, and the turn it belongs to."""

    entry_id: str
    entry: Map
    turn: str | None


class _Built(NamedTuple):
    """A `Doc` holding a state, and the document's indexes into it (see `RoomDocument`)."""

    ydoc: Doc
    queue_items: dict[str, Map]
    order: deque[_Slot]
    entries: dict[str, Map]
    open_rows: dict[str, str]
    running: set[str]


class RoomDocument:
    def __init__(
        self,
        window: int = DEFAULT_WINDOW,
        on_evict: Callable[[dict[str, Any]], None] | None = None,
        on_compacted: Callable[[Doc], None] | None = None,
    ) -> None:
        if window < MIN_WINDOW:
            raise ValueError(f"document_window must be at least {MIN_WINDOW}, not {window}")
        self.window = window
        self.on_evict = on_evict
        self.on_compacted = on_compacted
        # Python-side indexes of the arrays: reading a pycrdt Array by position walks every
        # item ever deleted from it, so lookups go through these instead.
        self._entries: dict[str, Map] = {}
        self._order: deque[_Slot] = deque()  # the transcript array's entries, oldest first
        self._queue_items: dict[str, Map] = {}
        # Rows still open (a tool or sub-agent running, a reply streaming): entry id -> prompt id.
        self._open_rows: dict[str, str] = {}
        self._running: set[str] = set()  # prompts started and not finished
        self.tombstones = 0  # entries taken out of `transcript` since the document was built
        self._compacting: asyncio.Task[None] | None = None
        self._adopt(_make({name: [] if name in _ARRAYS else {} for name in ROOTS}))

    def snapshot(self, *roots: str) -> dict[str, Any]:
        """The document (or only the named roots) as plain data, as a client sees it."""
        names = roots or ROOTS
        return {name: getattr(self, name).to_py() for name in names}

    # -- building: at start, from a snapshot, and when compacting ---------------------------------

    def plain(self) -> dict[str, Any]:
        """The whole document as plain data, one pycrdt call per root (ints come back as ints,
        where `snapshot` gives floats: the same values to pycrdt and to clients)."""
        return _plain(self.ydoc)

    def compact(self) -> None:
        """Rebuild the document from its plain state in a new `Doc` without the tombstones of
        evicted entries, and hand it to `on_compacted` (which serves it instead of the old)."""
        self._adopt(_make(self.plain()))
        if self.on_compacted is not None:
            self.on_compacted(self.ydoc)

    async def _compact_aside(self) -> None:
        """`compact`, with the new `Doc` built in a worker thread while the old one is served;
        what changed meanwhile (records, streamed deltas, presence) is then applied to it."""
        try:
            before = self.plain()
            built = await asyncio.to_thread(_make, before)
            # Catch up in the thread while much changed (a busy room), the last few on the loop.
            for _ in range(CATCH_UP_ROUNDS):
                now = self.plain()
                if _changes(before, now) <= CATCH_UP_ON_LOOP:
                    break
                if not await asyncio.to_thread(_catch_up, built, before, now):
                    break
                before = now
            now = self.plain()
            if not _catch_up(built, before, now):
                built = _make(now)  # not a window that moved on (never expected): build it here
            self._adopt(built)
            if self.on_compacted is not None:
                self.on_compacted(self.ydoc)
        finally:
            self._compacting = None

    async def load(self, update: bytes) -> None:
        """Start from a snapshot's state (`Doc.get_update()` bytes), compactly, built in a worker
        thread; `meta` keeps only what records set (the live room sets the rest). Raises
        ValueError if it is not a room."""
        self._adopt(await asyncio.to_thread(_from_update, update))

    def _adopt(self, built: _Built) -> None:
        doc = built.ydoc
        self.ydoc = doc
        self.meta = doc.get("meta", type=Map)
        self.participants = doc.get("participants", type=Map)
        self.queue = doc.get("queue", type=Array)
        self.transcript = doc.get("transcript", type=Array)
        self.approvals = doc.get("approvals", type=Map)
        self._queue_items = built.queue_items
        self._order = built.order
        self._entries = built.entries
        self._open_rows = built.open_rows
        self._running = built.running
        self.tombstones = 0

    # -- the window -------------------------------------------------------------------------------

    def _evict(self) -> None:
        """Evict the oldest entries while over the window, stopping at the first still in use
        (its turn running, a row open, a request pending): an evicted entry is final."""
        while len(self._order) > self.window:
            slot = self._order[0]
            if (
                slot.turn in self._running
                or slot.entry_id in self._open_rows
                or slot.entry_id in self.approvals
            ):
                return
            plain: dict[str, Any] = slot.entry.to_py() or {}
            plain["seq"] = int(plain.get("seq") or 0)
            self._order.popleft()
            del self.transcript[0]
            if self._entries.get(slot.entry_id) is slot.entry:
                del self._entries[slot.entry_id]
            self.tombstones += 1
            if self.on_evict is not None:
                self.on_evict(plain)

    # -- state the room sets directly -------------------------------------------------------------

    def set_meta(self, **values: Any) -> None:
        with self.ydoc.transaction():
            for key, value in values.items():
                if self.meta.get(key) != value:
                    self.meta[key] = value

    def set_kernel(self, notebook: str, state: str) -> None:
        """The kernel the agent last ran cells in: its notebook and state (`starting`, `busy`,
        `waiting` for a person's execution, `idle`, ...)."""
        self.set_meta(kernel_notebook=notebook, kernel_state=state)

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
            self._evict()
        if self.tombstones >= self.window and self._compacting is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a script, a unit test): compact here
                self.compact()
            else:
                self._compacting = loop.create_task(self._compact_aside())

    def _on_prompt_submitted(self, record: Record, p: ev.PromptSubmitted) -> None:
        item = Map(
            {
                "id": p.id,
                "author": record.actor,
                "text": p.text,
                "target": p.target.model_dump() if p.target else None,
                "state": "submitted",
                "submitted_at": record.ts,
                # Only a kernel's prompt has one, so older documents and panels see no change.
                **({"origin": p.origin} if p.origin else {}),
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
        self.queue.append(item)
        self._queue_items[p.id] = item

    def _on_prompt_withdrawn(self, record: Record, p: ev.PromptRef) -> None:
        item = self._queue_item(p.id)
        if item is not None and item["author"] != record.actor:
            self._said(record, "{0} withdrew {1}'s prompt.", record.actor, item["author"])
        self._drop_queue_item(p.id)

    def _on_prompt_started(self, record: Record, p: ev.PromptRef) -> None:
        item = self._queue_items[p.id]
        self._running.add(p.id)
        item["state"] = "working"
        item["started_at"] = record.ts
        self._add_entry(
            record,
            p.id,
            "prompt",
            item["author"],
            body=item["text"],
            target=item.get("target"),
            state="working",
            **({"origin": origin} if (origin := item.get("origin")) else {}),
            **({"chips": chips} if (chips := item.get("chips")) else {}),
            **({"attachments": a} if (a := item.get("attachments")) else {}),
        )
        self.meta["turn_owner"] = item["author"]
        self.meta["turn_prompt"] = p.id

    def _on_prompt_finished(self, record: Record, p: ev.PromptFinished) -> None:
        self._running.discard(p.id)
        self._drop_queue_item(p.id)
        if (entry := self._entries.get(p.id)) is not None:
            entry["state"] = p.state
        self._close_rows(p.id)
        if (line := end_line(p, self._errors_said(p.id))) is not None:
            self._system(record, line)
        if self.meta.get("turn_prompt") == p.id:
            self.meta["turn_owner"] = None
            self.meta["turn_prompt"] = None

    def _on_assistant_started(self, record: Record, p: ev.AssistantStarted) -> None:
        self._add_entry(
            record,
            p.entry_id,
            p.kind,
            AGENT_AUTHOR,
            body="",
            prompt_id=p.prompt_id,
            state="streaming",
        )
        self._open_rows[p.entry_id] = p.prompt_id

    def _on_assistant_message(self, record: Record, p: ev.AssistantMessage) -> None:
        if p.retried:  # an attempt the model call made again: its next attempt is the reply
            self._drop_entry(p.entry_id)
            return
        entry = self._entries.get(p.entry_id)
        if entry is None:
            entry = self._add_entry(
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
        self._open_rows.pop(p.entry_id, None)

    def _on_tool_started(self, record: Record, p: ev.ToolStarted) -> None:
        self._add_entry(
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
        self._open_rows[p.call_id] = p.prompt_id or ""

    def _on_tool_completed(self, record: Record, p: ev.ToolCompleted) -> None:
        self._open_rows.pop(p.call_id, None)
        if (entry := self._entries.get(p.call_id)) is None:
            return  # evicted: only finished entries are, so its archived form is final
        entry["state"] = "success" if p.success else "error"
        entry["result"] = p.result
        entry["duration"] = p.duration

    def _on_subagent_started(self, record: Record, p: ev.SubagentStarted) -> None:
        self._add_entry(
            record,
            p.call_id,
            "subagent",
            AGENT_AUTHOR,
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
                "premium_requests": p.premium_requests,
            }
        # Today's sums (budgets.py reads them): per author and for the room, from the records.
        usage = self._usage_of(budgets.day_of(record.ts))
        if usage is None:
            return
        spent = {
            "premium_requests": p.premium_requests,
            "input_tokens": p.input_tokens,
            "output_tokens": p.output_tokens,
            "turns": 1,
        }
        usage["room"] = _summed(usage["room"], spent)
        if p.author is not None:
            usage["people"][p.author] = _summed(usage["people"].get(p.author, {}), spent)
        self.meta["usage"] = usage

    def _on_budget_lifted(self, record: Record, p: ev.BudgetLift) -> None:
        if (usage := self._usage_of(p.day)) is not None and p.username not in usage["lifted"]:
            usage["lifted"] = [*usage["lifted"], p.username]
            self.meta["usage"] = usage
        self._said(
            record,
            "{0} lifted the daily cap of {1} for " + p.day + " (UTC).",
            record.actor,
            p.username,
        )

    def _usage_of(self, day: str) -> dict[str, Any] | None:
        """A copy of `meta.usage` to change for `day` (fresh on a new day); None for a day
        already past."""
        current = self.meta.get("usage")
        if current is None or current["day"] < day:
            return budgets.empty(day)
        if current["day"] > day:
            return None
        return json.loads(json.dumps(current))

    def _on_agent_ready(self, record: Record, p: ev.AgentReady) -> None:
        detail = f" {p.detail}" if p.detail else ""
        self._system(record, f"The agent is ready: {p.label}.{detail}")

    def _on_agent_error(self, record: Record, p: ev.AgentError) -> None:
        self._add_entry(
            record,
            f"r{record.seq}",
            "error",
            AGENT_AUTHOR,
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
            "answerers": rules.request_answerers(p.author, p.approvers_needed),
        }
        if p.approvers_needed > 1:  # the policy wants two approvers: the card counts them
            fields |= {"approvers_needed": p.approvers_needed, "approvers": []}
        if p.rule is not None:
            fields["rule"] = p.rule
        self.approvals[p.id] = Map(dict(fields))
        entry_kind = "question" if p.kind == "question" else "permission"
        extra = {k: v for k, v in fields.items() if k not in ("kind", "summary", "author")}
        self._add_entry(
            record,
            p.id,
            entry_kind,
            AGENT_AUTHOR,
            body=p.summary,
            request_kind=p.kind,
            prompt_author=p.author,
            **extra,
        )

    def _on_request_settled(self, record: Record, p: ev.RequestSettled) -> None:
        if p.id in self.approvals:
            del self.approvals[p.id]
        if (entry := self._entries.get(p.id)) is None:
            return  # evicted (see _on_tool_completed)
        entry["state"] = p.outcome
        entry["answered_by"] = record.actor
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

    def _on_request_approval(self, record: Record, p: ev.RequestApproval) -> None:
        """One of two approvals: the card shows who approved and still waits."""
        for card in (self.approvals.get(p.id), self._entries.get(p.id)):
            if card is not None:
                card["approvers"] = p.approvers
                needed = int(card.get("approvers_needed") or 1)
                author = card.get("author") or card.get("prompt_author") or ""
                card["answerers"] = rules.request_answerers(author, needed, p.approvers)

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
            record,
            f"r{record.seq}",
            "admission",
            record.actor,
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
        changed = _literal(
            ", ".join(
                f"{k} = {describe_policy(v) if k == 'approval_policy' else v}"
                for k, v in sorted(p.changes.items())
            )
        )
        self._said(record, "{0} changed the room settings: " + changed + ".", record.actor)

    def _on_system(self, record: Record, p: ev.SystemNote) -> None:
        self._system(record, p.text)

    def _on_chat_message(self, record: Record, p: ev.ChatMessage) -> None:
        self._add_entry(record, p.id, "chat", record.actor, body=p.text)

    def _on_prompt_steered(self, record: Record, p: ev.Steering) -> None:
        self._add_entry(record, p.id, "steering", record.actor, body=p.text, prompt_id=p.prompt_id)

    def _on_model_changed(self, record: Record, p: ev.ModelChanged) -> None:
        self.meta["model"] = p.model
        self._said(record, "{0} switched the model to " + _literal(p.model) + ".", record.actor)

    def _on_copilot_signed_in(self, record: Record, p: ev.CopilotSeat) -> None:
        self.meta["copilot_seat"] = p.login  # "" when the runtime did not say whose login
        self._said(record, "{0} signed the room in to GitHub Copilot.", record.actor)

    def _on_copilot_signed_out(self, record: Record, p: ev.CopilotSeat) -> None:
        self.meta["copilot_seat"] = None
        self._said(record, "{0} signed the room out of GitHub Copilot.", record.actor)

    def _on_turn_checkpointed(self, record: Record, p: ev.TurnCheckpointed) -> None:
        """ "Changed N files" on the turn's prompt, with the commit to diff or revert."""
        if (entry := self._entries.get(p.prompt_id)) is not None:
            entry["checkpoint"] = {"commit": p.commit, "files": list(p.files)}

    def _on_turn_reverted(self, record: Record, p: ev.TurnReverted) -> None:
        count = f"{len(p.files)} file{'s' if len(p.files) != 1 else ''}"
        self._said(
            record, "{0} reverted {1}'s turn (" + count + " restored).", record.actor, p.author
        )
        self._entries[f"r{record.seq}"]["checkpoint"] = {"commit": p.commit, "files": list(p.files)}
        if (entry := self._entries.get(p.prompt_id)) is not None:
            entry["reverted_by"] = record.actor

    # -- helpers ---------------------------------------------------------------------------------

    def _drop_entry(self, entry_id: str) -> None:
        """Take an entry out of the window; it is one of the newest, so it is looked for from
        the end (`_order` is the transcript array's order). Its tombstone counts toward the next
        compaction as an eviction's does."""
        for index in range(len(self._order) - 1, -1, -1):
            if self._order[index].entry_id == entry_id:
                del self._order[index]
                del self.transcript[index]
                self.tombstones += 1
                break
        self._entries.pop(entry_id, None)
        self._open_rows.pop(entry_id, None)

    def _errors_said(self, prompt_id: str) -> set[str]:
        """What the turn's error lines say: its entries are the newest, so this looks back no
        further than the turn's prompt."""
        said = set()
        for slot in reversed(self._order):
            if slot.entry_id == prompt_id:
                break
            if slot.turn == prompt_id and slot.entry.get("kind") == "error":
                said.add(str(slot.entry["body"]))
        return said

    def _close_rows(self, prompt_id: str) -> None:
        """A turn's end closes what it left open: the runtime reports no end for a tool or a
        sub-agent cut by an abort, a deadline or a lost runtime, and a restart finds them open.
        A tool or sub-agent is `stopped`; a reply keeps what streamed, `partial`."""
        for entry_id in [e for e, prompt in self._open_rows.items() if prompt == prompt_id]:
            del self._open_rows[entry_id]
            if (entry := self._entries.get(entry_id)) is None:
                continue
            entry["state"] = "stopped" if entry["kind"] in ("tool", "subagent") else "partial"

    def _on_room_created(self, record: Record, p: ev.RoomCreated) -> None:
        folder = _literal(p.repository or "the server's root")
        self._said(
            record,
            "{0} created the room " + _literal(p.name) + " for " + folder + ".",
            record.actor,
        )

    def _system(self, record: Record, text: str) -> None:
        self._add_entry(record, f"r{record.seq}", "system", None, body=text)

    def _said(self, record: Record, template: str, *usernames: str | None) -> None:
        """A system line about people: `{0}`, `{1}`... in `template` stand for `people[0]`...
        (usernames, which the panel shows by their display names); `{{` and `}}` are braces."""
        self._add_entry(
            record,
            f"r{record.seq}",
            "system",
            None,
            body=template,
            people=[name or "" for name in usernames],
        )

    def _add_entry(
        self,
        record: Record,
        entry_id: str,
        kind: str,
        author: str | None,
        *,
        body: str,
        **extra: Any,
    ) -> Map:
        fields = {"id": entry_id, "kind": kind, "author": author, "ts": record.ts, **extra}
        entry = Map({**fields, "body": Text(body), "seq": record.seq})
        self.transcript.append(entry)
        self._entries[entry_id] = entry
        self._order.append(_Slot(entry_id, entry, _turn(fields)))
        return entry

    def _queue_item(self, prompt_id: str) -> Map | None:
        return self._queue_items.get(prompt_id)

    def _drop_queue_item(self, prompt_id: str) -> None:
        if prompt_id in self._queue_items:
            del self.queue[list(self._queue_items).index(prompt_id)]
            del self._queue_items[prompt_id]


def end_line(finished: ev.PromptFinished, reported: Collection[str]) -> str | None:
    """The line a turn's end adds, in the room and in its exports: none for a completed turn,
    nor for a host's abort (its own `abort` line said so), nor for a reason the agent reported
    on the turn (`reported`: its error lines say it)."""
    if finished.state == "completed" or finished.reason in reported:
        return None
    if finished.reason:
        return finished.reason
    return None if finished.state == "canceled" else f"The turn was {finished.state}."


def _plain(doc: Doc) -> dict[str, Any]:
    return {
        name: json.loads(str(doc.get(name, type=Array if name in _ARRAYS else Map)))
        for name in ROOTS
    }


def _loaded(update: bytes) -> Doc:
    doc: Doc = Doc()
    doc.apply_update(update)
    return doc


def _from_update(update: bytes) -> _Built:
    """The compact document of a snapshot's state (see `RoomDocument.load`). The snapshot's
    own `Doc` is dropped before the new one is built, so the two never share the heap."""
    state = _plain(_loaded(update))
    state["meta"] = {k: v for k, v in state["meta"].items() if k in RECORDED_META}
    if any(not isinstance(entry.get("id"), str) for entry in state["transcript"]):
        raise ValueError("the snapshot's transcript entries have no ids")
    return _make(state)


def _entry(entry: dict[str, Any]) -> Map:
    return Map({**entry, "body": Text(entry.get("body") or "")})


def _make(state: dict[str, Any]) -> _Built:
    """A new `Doc` holding `state` (plain data in the document's layout) and its indexes; it
    touches nothing else, so it may run in a worker thread."""
    doc: Doc = Doc()
    queue = {item["id"]: Map(item) for item in state["queue"]}
    order = deque(_Slot(entry["id"], _entry(entry), _turn(entry)) for entry in state["transcript"])
    with doc.transaction():
        _fill_map(doc.get("meta", type=Map), state["meta"], nested=False)
        _fill_map(doc.get("participants", type=Map), state["participants"], nested=True)
        doc.get("queue", type=Array).extend(list(queue.values()))
        doc.get("transcript", type=Array).extend([slot.entry for slot in order])
        _fill_map(doc.get("approvals", type=Map), state["approvals"], nested=True)
    entries = {slot.entry_id: slot.entry for slot in order}
    return _Built(doc, queue, order, entries, *_rows(state["transcript"]))


def _rows(transcript: list[dict[str, Any]]) -> tuple[dict[str, str], set[str]]:
    """The rows still open (entry id -> prompt id) and the prompts running, as entries say."""
    open_rows: dict[str, str] = {}
    running: set[str] = set()
    for entry in transcript:
        kind, entry_state = entry.get("kind"), entry.get("state")
        if kind == "prompt" and entry_state == "working":
            running.add(entry["id"])
        elif (kind in ("tool", "subagent") and entry_state == "running") or (
            kind in ("assistant", "reasoning") and entry_state == "streaming"
        ):
            open_rows[entry["id"]] = entry.get("prompt_id") or ""
    return open_rows, running


def _fill_map(root: Map, values: dict[str, Any], *, nested: bool) -> None:
    for key, value in values.items():
        root[key] = Map(value) if nested else value


def _changes(before: dict[str, Any], now: dict[str, Any]) -> int:
    """How many transcript entries differ between two plain states (a rough count)."""
    old = {entry["id"]: entry for entry in before["transcript"]}
    return sum(old.get(entry["id"]) != entry for entry in now["transcript"])


def _catch_up(built: _Built, before: dict[str, Any], now: dict[str, Any]) -> bool:
    """Bring a document built from `before` to `now`: the small roots are filled again if they
    changed; the window lost entries at its start and gained some at its end, and a few of its
    entries changed. False if the transcript changed in any other way."""
    doc = built.ydoc
    with doc.transaction():
        for name, nested in (("meta", False), ("participants", True), ("approvals", True)):
            if before[name] != now[name]:
                root = doc.get(name, type=Map)
                root.clear()
                _fill_map(root, now[name], nested=nested)
        if before["queue"] != now["queue"]:
            queue = doc.get("queue", type=Array)
            queue.clear()
            built.queue_items.clear()
            built.queue_items.update((item["id"], Map(item)) for item in now["queue"])
            queue.extend(list(built.queue_items.values()))
        old, new = before["transcript"], now["transcript"]
        ids = {entry["id"] for entry in new}
        gone = 0
        while gone < len(old) and old[gone]["id"] not in ids:
            gone += 1
        kept = old[gone:]
        if [entry["id"] for entry in new[: len(kept)]] != [entry["id"] for entry in kept]:
            return False
        transcript = doc.get("transcript", type=Array)
        if gone:
            del transcript[:gone]
            for _ in range(gone):
                del built.entries[built.order.popleft().entry_id]
        for index, (was, entry) in enumerate(zip(kept, new, strict=False)):
            if was != entry:
                slot = _Slot(entry["id"], _entry(entry), _turn(entry))
                transcript[index] = slot.entry
                built.order[index] = slot
                built.entries[slot.entry_id] = slot.entry
        for entry in new[len(kept) :]:
            slot = _Slot(entry["id"], _entry(entry), _turn(entry))
            transcript.append(slot.entry)
            built.order.append(slot)
            built.entries[slot.entry_id] = slot.entry
    open_rows, running = _rows(new)
    built.open_rows.clear()
    built.open_rows.update(open_rows)
    built.running.clear()
    built.running.update(running)
    return True


def _turn(entry: dict[str, Any]) -> str | None:
    """The prompt an entry belongs to (a prompt's own entry belongs to itself)."""
    return entry["id"] if entry.get("kind") == "prompt" else entry.get("prompt_id")


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
    "request.approval": RoomDocument._on_request_approval,
    "abort": RoomDocument._on_abort,
    "person.seen": RoomDocument._on_person_seen,
    "admission.decided": RoomDocument._on_admission_decided,
    "role.changed": RoomDocument._on_role_changed,
    "person.removed": RoomDocument._on_person_removed,
    "host.claimed": RoomDocument._on_host_claimed,
    "settings.changed": RoomDocument._on_settings_changed,
    "system": RoomDocument._on_system,
    "chat.message": RoomDocument._on_chat_message,
    "prompt.steered": RoomDocument._on_prompt_steered,
    "model.changed": RoomDocument._on_model_changed,
    "budget.lifted": RoomDocument._on_budget_lifted,
    "copilot.signed_in": RoomDocument._on_copilot_signed_in,
    "copilot.signed_out": RoomDocument._on_copilot_signed_out,
    "turn.checkpointed": RoomDocument._on_turn_checkpointed,
    "turn.reverted": RoomDocument._on_turn_reverted,
    "room.created": RoomDocument._on_room_created,
}


def _summed(sums: dict[str, Any], spent: dict[str, Any]) -> dict[str, Any]:
    return {key: sums.get(key, 0) + value for key, value in spent.items()}


def _chip(chip: ev.Chip) -> dict[str, Any]:
    """A context chip as the document shows it: what it names; an image only by type and size."""
    shown = chip.model_dump(exclude={"data", "text"}, exclude_none=True)
    if chip.data is not None:
        shown["bytes"] = len(chip.data) * 3 // 4 - chip.data[-2:].count("=")
    if chip.text is not None:
        shown["chars"] = len(chip.text)
    return shown
