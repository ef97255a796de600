"""The room from inside a notebook kernel: `connect()` (the kernel API) and the `%%copilot` magic.

Imported only by kernels: the server never imports this package (nor IPython through it); it
reads `summaries.py` as source, to run in a kernel (`notebooks/execution.py`).
"""

from .client import KernelRoom, RoomAPIError, connect
from .discovery import ServerNotFound
from .turn import Turn

__all__ = ["KernelRoom", "RoomAPIError", "ServerNotFound", "Turn", "connect"]
