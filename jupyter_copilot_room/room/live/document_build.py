"""Building the room's document: a new pycrdt `Doc` from plain state, and its indexes.

A compaction (a window's worth of tombstones) and a restart from a snapshot build a whole
window's `Doc`, ~0.1-0.4 s, so `RoomDocument` runs these in a worker thread: they touch nothing
but the `Doc` they make. `catch_up` brings such a `Doc` to what the served one became meanwhile.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any, NamedTuple

from pycrdt import Array, Doc, Map, Text

ROOTS = ("meta", "participants", "queue", "transcript", "approvals")
ARRAYS = ("queue", "transcript")
#: The `meta` keys records set; the others (the agent's status) are the live room's own.
RECORDED_META = ("turn_owner", "turn_prompt", "usage")


class Slot(NamedTuple):
    """One transcript entry in array order: its id, its Map, and the turn it belongs to."""

    entry_id: str
    entry: Map
    turn: str | None


class Built(NamedTuple):
    """A `Doc` holding a state, and the document's indexes into it (see `RoomDocument`)."""

    ydoc: Doc
    queue_items: dict[str, Map]
    order: deque[Slot]
    entries: dict[str, Map]
    open_rows: dict[str, str]
    running: set[str]


def plain_state(doc: Doc) -> dict[str, Any]:
    return {
        name: json.loads(str(doc.get(name, type=Array if name in ARRAYS else Map)))
        for name in ROOTS
    }


def loaded(update: bytes) -> Doc:
    doc: Doc = Doc()
    doc.apply_update(update)
    return doc


def from_update(update: bytes) -> Built:
    """The compact document of a snapshot's state (see `RoomDocument.load`). The snapshot's
    own `Doc` is dropped before the new one is built, so the two never share the heap."""
    state = plain_state(loaded(update))
    state["meta"] = {k: v for k, v in state["meta"].items() if k in RECORDED_META}
    if any(not isinstance(entry.get("id"), str) for entry in state["transcript"]):
        raise ValueError("the snapshot's transcript entries have no ids")
    return build(state)


def entry_map(entry: dict[str, Any]) -> Map:
    return Map({**entry, "body": Text(entry.get("body") or "")})


def build(state: dict[str, Any]) -> Built:
    """A new `Doc` holding `state` (plain data in the document's layout) and its indexes; it
    touches nothing else, so it may run in a worker thread."""
    doc: Doc = Doc()
    queue = {item["id"]: Map(item) for item in state["queue"]}
    order = deque(
        Slot(entry["id"], entry_map(entry), turn_of(entry)) for entry in state["transcript"]
    )
    with doc.transaction():
        fill_map(doc.get("meta", type=Map), state["meta"], nested=False)
        fill_map(doc.get("participants", type=Map), state["participants"], nested=True)
        doc.get("queue", type=Array).extend(list(queue.values()))
        doc.get("transcript", type=Array).extend([slot.entry for slot in order])
        fill_map(doc.get("approvals", type=Map), state["approvals"], nested=True)
    entries = {slot.entry_id: slot.entry for slot in order}
    return Built(doc, queue, order, entries, *open_rows_of(state["transcript"]))


def open_rows_of(transcript: list[dict[str, Any]]) -> tuple[dict[str, str], set[str]]:
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


def fill_map(root: Map, values: dict[str, Any], *, nested: bool) -> None:
    for key, value in values.items():
        root[key] = Map(value) if nested else value


def changes(before: dict[str, Any], now: dict[str, Any]) -> int:
    """How many transcript entries differ between two plain states (a rough count)."""
    old = {entry["id"]: entry for entry in before["transcript"]}
    return sum(old.get(entry["id"]) != entry for entry in now["transcript"])


def catch_up(built: Built, before: dict[str, Any], now: dict[str, Any]) -> bool:
    """Bring a document built from `before` to `now`: the small roots are filled again if they
    changed; the window lost entries at its start and gained some at its end, and a few of its
    entries changed. False if the transcript changed in any other way."""
    doc = built.ydoc
    with doc.transaction():
        for name, nested in (("meta", False), ("participants", True), ("approvals", True)):
            if before[name] != now[name]:
                root = doc.get(name, type=Map)
                root.clear()
                fill_map(root, now[name], nested=nested)
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
                slot = Slot(entry["id"], entry_map(entry), turn_of(entry))
                transcript[index] = slot.entry
                built.order[index] = slot
                built.entries[slot.entry_id] = slot.entry
        for entry in new[len(kept) :]:
            slot = Slot(entry["id"], entry_map(entry), turn_of(entry))
            transcript.append(slot.entry)
            built.order.append(slot)
            built.entries[slot.entry_id] = slot.entry
    open_rows, running = open_rows_of(new)
    built.open_rows.clear()
    built.open_rows.update(open_rows)
    built.running.clear()
    built.running.update(running)
    return True


def turn_of(entry: dict[str, Any]) -> str | None:
    """The prompt an entry belongs to (a prompt's own entry belongs to itself)."""
    return entry["id"] if entry.get("kind") == "prompt" else entry.get("prompt_id")
