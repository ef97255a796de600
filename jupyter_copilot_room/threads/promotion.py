"""Bringing a side thread back into its room: as a prompt (the owner's words, then the thread's
last reply: `last_reply`), or as a diff, which is a turn of the room with no agent in it
(`apply_changes`): a `promote` card showing the thread's changes, decided like a write, then the
changes applied to the shared working tree whole or not at all, refused naming the files the
room changed in the same places since the fork.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..room.cards.readable_asks import relative
from ..room.turns.running_turn import RunningTurn
from . import worktree
from .room_side import RoomSide
from .thread_records import Thread

CONFLICTS = (
    "{files} changed in the room since the thread forked, in the same places: the thread's "
    "changes are not applied (nothing is merged blindly)."
)


def last_reply(transcript: str) -> str | None:
    """The last whole reply of the agent in a transcript's text."""
    reply = None
    for line in transcript.split("\n"):
        if '"assistant.message"' not in line:
            continue
        payload = json.loads(line).get("payload", {})
        if payload.get("kind", "assistant") == "assistant" and not payload.get("retried"):
            reply = payload.get("text") or reply
    return reply


async def apply_changes(
    room: RoomSide, thread: Thread, worktree_dir: Path, repository: Path, turn: RunningTurn
) -> str | None:
    """The promote turn of `room`: the card (answered like a write: the prompt's author and the
    hosts, under the room's approval policy), then the thread's changes in the working tree of
    `repository`, whole or not at all; the turn's error, or None."""
    diff, files = await worktree.changes(worktree_dir, thread.base)
    if not files:
        return "The thread has no changes to bring back."
    await room.worktree_read()  # the turn's checkpoint has the tree before
    top = await worktree.toplevel(repository)
    refused = await worktree.conflicts(top, diff, files)
    summary = ", ".join(files)
    owner = room.display_name(thread.owner)
    details = {
        "intention": f"Apply the side thread “{thread.title}” (by {owner}) here.",
        "diff": diff,
    }
    if refused:
        details["conflicts"] = CONFLICTS.format(files=", ".join(refused))
    answer = await room.ask_card(turn.prompt, "promote", summary, details)
    if not answer.approved:
        return answer.text or "The changes were not applied."
    if refused := await worktree.conflicts(top, diff, files):  # again: time has passed
        return "Not applied: " + CONFLICTS.format(files=", ".join(refused))
    await worktree.apply(top, diff)
    turn.wrote.update(relative(str(top / name), repository) for name in files)
    return None
