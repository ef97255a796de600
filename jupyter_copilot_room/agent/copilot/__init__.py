"""The Copilot adapter: the room's session in the server's one runtime, behind the agent seam.

This package is the only code that imports the Copilot SDK (`github-copilot-sdk`). It is split by
concern: `shared_runtime.py` runs the one runtime process every room leases, `connection.py`
opens, resumes and probes a room's session in it, `model_access.py` chooses how the
model is reached (a provider, a Copilot login, or the demo model), `translate.py` turns runtime
events into the room's events and sums usage, `describe.py` turns permission requests into what a
person must see to decide, `runtime_callbacks.py` answers the runtime's requests through the room,
`health.py` notices the hangs the runtime does not report,
`account.py` reads the seat's quota and signs the login out, `sdk_log.py` puts the SDK's log lines
in the server's log, and `agent.py` ties them to the room's `Agent` seam.
"""

from .copilot_agent import CopilotAgent

__all__ = ["CopilotAgent"]
