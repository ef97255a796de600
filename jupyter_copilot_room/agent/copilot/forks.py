"""Forking the room's Copilot session at a turn, for a side thread (`threads/`).

The runtime forks a session up to an event (`sessions.fork`, `to_event_id` exclusive; experimental
in the pinned runtime, and probed with it: the forked session holds the events before the
boundary, with new ids, and the source session is untouched). A turn begins with the
`user.message` event of the message `session.send` returned the id of, so the room remembers,
for each prompt it sent, that message id (`copilot-turns.json` in the room's state_dir: a fork
after a restart still finds its turn); a steering message is a `user.message` too, which is why
turns are found by id, never by counting messages.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from copilot.generated.rpc import SessionsForkRequest
from copilot.generated.session_events import SessionEventType

from ...statefiles import read_json, write_json_atomically
from ..seam import ForkFailed
from .connection import SESSION_FILE, save_session

TURNS_FILE = "copilot-turns.json"


class TurnMessages:
    """Which runtime message began each prompt's turn, kept in the room's state_dir."""

    def __init__(self, state_dir: Path):
        self.path = state_dir / TURNS_FILE
        self._ids: dict[str, str] | None = None

    def _loaded(self) -> dict[str, str]:
        if self._ids is None:
            self._ids = dict(read_json(self.path) or {})
        return self._ids

    async def remember(self, prompt_id: str, message_id: str) -> None:
        ids = self._loaded()
        ids[prompt_id] = message_id
        await asyncio.to_thread(write_json_atomically, self.path, dict(ids))

    def message_of(self, prompt_id: str) -> str | None:
        return self._loaded().get(prompt_id)


async def fork_into(
    client: Any, session: Any, before_message: str | None, into: Path, name: str
) -> str:
    """Fork `session` before the turn that `before_message` began (None: all of it) and make
    the fork the session an agent whose state_dir is `into` resumes; the fork's id."""
    boundary = None
    if before_message is not None:
        events = await session.get_events()
        boundary = next(
            (
                event.id
                for event in events
                if event.type == SessionEventType.USER_MESSAGE
                and getattr(event.data, "message_id", None) == before_message
            ),
            None,
        )
        if boundary is None:
            raise ForkFailed("The agent's session no longer holds the turn to fork before.")
    result = await client.rpc.sessions.fork(
        SessionsForkRequest(
            session_id=session.session_id,
            name=name,
            to_event_id=None if boundary is None else str(boundary),
        )
    )
    into.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(save_session, into / SESSION_FILE, result.session_id, conversation=True)
    return result.session_id
