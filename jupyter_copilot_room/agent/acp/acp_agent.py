"""`AcpAgent`: the room's agent seam over the Agent Client Protocol. The server's one process of
the agent `c.CopilotRoom.agents` names (`agent_processes.py`) serves ACP on its stdio; the room's
session in it is created, or loaded after a restart when the agent offers `loadSession`; each of
the room's turns is a `session/prompt`, aborted by `session/cancel`. The agent's updates become
the room's events (`session_updates.py`); its permission requests become the room's cards
(`permission_asks.py`), routed and decided as every card is, and on abort every open one is
answered `cancelled`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import acp
from acp import schema

from ...events import AgentEvent, AgentStatus, TurnEnded, TurnUsage
from ..attribution import SYSTEM_NOTE, attributed
from ..notebook_calls import NotebookCalls
from ..notebook_mcp import Grant, NotebookToolsServer, server_name
from ..seam import Agent, AgentHost, AgentSettings, AgentTurn, Answer
from .agent_processes import EXIT_GRACE, START_TIMEOUT, AgentProcess, AgentProcesses
from .agent_spec import AcpAgentSpec
from .client_gate import ClientGate
from .conversation_log import PRIMER, ConversationLog
from .permission_asks import cancelled, chosen_option, permission_ask, room_tool
from .session_models import SessionModels
from .session_updates import SessionUpdates
from .turn_usage import UsageReadings

#: Why a turn ended other than by its end, in words for the room.
STOPS = {
    "max_tokens": "The agent stopped: the model reached its token limit.",
    "max_turn_requests": "The agent stopped: it reached its limit of model requests in a turn.",
    "refusal": "The agent refused to go on with this turn.",
}
#: How the room works, as a session's first prompt says it (ACP has no system message).
RULES = f"<room_rules>\n{SYSTEM_NOTE}\n</room_rules>"
#: What the ready line says when the session of before could not be loaded.
SESSION_LOST = "The agent's earlier context was lost: it starts a new session."
#: ... when the room gives the new session the conversation it recorded.
SESSION_PRIMED = (
    "The agent's earlier context was lost: it starts a new session, given the room's "
    "conversation so far."
)
#: Why a primed session is new, as its primer says it.
NOT_LOADED = "its earlier session could not be loaded after a restart"


class AgentStartFailed(Exception):
    """The agent could not start or open its session; the message says why."""


class AcpAgent(Agent):
    def __init__(
        self,
        settings: AgentSettings,
        spec: AcpAgentSpec,
        processes: AgentProcesses,
        notebook_tools: NotebookToolsServer | None = None,
    ):
        """`processes`: the server's agent processes, one of which holds the room's session;
        `notebook_tools`: the server's MCP server of notebook tools, offered to the session
        (None: no notebook tools, as in a benchmark's room)."""
        super().__init__(settings)
        self.spec = spec
        self.processes = processes
        self.gate = ClientGate(settings.repository, lambda: self._host)
        self.notebook_tools = notebook_tools
        self.notebook_calls = NotebookCalls(settings.notebooks) if settings.notebooks else None
        self._grant: str | None = None  # the session's token for the notebook tools
        self._tools_server = server_name()  # the session's name for their server
        self.name, self.title = spec.name, spec.title
        self.log = settings.log
        self.folder = settings.state_dir / "agents" / spec.name
        self.conversation = ConversationLog(self.folder)
        self._host: AgentHost | None = None
        self._process: AgentProcess | None = None
        self._conn: Any = None
        self._session: str | None = None
        self._fresh = True  # a new session: its first prompt says how the room works
        self._updates: SessionUpdates | None = None  # the running turn's
        self._turn: asyncio.Task | None = None
        self._cancelled = False
        self._stopping = False
        self.session_models = SessionModels(settings.model)
        self.usage = UsageReadings()

    # -- life ----------------------------------------------------------------------------------

    async def start(self, host: AgentHost) -> None:
        self._host = host
        await host.publish(AgentStatus(state="starting", label=f"Starting {self.title}"))
        try:
            lost = await self._connect()
        except (OSError, AgentStartFailed, acp.RequestError, TimeoutError) as err:
            await self._close()
            await host.publish(
                AgentStatus(
                    state="unavailable",
                    label=f"{self.title} cannot run",
                    detail=f"The room could not start {self.title} ({' '.join(self.spec.command)})"
                    ". Check c.CopilotRoom.agents, then retry.",
                    error=str(err) or type(err).__name__,
                )
            )
            return
        await self._use_chosen_model()
        shown = self.spec.shown_title
        label = f"{shown}: {lost}" if lost else shown
        await host.publish(AgentStatus(state="ready", label=label, model=self._model_name()))

    async def restart(self) -> None:
        await self._close()
        if self._host is not None:
            await self.start(self._host)

    async def stop(self) -> None:
        await self._close()

    async def _connect(self) -> str | None:
        """Lease the agent's process and open the room's session in it; what the ready line
        says when the session of before could not be loaded (a new one was made instead)."""
        self._stopping = False
        if refusal := self.spec.refusal():
            raise AgentStartFailed(refusal)
        self.folder.mkdir(parents=True, exist_ok=True)  # the room's session and conversation
        self._process = await self.processes.lease(self.spec, self)
        self._conn = self._process.conn
        capabilities = self._process.capabilities
        saved = self._saved()
        self._tools_server = saved.get("tools_server") or server_name()
        servers = self._mcp_servers(capabilities.mcp_capabilities)
        async with asyncio.timeout(START_TIMEOUT):
            return await self._open_session(
                saved.get("session_id"), bool(capabilities.load_session), servers
            )

    def _mcp_servers(self, offered: schema.McpCapabilities | None) -> list:
        """The room's notebook tools as an MCP server over HTTP, where the agent takes one."""
        tools, calls = self.notebook_tools, self.notebook_calls
        url = tools.url() if tools is not None else None
        if tools is None or calls is None or url is None:
            return []
        profile = self.spec.profile
        if profile is not None and profile.no_mcp:
            self.log.warning("%s gets no notebook tools: %s", self.title, profile.no_mcp)
            return []
        if offered is None or not offered.http:
            self.log.warning(
                "%s takes no MCP server over HTTP: it edits notebooks as files, not live",
                self.title,
            )
            return []
        self._grant = tools.grant(
            Grant(calls, lambda: self._host, lambda: self._updates is not None)
        )
        bearer = schema.HttpHeader(name="Authorization", value=f"Bearer {self._grant}")
        name = self._tools_server
        return [schema.HttpMcpServer(type="http", name=name, url=url, headers=[bearer])]

    async def _open_session(self, saved: str | None, can_load: bool, servers: list) -> str | None:
        cwd = str(self.settings.repository)
        assert self._process is not None
        if saved and can_load:
            self._session = saved  # its replayed history is no turn's: `heard` skips it
            self._process.sessions[saved] = self
            try:
                loaded = await self._conn.load_session(
                    cwd=cwd, session_id=saved, mcp_servers=servers, **self._session_meta()
                )
            except acp.RequestError as err:
                self.log.warning("%s could not load session %s: %s", self.title, saved, err)
                del self._process.sessions[saved]
            else:
                self._fresh = False
                self.session_models.read(loaded.config_options if loaded else None)
                await self._set_mode()
                return None
        new = await self._conn.new_session(cwd=cwd, mcp_servers=servers, **self._session_meta())
        self._session, self._fresh = new.session_id, True
        self._process.sessions[self._session] = self
        self.session_models.read(new.config_options)
        self._save_session()
        await self._set_mode()
        if not saved:
            return None
        primer = self.conversation.primer((), why=NOT_LOADED)
        if primer:  # the new session's first prompt carries the conversation
            (self.folder / PRIMER).write_text(primer, encoding="utf-8")
        return SESSION_PRIMED if primer else SESSION_LOST

    def _session_meta(self) -> dict:
        profile = self.spec.profile
        return dict(profile.session_meta) if profile is not None else {}

    async def _set_mode(self) -> None:
        """The host's mode, else the profile's (which a repository's settings must not set)."""
        profile = self.spec.profile
        if mode := self.spec.mode or (profile.session_mode if profile is not None else ""):
            await self._conn.set_session_mode(session_id=self._session, mode_id=mode)

    def _saved(self) -> dict[str, str]:
        """The session of before and its name for the notebook tools' server (its history
        names the tools so)."""
        with contextlib.suppress(OSError, ValueError):
            saved = json.loads((self.folder / "session.json").read_text())
            if isinstance(saved, dict):
                return {k: v for k, v in saved.items() if isinstance(v, str)}
        return {}

    def _save_session(self) -> None:
        saved = {"session_id": self._session, "tools_server": self._tools_server}
        (self.folder / "session.json").write_text(json.dumps(saved))

    async def process_exited(self, code: int) -> None:
        """The agent exited by itself: the room fails the turn it had and restarts it."""
        if not self._stopping and self._host is not None:
            await self._host.publish(
                AgentStatus(
                    state="lost",
                    label=f"{self.title} stopped",
                    error=f"{self.title} exited with code {code}",  # the turn's words too
                )
            )

    async def _close(self) -> None:
        self._stopping = True
        if self._turn is not None and not self._turn.done():
            self._turn.cancel()
            with contextlib.suppress(BaseException):
                await self._turn
        self._turn = None
        if self._grant is not None and self.notebook_tools is not None:
            self.notebook_tools.revoke(self._grant)
            self._grant = None
        await self.gate.end_turn()
        process, self._process, self._conn = self._process, None, None
        if process is not None:
            await self.processes.release(self, process)

    # -- turns ---------------------------------------------------------------------------------

    async def send(self, turn: AgentTurn) -> None:
        if self._conn is None or self._session is None:
            raise RuntimeError(f"{self.title} is not running")
        said = attributed(turn.author, turn.text)
        text = said
        if self._fresh:  # a new session: its first prompt says how the room works
            primer = self.folder / PRIMER  # a side thread's: the room's conversation before it
            before = primer.read_text(encoding="utf-8") if primer.exists() else ""
            text = "\n\n".join(
                part
                for part in (f"<room_rules>\n{SYSTEM_NOTE}\n</room_rules>", before, said)
                if part
            )
            self._fresh = False
            primer.unlink(missing_ok=True)
        await self._use_chosen_model()
        self._cancelled = False
        if self.notebook_calls is not None:
            self.notebook_calls.begin_turn(turn)
        self._updates = SessionUpdates(self._tools_server)
        self.gate.begin_turn()
        self.usage.begin_turn()
        self._turn = asyncio.create_task(self._run(turn.prompt_id, said, text, self._updates))

    async def fork(self, later: Sequence[str], into: Path, name: str) -> None:
        """A side thread's agent (its state in `into`) starts a new session primed with the
        conversation up to the first turn of `later` (ACP has no fork of a session)."""
        folder = into / "agents" / self.spec.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / PRIMER).write_text(self.conversation.primer(later), encoding="utf-8")

    async def _run(self, prompt_id: str, said: str, text: str, updates: SessionUpdates) -> None:
        error: str | None = None
        usage: TurnUsage | None = None
        try:
            response = await self._conn.prompt(
                session_id=self._session, prompt=[acp.text_block(text)]
            )
        except acp.RequestError as err:
            error = f"{self.title} failed this turn: {err}"
        except (ConnectionError, OSError, RuntimeError) as err:  # the agent went away
            error = await self._gone(err)
        else:
            error = STOPS.get(response.stop_reason)
            usage = self.usage.booked(response, self._model_name() or self.name)
        ended = self._cancelled or error is not None
        self._updates = None
        await self.gate.end_turn()
        for event in updates.finished(partial=ended):
            await self._publish(event)
        self.conversation.add(prompt_id, said, "\n\n".join(updates.replies))
        if usage is not None:
            await self._publish(usage)
        await self._publish(TurnEnded(error=None if self._cancelled else error))

    async def _gone(self, err: BaseException) -> str:
        """Why the turn failed when the agent's connection closed: its exit, when it exited."""
        process = self._process
        code = await process.exit_code(within=EXIT_GRACE) if process is not None else None
        if code is not None:
            return f"{self.title} exited with code {code} during this turn."
        return f"{self.title} stopped answering during this turn: {err or type(err).__name__}"

    async def heard(self, session_id: str, update: Any) -> None:
        """An update of the agent's: read only while one of the room's turns runs (the size of
        its context whenever it is said)."""
        if session_id == self._session and isinstance(update, schema.UsageUpdate):
            self.usage.heard(update)
        elif session_id == self._session and self._updates is not None:
            for event in self._updates.read(update):
                await self._publish(event)

    async def asked(
        self, session_id: str, tool_call: schema.ToolCallUpdate, options: list
    ) -> schema.RequestPermissionResponse:
        """A permission request: the room's card, answered by the option of the same kind."""
        if self._host is None or self._cancelled or session_id != self._session:
            return cancelled()
        updates = self._updates
        announced = updates.room_calls.get(tool_call.tool_call_id) if updates else None
        if room_tool(tool_call, announced):  # its call asks the room's card (`notebook_mcp.py`)
            return chosen_option(Answer(approved=True), options)
        for event in updates.asked(tool_call) if updates else ():
            await self._publish(event)
        ask = permission_ask(tool_call, self.settings.repository)
        answer = await self._host.request_permission(ask)
        if answer.approved:
            self.gate.approved(ask)  # what it names may go through the client once
        return cancelled() if self._cancelled else chosen_option(answer, options)

    async def abort(self) -> None:
        self._cancelled = True
        if self._conn is not None and self._session is not None:
            with contextlib.suppress(Exception):
                await self._conn.cancel(session_id=self._session)

    async def steer(self, author: str, text: str) -> None:
        raise RuntimeError(f"{self.title} takes no message while it works (ACP has no steering)")

    async def models(self) -> list[str]:
        return self.session_models.choices()

    async def use_model(self, model: str) -> None:
        """Asked of the session now between turns, else before the next prompt."""
        self.session_models.wanted = model
        if self._updates is None and self._host is not None and self._session is not None:
            await self._use_chosen_model()
            await self._host.publish(
                AgentStatus(state="ready", label=self.title, model=self._model_name())
            )

    async def _use_chosen_model(self) -> None:
        if self._conn is None or self._session is None:
            return
        try:
            await self.session_models.apply(self._conn, self._session)
        except acp.RequestError as err:  # the turn goes on with the model it has
            self.log.warning(
                "%s did not take the model %s: %s", self.title, self.session_models.wanted, err
            )

    def _model_name(self) -> str:
        return self.session_models.current or self.session_models.wanted

    async def _publish(self, event: AgentEvent) -> None:
        if self._host is not None:
            await self._host.publish(event)
