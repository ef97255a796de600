"""The Copilot runtime's process id, which the SDK does not publish: `CopilotClient` keeps the
`subprocess.Popen` it spawned as `_cli_process` (github-copilot-sdk 1.0) and offers no accessor.
The one place that reads it; `tests/test_third_party_behaviour.py` pins it against a real
runtime, so an SDK that moves it fails there. Used to tell which process a room's runtime is
(a runtime found hung is killed by generation, not by pid).
"""

from __future__ import annotations

from typing import Any


def runtime_pid(client: Any) -> int | None:
    """The pid of the runtime process `client` started; None before it starts or after it stops."""
    process = getattr(client, "_cli_process", None)
    return process.pid if process is not None else None
