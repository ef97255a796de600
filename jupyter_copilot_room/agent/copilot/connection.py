"""One Copilot runtime process and the room's one session in it.

The session id is kept in `state_dir/copilot-session.json`, so a restarted server (or runtime)
resumes the same conversation; the runtime does not keep a session's configuration, so every
resume passes it again. The runtime's own state lives in `state_dir/copilot/`.

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
from typing import Any

from copilot import CopilotClient, RuntimeConnection

from ...statefiles import read_json, write_json_atomically
from ..base import AgentSettings
from .environment import agent_environment


def in_own_session(runtime_path: str) -> RuntimeConnection:
    """The runtime, started by `setsid` (which execs it: the process is the runtime's)."""
    setsid = shutil.which("setsid")
    if setsid is None:
        return RuntimeConnection.for_stdio(path=runtime_path)
    node = ["node"] if runtime_path.endswith(".js") else []  # as the SDK runs a script
    return RuntimeConnection.for_stdio(path=setsid, args=[*node, runtime_path])


class Connection:
    def __init__(self, settings: AgentSettings, runtime_path: str | None, token: str | None):
        """`token`: a login the room hands each request itself; the runtime then never falls
        back on a login of its own."""
        self.settings = settings
        self.token = token
        self.session_file = settings.state_dir / "copilot-session.json"
        self.base = base = settings.state_dir / "copilot"  # the runtime's own state
        base.mkdir(exist_ok=True)
        self.client = CopilotClient(
            connection=in_own_session(runtime_path) if runtime_path else None,
            working_directory=str(settings.repository),
            base_directory=str(base),
            env=agent_environment(os.environ, settings.agent_env),
            use_logged_in_user=token is None,
            log_level="error",
        )
        self.session: Any = None
        self.responsive = True  # false once a ping went unanswered: closing it then kills it

    @property
    def pid(self) -> int | None:
        """The runtime process's id (the SDK keeps the process it spawned)."""
        process = getattr(self.client, "_cli_process", None)
        return process.pid if process is not None else None

    async def start(self) -> None:
        await self.client.start()

    async def open_session(
        self, config: dict[str, Any], on_event: Callable[[Any], None], log: logging.Logger
    ) -> bool:
        """Resume the room's session by id; a new one only when there is none to resume.
        True when there was one and it could not be resumed: the earlier context is lost."""
        session_id = (read_json(self.session_file) or {}).get("session_id")
        lost = False
        if session_id:
            try:
                self.session = await self.client.resume_session(session_id, **config)
            except Exception as err:
                log.warning("Could not resume Copilot session %s: %s", session_id, err)
                lost = True
        if self.session is None:
            self.session = await self.client.create_session(**config)
            write_json_atomically(self.session_file, {"session_id": self.session.session_id})
        self.session.on(on_event)
        return lost

    async def alive(self, timeout: float) -> bool:
        """Whether the runtime answers a ping within `timeout` s: a dead one does not, and
        neither does one that is alive but stopped or hung."""
        try:
            await asyncio.wait_for(self.client.ping(), timeout)
        except Exception:
            self.responsive = False
            return False
        return True

    async def close(self) -> None:
        """Stop the runtime; one that stopped answering is killed at once (SIGKILL): a stopped
        process would neither hear a polite stop nor a SIGTERM."""
        self.session = None
        if self.responsive:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.stop(), 5)
                return
        with contextlib.suppress(Exception):
            await self.client.force_stop()
