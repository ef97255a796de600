"""A room's session in the server's one Copilot runtime (`shared_runtime.py`).

The session id is kept in `state_dir/copilot-session.json`, so a restarted server (or runtime)
resumes the same conversation; the runtime does not keep a session's configuration, so every
resume passes it again. The runtime's own state (saved sessions, its login) is the server's,
`main`'s `state_dir/copilot/`: a room that saved its session in its own `state_dir/copilot/`
before the rooms shared a runtime has it moved there at its next start.

The runtime runs in a session of its own (`setsid`, where there is one): a Ctrl-C in the
server's terminal goes to the terminal's process group, and killed the runtime along with
asking whether to stop the server. The server stops its runtime itself; a server killed
outright closes the runtime's stdin, on which it exits (measured: 0.2 s).

The runtime's environment is an allow-list (`environment.py`), and a Copilot login's token is
never in it: the SDK's `github_token` option puts it in the runtime's environment, which every
shell command the agent runs inherits, so the token goes with each request that needs it
(`model_access.py`) and the client gets none.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from copilot import CopilotClient

from ...statefiles import read_json, write_json_atomically
from ..environment import agent_environment
from ..seam import AgentSettings
from .shared_runtime import shared_runtime

SAVED_SESSIONS = "session-state"  # the runtime's folder of saved sessions, one per id
SESSION_FILE = "copilot-session.json"  # in a room's state_dir: the id of the session it resumes


def save_session(path: Path, session_id: str, *, conversation: bool) -> None:
    """The session a room resumes, and whether it holds a conversation to lose."""
    write_json_atomically(path, {"session_id": session_id, "conversation": conversation})


class Connection:
    def __init__(
        self,
        settings: AgentSettings,
        runtime_path: str,
        token: str | None,
        busy: Callable[[], bool],
    ):
        """`token`: a login the room hands each request itself; the runtime then never falls
        back on a login of its own. `busy`: whether the room runs a turn now."""
        self.settings = settings
        self.token = token
        self.busy = busy
        self.session_file = settings.state_dir / SESSION_FILE
        self.base = base = settings.runtime_directory or settings.state_dir / "copilot"
        base.mkdir(parents=True, exist_ok=True)
        self.runtime = shared_runtime(
            base,
            runtime_path,
            agent_environment(os.environ, settings.agent_env),
            logged_in=token is None,
        )
        self._client: CopilotClient | None = None
        self.generation = 0
        self.session: Any = None
        self.conversation = False  # whether the session was ever prompted (or forked with one)
        self.responsive = True  # false once a ping went unanswered: closing it then kills it

    @property
    def pid(self) -> int | None:
        """The runtime process's id, while this connection's runtime is the one running."""
        return self.runtime.pid if self.current else None

    @property
    def current(self) -> bool:
        return self._client is not None and self.runtime.generation == self.generation

    @property
    def client(self) -> CopilotClient:
        if self._client is None:
            raise RuntimeError("the Copilot runtime is not connected")
        return self._client

    async def start(self) -> None:
        self._client, self.generation = await self.runtime.lease(self)

    async def open_session(
        self, config: dict[str, Any], on_event: Callable[[Any], None], log: logging.Logger
    ) -> bool:
        """Resume the room's session by id; a new one only when there is none to resume.
        True when there was one with a conversation and it could not be resumed: the earlier
        context is lost. (The runtime saves no session nobody has prompted: not resuming one
        loses nothing.)"""
        saved = read_json(self.session_file) or {}
        session_id = saved.get("session_id")
        lost = False
        if session_id:
            await asyncio.to_thread(self._bring_saved_session, session_id)
            try:
                self.session = await self.client.resume_session(session_id, **config)
            except Exception as err:
                lost = saved.get("conversation", True)  # files from before 0.3 did not say
                level = logging.WARNING if lost else logging.INFO
                log.log(level, "Could not resume Copilot session %s: %s", session_id, err)
            else:
                self.conversation = saved.get("conversation", True)
        if self.session is None:
            self.session = await self.client.create_session(**config)
            self.conversation = False
            save_session(self.session_file, self.session.session_id, conversation=False)
        self.session.on(on_event)
        return lost

    async def prompted(self) -> None:
        """The session holds a conversation now: a resume that fails from here on loses it."""
        if not self.conversation:
            self.conversation = True
            await asyncio.to_thread(
                save_session, self.session_file, self.session.session_id, conversation=True
            )

    def _bring_saved_session(self, session_id: str) -> None:
        """A session the room's own runtime saved (before the rooms shared one) moves to the
        shared runtime's state, where resuming looks for it."""
        own: Path = self.settings.state_dir / "copilot" / SAVED_SESSIONS / session_id
        shared = self.base / SAVED_SESSIONS / session_id
        if own != shared and own.is_dir() and not shared.exists():
            shared.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(own, shared)

    async def alive(self, timeout: float) -> bool:
        """Whether the runtime answers a ping within `timeout` s: a dead one does not, neither
        does one that is alive but stopped or hung, and one another room discarded is gone."""
        if not self.current:
            self.responsive = False
            return False
        try:
            await asyncio.wait_for(self.client.ping(), timeout)
        except Exception:
            self.responsive = False
            return False
        return True

    async def close(self, *, reconnecting: bool = False) -> None:
        """Close the room's session and give the runtime back (the last room stops it, unless
        this one is `reconnecting`); a runtime that stopped answering is killed, for all."""
        session, self.session = self.session, None
        if self._client is None:
            return
        # The runtime's own stop disconnects every session: the last room does not do it first
        # (at a server's stop, that was a second wait on the runtime within the stop's 5 s).
        stopping = not reconnecting and self.runtime.stops_with(self)
        if not self.responsive:
            await self.runtime.discard(self.generation)
        elif session is not None and self.current and not stopping:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(session.disconnect(), 5)
        self._client = None
        await self.runtime.release(self, keep=reconnecting)
