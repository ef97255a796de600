"""What makes one room itself, as plain values: its name, its folder and state, the size of its
document and of its clients' buffers, how long its agent may idle, its clock. The factory
(`room_factory.py`) fills one in per room; the room's parts read the fields they use.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .live.document import DEFAULT_WINDOW
from .live.sync import CLIENT_BUFFER_BYTES

#: The room a 0.1 server had, for the server's root: its agent starts with the server.
MAIN = "main"


@dataclass(frozen=True)
class RoomSpec:
    """One room's place and sizes (`c.CopilotRoom.*` gives the sizes)."""

    state_dir: Path
    repository: Path = field(default_factory=Path.cwd)  # the folder its agent works in
    name: str = MAIN
    clock: Callable[[], float] = time.time
    client_buffer_bytes: int = CLIENT_BUFFER_BYTES
    document_window: int = DEFAULT_WINDOW
    idle_timeout: float = 0.0  # seconds its agent idles before it sleeps (0: never)

    @property
    def confined(self) -> bool:
        """Whether its agent reads and writes only inside its folder: every room but main,
        whose folder is the server's root, which holds the others."""
        return self.name != MAIN
