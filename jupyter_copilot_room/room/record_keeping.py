"""A room's records: what it has said (the transcript, the archive of evicted entries), what it
shows (the document, served by its sync, with the replies still streaming), and what keeps those
fast to rebuild (the live records a snapshot keeps, the snapshots).

One part, because these change together: every record goes through the recorder to the
transcript and the document at once, a compaction serves the new document and snapshots it, a
snapshot is taken only while no reply streams. The rest of the room commits through `recorder`
and reads `document`; nothing else writes these files.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pycrdt import Doc

from ..errors import Refused
from ..events import Record
from ..statefiles import TRANSCRIPT_FILE
from .live.document import RoomDocument
from .live.streams import Streams
from .live.sync import RoomSync
from .persistence import snapshot
from .persistence.history import History
from .persistence.recorder import Recorder
from .persistence.redaction import Redactor
from .persistence.snapshot import LiveRecords, Snapshot, Snapshots
from .persistence.storage import StorageWatch
from .persistence.transcript_file import Transcript, hash_prefix

log = logging.getLogger(__name__)


class RoomRecords:
    """The transcript, archive, document, sync, snapshots and streams of one room."""

    def __init__(
        self,
        state_dir: Path,
        *,
        window: int,
        client_buffer_bytes: int,
        clock: Callable[[], float],
        redactor: Redactor | None,
        speaker: Callable[[], str | None],
    ):
        """`speaker()`: the title of the agent that speaks now, if not the room's own."""
        self.state_dir = state_dir
        self.transcript = Transcript(state_dir / TRANSCRIPT_FILE)
        self.history = History(state_dir / "history.jsonl")
        self.document = RoomDocument(
            window, on_evict=self.history.append, on_compacted=self._compacted
        )
        self.live = LiveRecords()
        self.snapshots = Snapshots(state_dir, self._capture, self.history.sync)
        self.sync = RoomSync(self.document.ydoc, client_buffer_bytes=client_buffer_bytes)
        self.storage = StorageWatch(state_dir)
        self.recorder = Recorder(self.transcript, self.document, clock, self.storage, redactor)
        self.streams = Streams(self.recorder, self.document, speaker)
        self.recorder.listen(self._recorded)

    def _recorded(self, record: Record) -> None:
        self.live.add(record)
        self.snapshots.recorded()

    def _compacted(self, ydoc: Doc) -> None:
        """The document was rebuilt without its evicted entries: serve it, and snapshot it."""
        self.sync.replace_document(ydoc)
        self.snapshots.request()

    def _capture(self) -> tuple[Snapshot, bytes] | None:
        """The snapshot of the room now; None while a reply streams (its deltas are in the
        document but in no record) or after an archive write failed."""
        if self.streams.streaming or not self.history.intact:
            return None
        snap = Snapshot(
            window=self.document.window,
            position=self.transcript.position(),
            ydoc_sha256="",
            archive_bytes=self.history.size,
            live=[record.model_dump(mode="json") for record in self.live.records()],
        )
        return snap, self.document.ydoc.get_update()

    async def durable(self) -> None:
        """Once every record written so far is on disk: a command is acknowledged after this
        (the transcript's group commit: one fsync, in a worker thread, for a tick's records)."""
        await self.transcript.durable()

    # -- the room's start ------------------------------------------------------------------------

    async def resume(self) -> tuple[Snapshot, Any] | None:
        """The snapshot and the sha256 of the transcript prefix it covers, with the document
        and the archive loaded from it; None (after logging why) if there is none or it does
        not match. Without one, the archive is opened empty, to be rewritten by the replay."""
        problem: str | None
        try:
            found = await asyncio.to_thread(snapshot.read, self.state_dir)
        except (OSError, KeyError, TypeError, ValueError) as err:
            problem = f"it cannot be read ({err})"
        else:
            if found is None:
                self.history.open(keep=0)
                return None
            snap, update = found
            problem, prefix = await self._check_snapshot(snap)
            if problem is None:
                try:
                    snap.live_records()
                    await self.document.load(update)
                except (ValueError, KeyError, TypeError) as err:
                    problem = f"it cannot be loaded ({err})"
                else:
                    self.sync.replace_document(self.document.ydoc)
                    self.history.open(keep=snap.archive_bytes)
                    return snap, prefix
        log.warning(
            "Discarding the room snapshot in %s: %s. Rebuilding the room from the whole "
            "transcript.",
            self.state_dir,
            problem,
        )
        await asyncio.to_thread(snapshot.discard, self.state_dir)
        self.history.open(keep=0)
        return None

    async def _check_snapshot(self, snap: Snapshot) -> tuple[str | None, Any]:
        """Why the snapshot does not match the room (None if it does), and the prefix's hash."""
        if snap.window != self.document.window:
            return f"it keeps {snap.window} entries, the room {self.document.window}", None
        if self.history.existing_size() < snap.archive_bytes:
            return "history.jsonl is shorter than the snapshot says", None
        offset = snap.position.offset
        prefix = await asyncio.to_thread(hash_prefix, self.transcript.path, offset)
        if prefix is None:
            return "the transcript is shorter than the snapshot says", None
        if prefix.hexdigest() != snap.position.sha256:
            return f"the transcript's first {offset} bytes changed since it was written", None
        return None, prefix

    def replayed(self, count: int) -> None:
        """The replay read `count` records past the snapshot: the next snapshot is that due."""
        self.snapshots.changed = count

    async def serve(self) -> None:
        """Serve the document and keep snapshots (once the replayed room is settled)."""
        await self.sync.start()
        self.snapshots.start()

    # -- its stop --------------------------------------------------------------------------------

    async def close(self, name: str, *, served: bool) -> None:
        """Stop serving (if it `served`), write the last snapshot, sync and close the files."""
        if served:
            await self.sync.stop()
        await self.storage.stop()  # a start the full disk refused left it watching for space
        if served:
            await self.snapshots.stop()
        try:  # let the transcript's group commit end (`close` syncs whatever it had not)
            await self.transcript.durable()
        except (OSError, Refused) as err:  # a full disk too: logged, the stop goes on
            log.warning("The room %r could not sync its transcript at its stop: %s", name, err)
        self.transcript.close()
        self.history.close()
