"""What the server's configuration says of its rooms, read once (`app.py` builds it in
`initialize_settings`) and handed to the factory (`room_factory.py`) whole.

The factory sees these fields and nothing else of the server extension: no attribute that exists
only part way through `initialize_settings`, no traitlet read again per room. Everything a room
of the server shares (hosts, allow lists, seats, defaults, the agents offered, the event log, the
redactor) is here; what differs per room (its folder, state, settings store, agent) the factory
makes from it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent.seam import Agent, AgentSettings
from .room.budgets.budget_caps import Budgets
from .settings import RoomSettings

if TYPE_CHECKING:
    from .access.copilot_seats import CopilotSeats
    from .agent.acp.agent_spec import AcpAgentSpec
    from .agent.notebook_mcp import NotebookToolsServer
    from .eventlog import EventEmitter
    from .room.persistence.redaction import Redactor


@dataclass(frozen=True)
class RoomConfig:
    """The server's rooms as `c.CopilotRoom.*` configures them."""

    repository: Path  # main's folder (the server's root unless configured)
    state_dir: Path  # main's state: the ACP agents' HOME and the shared runtime live under it
    #: jupyter_server's web application settings (contents and kernel managers), read when a
    #: notebook tool runs: they exist only once the server has made its web application.
    server_settings: Callable[[], dict[str, Any]]
    hosts: frozenset[str]  # always hosts (c.CopilotRoom.hosts, the hub's owner, the token's)
    members: frozenset[str]
    viewers: frozenset[str]
    seats: CopilotSeats | None  # who has a Copilot seat, when the GitHub front asks
    settings: RoomSettings  # the configured room settings: every room's defaults
    budgets: Budgets
    client_buffer_bytes: int
    document_window: int
    idle_timeout: float  # c.CopilotRoom.room_idle_timeout
    max_active_rooms: int | None
    #: The agents' server-wide settings; the factory fills in each room's folder and state.
    agent: AgentSettings
    own_agent: type[Agent] | None  # c.CopilotRoom.agent_class: the room's own Copilot
    acp_agents: Mapping[str, AcpAgentSpec]  # c.CopilotRoom.agents, parsed
    notebook_tools: NotebookToolsServer  # the MCP server every ACP agent's notebook tools use
    events: EventEmitter  # the rooms' Jupyter Events
    redactor: Redactor  # the server's secrets, kept out of every room's records
    log: logging.Logger
