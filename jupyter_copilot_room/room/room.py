"""The room: the facade every command goes through.

Each command arrives with the caller's `Identity` (from `current_user`), is checked by the rules
(`People.require`, `access/rules.py`) and is handed to the part that owns that state: `People` (who
is here), `Turns` (the queue and the running turn), `OpenRequests` (permission requests and
questions). Every fact is recorded in the transcript before the document shows it (`Recorder`).
`Room` only composes: its parts (`parts.py`), its start and stop (`startup.py`) and its commands by
resource (`people_commands.py`, `prompt_commands.py`, `agent_commands.py`,
`history_commands.py`). The agent never sees it: it is given a `RoomAgentHost`.
"""

from __future__ import annotations

from .agent_commands import AgentCommands
from .history_commands import HistoryCommands
from .people_commands import PeopleCommands
from .prompt_commands import PromptCommands
from .startup import RoomStartup


class Room(RoomStartup, PeopleCommands, PromptCommands, AgentCommands, HistoryCommands):
    """One room: built by `RoomParts.__init__`, started by `ensure_started`."""
