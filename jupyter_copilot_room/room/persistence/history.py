"""`state_dir/history.jsonl`: the entries evicted from the live document's window.

One entry a line, as the document showed it when it was evicted (plain data, `body` a string,
`seq` first), in eviction order, which is seq order. Only finished entries are evicted, so each
line is the entry's final form. Like `admissions.json` it is a cache: a start without a matching
snapshot rewrites it from the transcript, and a snapshot names how many of its bytes it covers.
`GET history?before=SEQ` pages it through a `SeqIndex`.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any, BinaryIO

from .seq_index import SeqIndex

log = logging.getLogger(__name__)


class History:
    def __init__(self, path: Path):
        self.path = path
        self.index = SeqIndex(path)
        self._file: BinaryIO | None = None
        self.size = 0
        #: False once a write failed: the file then lacks entries, and no snapshot may cover it.
        self.intact = True

    def existing_size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def open(self, keep: int) -> None:
        """Open for appending, keeping the first `keep` bytes (what a snapshot covers; 0 to
        rebuild it from the transcript)."""
        self.close()
        self._file = open(self.path, "a+b")  # noqa: SIM115 (kept open for the room's lifetime)
        self._file.truncate(keep)
        self.size = keep
        self.intact = True
        self.index.reset()

    def append(self, entry: dict[str, Any]) -> None:
        """Archive one evicted entry; a failed write (disk full) is logged, never raised."""
        if self._file is None or not self.intact:
            return
        fields = {"seq": entry["seq"], **dict(sorted(entry.items()))}  # the same bytes each time
        line = json.dumps(fields, ensure_ascii=False).encode() + b"\n"
        try:
            self._file.write(line)
            self._file.flush()
        except OSError as err:
            self.intact = False
            log.warning(
                "Could not archive an entry evicted from the room document (%s); its page of "
                "history is missing until the next start rebuilds %s.",
                err,
                self.path,
            )
            return
        self.index.added(entry["seq"], self.size)
        self.size += len(line)

    def sync(self) -> None:
        """fsync what was written (from a worker thread, before a snapshot names its size)."""
        if self._file is not None:
            os.fsync(self._file.fileno())

    async def page(self, before: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """The `limit` newest archived entries with seq < `before`, ascending, and whether
        older ones exist."""
        lines, more = await self.index.page(self.size, before, limit)
        return [json.loads(line) for line in lines], more

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
