"""The room's commands about what happened: the transcript (whole, paged, exported), the archive of
entries evicted from the document, and each turn's checkpoint (its diff, its revert).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, tzinfo

from ... import export
from ...access import rules
from ...access.identity import Identity
from ...access.roles import Action
from ...checkpoints.turn_checkpoints import Author, Checkpoints
from ...errors import (
    Conflict,
    NotAllowed,
)
from ...events import (
    TurnReverted,
)
from ..live.document import RoomDocument
from ..people.participants import People
from ..persistence.history import History
from ..persistence.recorder import Recorder
from ..persistence.transcript_file import Transcript
from ..turns.turns import Turns


class HistoryCommands:
    """The transcript, the archive, and the turns' checkpoints."""

    def __init__(
        self,
        *,
        people: People,
        transcript: Transcript,
        history: History,
        document: RoomDocument,
        checkpoints: Checkpoints,
        turns: Turns,
        recorder: Recorder,
        terms: Callable[[], rules.Terms],
    ):
        self.people = people
        self.transcript = transcript
        self.history = history
        self.document = document
        self.checkpoints = checkpoints
        self.turns = turns
        self.recorder = recorder
        self.terms = terms

    def transcript_chunks(self, identity: Identity) -> AsyncIterator[bytes]:
        """The whole transcript, a chunk at a time, each read in a worker thread (any member
        may ask for it, so it never stalls the loop for the others)."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        return self.transcript.chunks()

    async def export_transcript(
        self, identity: Identity, fmt: export.Format, tz: tzinfo = UTC
    ) -> str:
        """The whole transcript as a notebook, Markdown or JSONL, its times in `tz` (read and
        rendered in a thread)."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        read, now = self.transcript.read_text, time.time()
        return await asyncio.to_thread(lambda: export.render(read(), fmt, now, tz))

    async def transcript_page(self, identity: Identity, before: int, limit: int) -> list[bytes]:
        """The last `limit` records with seq < `before` (the JSONL lines, ascending)."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        return await self.transcript.page(before, limit)

    async def history_page(self, identity: Identity, before: int, limit: int) -> dict:
        """The `limit` newest entries evicted from the document with seq < `before`."""
        self.people.require(identity, Action.WATCH)
        entries, more = await self.history.page(before, limit)
        return {"entries": entries, "more": more}

    async def checkpoint_diff(self, identity: Identity, commit: str) -> dict:
        """`GET checkpoints/<commit>/diff`: what a turn changed, as a unified diff."""
        self.people.require(identity, Action.READ_TRANSCRIPT)
        prompt_id, author = await self.checkpoints.find(commit)
        diff = await self.checkpoints.diff(commit)
        return {"commit": commit, "prompt_id": prompt_id, "author": author, "diff": diff}

    async def revert(self, identity: Identity, commit: str, force: bool = False) -> dict:
        """`POST checkpoints/<commit>/revert`: the turn's files as they were before it, recorded
        as a new checkpoint; a host, or the turn's author while `authors_can_revert` is on.
        `force` ("revert anyway", hosts only) overrides cells people edited since."""
        role = self.people.require(identity, Action.READ_TRANSCRIPT)
        if force and not rules.may_revert_anyway(role, self.terms()):
            raise NotAllowed(
                "Only a host can revert a turn over what people changed since.",
                code="not_allowed_to_force",
            )
        prompt_id, author = await self.checkpoints.find(commit)
        if not rules.may_revert(role, identity.username, author, self.terms()):
            raise NotAllowed(
                "Only a host can revert a turn"
                + (
                    " (or its author, if a host allows it)." if author == identity.username else "."
                ),
                code="not_allowed_to_revert",
            )
        if self.turns.running is not None:
            raise Conflict("A turn is running: revert once it has ended.", code="turn_running")
        name = self.document.display_name(identity.username)
        _, made = await self.checkpoints.revert(commit, Author(identity.username, name), force)
        self.recorder.commit(
            "turn.reverted",
            identity.username,
            TurnReverted(
                prompt_id=prompt_id,
                author=author,
                reverted=commit,
                commit=made.commit,
                files=list(made.files),
            ),
        )
        return {"commit": made.commit, "files": list(made.files)}
