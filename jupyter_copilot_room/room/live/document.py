"""The live room document (pycrdt), and the only code that writes it.

Layout (docs/architecture.md): `meta` Map, `participants` Map of Maps, `queue` Array of Maps,
`transcript` Array of Maps (each with a `body` Text that grows by appending streamed deltas),
`approvals` Map of Maps. A line about people never holds a username in its text: its `body` is a
template (`{0} admitted {1} as a member.`) and `people` the usernames it names, so the panel shows
display names from `participants`, which keeps everyone the room has seen. Everything but presence
and streaming is derived from transcript records by `apply`, through one handler per record kind
(`document_handlers/`, which refuses to import while a kind has none), so replaying
`transcript.jsonl` into a fresh document rebuilds the same state.

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
item). A compaction then catches up with what changed meanwhile on the loop (`catch_up`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from pycrdt import Array, Doc, Map, Text

from ... import events as ev
from ...events import Record
from .document_build import (
    ARRAYS,
    ROOTS,
    Built,
    Slot,
    build,
    catch_up,
    changes,
    from_update,
    plain_state,
    turn_of,
)
from .document_handlers import HANDLERS

DEFAULT_WINDOW = 1000
MIN_WINDOW = 10
#: A compaction catches up with at most this many changed entries on the event loop, after at
#: most `CATCH_UP_ROUNDS` rounds in a worker thread.
CATCH_UP_ON_LOOP, CATCH_UP_ROUNDS = 50, 5


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
        self._order: deque[Slot] = deque()  # the transcript array's entries, oldest first
        self._queue_items: dict[str, Map] = {}
        # Rows still open (a tool or sub-agent running, a reply streaming): entry id -> prompt id.
        self._open_rows: dict[str, str] = {}
        self._running: set[str] = set()  # prompts started and not finished
        self.tombstones = 0  # entries taken out of `transcript` since the document was built
        self._compacting: asyncio.Task[None] | None = None
        self._adopt(build({name: [] if name in ARRAYS else {} for name in ROOTS}))

    def snapshot(self, *roots: str) -> dict[str, Any]:
        """The document (or only the named roots) as plain data, as a client sees it."""
        names = roots or ROOTS
        return {name: getattr(self, name).to_py() for name in names}

    # -- building: at start, from a snapshot, and when compacting ---------------------------------

    def plain(self) -> dict[str, Any]:
        """The whole document as plain data, one pycrdt call per root (ints come back as ints,
        where `snapshot` gives floats: the same values to pycrdt and to clients)."""
        return plain_state(self.ydoc)

    def compact(self) -> None:
        """Rebuild the document from its plain state in a new `Doc` without the tombstones of
        evicted entries, and hand it to `on_compacted` (which serves it instead of the old)."""
        self._adopt(build(self.plain()))
        if self.on_compacted is not None:
            self.on_compacted(self.ydoc)

    async def _compact_aside(self) -> None:
        """`compact`, with the new `Doc` built in a worker thread while the old one is served;
        what changed meanwhile (records, streamed deltas, presence) is then applied to it."""
        try:
            before = self.plain()
            built = await asyncio.to_thread(build, before)
            # Catch up in the thread while much changed (a busy room), the last few on the loop.
            for _ in range(CATCH_UP_ROUNDS):
                now = self.plain()
                if changes(before, now) <= CATCH_UP_ON_LOOP:
                    break
                if not await asyncio.to_thread(catch_up, built, before, now):
                    break
                before = now
            now = self.plain()
            if not catch_up(built, before, now):
                built = build(now)  # not a window that moved on (never expected): build it here
            self._adopt(built)
            if self.on_compacted is not None:
                self.on_compacted(self.ydoc)
        finally:
            self._compacting = None

    async def load(self, update: bytes) -> None:
        """Start from a snapshot's state (`Doc.get_update()` bytes), compactly, built in a worker
        thread; `meta` keeps only what records set (the live room sets the rest). Raises
        ValueError if it is not a room."""
        self._adopt(await asyncio.to_thread(from_update, update))

    def _adopt(self, built: Built) -> None:
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

    def put_participant(self, username: str, absent: tuple[str, ...] = (), **fields: Any) -> None:
        """Set a person's fields (only those that changed); the keys in `absent` are removed."""
        with self.ydoc.transaction():
            person = self.participants.get(username)
            if person is None:
                self.participants[username] = Map(fields)
                return
            for key, value in fields.items():
                if person.get(key) != value:
                    person[key] = value
            for key in absent:
                if key in person:
                    del person[key]

    def set_prompt_state(self, prompt_id: str, state: str) -> None:
        if (item := self.queue_item(prompt_id)) is not None:
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

    # -- what the record handlers change (document_handlers/) -------------------------------------

    def entry(self, entry_id: str) -> Map | None:
        """A transcript entry still in the window (None once evicted: its archived form is
        final, so a handler that would change it has nothing to do)."""
        return self._entries.get(entry_id)

    def queue_item(self, prompt_id: str) -> Map | None:
        return self._queue_items.get(prompt_id)

    def add_queue_item(self, prompt_id: str, item: Map) -> None:
        self.queue.append(item)
        self._queue_items[prompt_id] = item

    def drop_queue_item(self, prompt_id: str) -> None:
        if prompt_id in self._queue_items:
            del self.queue[list(self._queue_items).index(prompt_id)]
            del self._queue_items[prompt_id]

    def turn_started(self, prompt_id: str) -> None:
        """The turn's entries stay in the window until it ends (`turn_ended`)."""
        self._running.add(prompt_id)

    def turn_ended(self, prompt_id: str) -> None:
        self._running.discard(prompt_id)

    def open_row(self, entry_id: str, prompt_id: str) -> None:
        """A row still running (a tool, a sub-agent, a streaming reply): kept in the window and
        closed at its turn's end if nothing closed it before (`close_rows`)."""
        self._open_rows[entry_id] = prompt_id

    def close_row(self, entry_id: str) -> None:
        self._open_rows.pop(entry_id, None)

    def drop_entry(self, entry_id: str) -> None:
        """Take an entry out of the window (an attempt the model call made again); it is one of the
        newest, so it is looked for from the end (`_order` is the transcript array's order). Its
        tombstone counts toward the next compaction as an eviction's does."""
        for index in range(len(self._order) - 1, -1, -1):
            if self._order[index].entry_id == entry_id:
                del self._order[index]
                del self.transcript[index]
                self.tombstones += 1
                break
        self._entries.pop(entry_id, None)
        self._open_rows.pop(entry_id, None)

    def errors_said(self, prompt_id: str) -> set[str]:
        """What the turn's error lines say: its entries are the newest, so this looks back no
        further than the turn's prompt."""
        said = set()
        for slot in reversed(self._order):
            if slot.entry_id == prompt_id:
                break
            if slot.turn == prompt_id and slot.entry.get("kind") == "error":
                said.add(str(slot.entry["body"]))
        return said

    def close_rows(self, prompt_id: str) -> None:
        """A turn's end closes what it left open: the runtime reports no end for a tool or a
        sub-agent cut by an abort, a deadline or a lost runtime, and a restart finds them open.
        A tool or sub-agent is `stopped`; a reply keeps what streamed, `partial`."""
        for entry_id in [e for e, prompt in self._open_rows.items() if prompt == prompt_id]:
            del self._open_rows[entry_id]
            if (entry := self._entries.get(entry_id)) is None:
                continue
            entry["state"] = "stopped" if entry["kind"] in ("tool", "subagent") else "partial"

    def system(self, record: Record, text: str) -> Map:
        return self.add_entry(record, f"r{record.seq}", "system", None, body=text)

    def say(self, record: Record, template: str, *usernames: str | None) -> Map:
        """A system line about people: `{0}`, `{1}`... in `template` stand for `people[0]`...
        (usernames, which the panel shows by their display names); `{{` and `}}` are braces."""
        return self.add_entry(
            record,
            f"r{record.seq}",
            "system",
            None,
            body=template,
            people=[name or "" for name in usernames],
        )

    def add_entry(
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
        self._order.append(Slot(entry_id, entry, turn_of(fields)))
        return entry
