"""The Copilot adapter: one runtime, one session, behind the room's agent seam.

This is the only module that imports the Copilot SDK. It turns the room's turns into
`session.send` calls, runtime events into the room's plain events (an explicit allow-list; the
rest is counted and ignored), and the runtime's permission and ask_user callbacks into the room's
approval and question cards, which only the room answers. It also watches the runtime: a dead
process is noticed by a periodic probe, restarted, and the session resumed by id with its full
configuration passed again (the runtime does not keep it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections import Counter
from typing import Any
from urllib.parse import urlparse

from copilot import CopilotClient, RuntimeConnection
from copilot.generated.rpc import PermissionDecisionApproveOnce, PermissionDecisionReject
from copilot.tools import Tool, ToolInvocation, ToolResult

from ..statefiles import read_json, write_json_atomically
from .base import (
    Agent,
    AgentError,
    AgentHost,
    AgentStatus,
    Message,
    MessageDelta,
    PermissionAsk,
    QuestionAsk,
    Reasoning,
    ReasoningDelta,
    SubagentEnded,
    SubagentStarted,
    ToolCompleted,
    ToolStarted,
    Turn,
    TurnEnded,
    Usage,
)
from .demo import DEMO_LABEL, DEMO_MODEL, DEMO_NOTE, demo_script
from .notebooks import TOOL_NAMES, TOOLS, NotebookToolError, Provenance
from .runtime import MISSING_HELP, RuntimeMissing, find_runtime
from .scripted_model import ScriptedModelServer

SYSTEM_NOTE = """\
You are working in a shared room: several people in one Jupyter server steer you together, one
prompt at a time, and all of them see your replies and tool calls as they happen. Each person's
message arrives as "[login]: text". Answer the person who asked (address them by login when it
helps), keep in mind that the next message may come from someone else, and do not assume that
approvals or answers come from the person who wrote the current prompt: a host may answer too."""

TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
RESULT_EXCERPT = 2000


class CopilotAgent(Agent):
    #: Seconds between health probes of the runtime.
    probe_interval = 5.0
    #: Seconds a probe waits for the runtime's answer before calling it dead.
    probe_timeout = 3.0

    def __init__(self, settings):
        super().__init__(settings)
        self.log = settings.log
        self.ignored_events: Counter[str] = Counter()
        self._host: AgentHost | None = None
        self._client: CopilotClient | None = None
        self._session = None
        self._demo: ScriptedModelServer | None = None
        self._access: dict[str, Any] = {}
        self._label = "Copilot"
        self._events: asyncio.Queue = asyncio.Queue()
        self._tasks: list[asyncio.Task] = []
        self._lock = asyncio.Lock()
        self._busy = False
        self._turn_error: str | None = None
        self._usage: Counter[str] = Counter()
        self._usage_model = ""
        self._tools_started: dict[str, float] = {}
        self._agents: list[dict] = []
        self._notes: list[str] = []  # what people should know about how the agent runs
        self._turn: Turn | None = None
        self._turn_count = 0
        self._session_file = settings.state_dir / "copilot-session.json"
        self._location = None

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self, host: AgentHost) -> None:
        self._host = host
        self._tasks.append(asyncio.create_task(self._pump()))
        await host.publish(AgentStatus("starting", self._label, "Starting the Copilot runtime…"))
        try:
            self._location = find_runtime(self.settings.cli_path)
            async with self._lock:
                await self._connect()
        except RuntimeMissing as err:
            await self._unavailable(str(err))
            return
        except Exception as err:
            self.log.exception("The Copilot runtime could not be started")
            downloading = self._location is None or self._location.path is None
            await self._unavailable(
                f"The Copilot runtime could not be started: {err}. "
                + (MISSING_HELP if downloading else "")
            )
            return
        self._tasks.append(asyncio.create_task(self._watch()))

    async def _unavailable(self, detail: str) -> None:
        self.log.error("Copilot room agent unavailable: %s", detail)
        await self._host.publish(AgentStatus("unavailable", self._label, detail))

    async def _connect(self) -> None:
        """Start the runtime, work out model access, then resume or create the session."""
        token = next((os.environ[v] for v in TOKEN_VARIABLES if os.environ.get(v)), None)
        path = self._location.path
        base = self.settings.state_dir / "copilot"
        base.mkdir(exist_ok=True)
        self._client = CopilotClient(
            connection=RuntimeConnection.for_stdio(path=path) if path else None,
            working_directory=str(self.settings.repository),
            base_directory=str(base),
            github_token=token,
            use_logged_in_user=token is None,
            log_level="error",
        )
        await self._client.start()
        if not self._access:
            self._access = await self._model_access(token)
        note = await self._open_session()
        detail = " ".join([*self._notes, note]).strip()
        await self._host.publish(AgentStatus("ready", self._label, detail))

    async def _model_access(self, token: str | None) -> dict[str, Any]:
        """BYOK provider if configured, else a Copilot login, else the demo model."""
        provider = self.settings.provider
        if provider:
            key_variable = provider.get("api_key_env", "")
            key = os.environ.get(key_variable, "") if key_variable else ""
            if key_variable and not key:
                raise RuntimeMissing(f"The provider's key variable {key_variable} is not set.")
            if not self.settings.model:
                raise RuntimeMissing("A provider needs c.CopilotRoom.model (the model to ask).")
            if "api_key" in provider:
                self.log.warning(
                    "c.CopilotRoom.provider['api_key'] is ignored: keep the key in an environment "
                    "variable and name it in 'api_key_env'."
                )
            wire = {k: v for k, v in provider.items() if k not in ("api_key_env", "api_key")}
            wire["api_key"] = key or "none"
            self._label = f"{self.settings.model} via {urlparse(wire.get('base_url', '')).netloc}"
            return {"provider": wire, "model": self.settings.model}
        if token is not None or (await self._client.get_auth_status()).isAuthenticated:
            self._label = self.settings.model or "Copilot"
            return {"model": self.settings.model} if self.settings.model else {}
        self._notes.append(DEMO_NOTE)
        self._demo = ScriptedModelServer(demo_script, model=DEMO_MODEL)
        self._demo.start()
        self._label = DEMO_LABEL
        return {
            "provider": {"type": "openai", "base_url": self._demo.base_url, "api_key": "demo"},
            "model": DEMO_MODEL,
        }

    def _session_config(self) -> dict[str, Any]:
        catalog = self.settings.catalog
        config: dict[str, Any] = {
            **self._access,
            "streaming": True,
            "working_directory": str(self.settings.repository),
            "on_permission_request": self._on_permission,
            "on_user_input_request": self._on_user_input,
            "system_message": {"mode": "append", "content": SYSTEM_NOTE},
        }
        if catalog is not None:
            config["skill_directories"] = [str(d) for d in catalog.skill_directories()]
            config["custom_agents"] = self._agents = catalog.agent_configs()
        if self.settings.notebooks is not None:
            config["tools"] = [
                Tool(
                    spec.name,
                    spec.description,
                    self._run_notebook_tool,
                    parameters=spec.parameters,
                    skip_permission=not spec.edits,
                )
                for spec in TOOLS
            ]
        return config

    async def _run_notebook_tool(self, invocation: ToolInvocation) -> ToolResult:
        """A notebook tool call; edits reach here only after the room approved them."""
        turn = self._turn
        provenance = Provenance(
            prompt_id=turn.prompt_id if turn else "",
            author=turn.author if turn else "",
            turn=self._turn_count,
            tool_call_id=invocation.tool_call_id,
            time=time.time(),
        )
        try:
            text = await self.settings.notebooks.call(
                invocation.tool_name, invocation.arguments, provenance
            )
        except NotebookToolError as err:
            return ToolResult(text_result_for_llm=str(err), result_type="failure", error=str(err))
        return ToolResult(text_result_for_llm=text)

    async def _open_session(self) -> str:
        """Resume the room's session by id; a new one only when there is none to resume."""
        if self.settings.catalog is not None:
            self.settings.catalog.refresh()
        config = self._session_config()
        session_id = (read_json(self._session_file) or {}).get("session_id")
        note = ""
        if session_id:
            try:
                self._session = await self._client.resume_session(session_id, **config)
            except Exception as err:
                self.log.warning("Could not resume Copilot session %s: %s", session_id, err)
                note = (
                    "The previous Copilot session could not be resumed, so the agent "
                    "starts without its earlier context."
                )
                self._session = None
        if self._session is None:
            self._session = await self._client.create_session(**config)
            write_json_atomically(self._session_file, {"session_id": self._session.session_id})
        self._session.on(self._events.put_nowait)
        return note

    async def restart(self) -> None:
        async with self._lock:
            await self._host.publish(
                AgentStatus("starting", self._label, "Restarting the runtime…")
            )
            await self._disconnect()
            await self._connect()

    async def _disconnect(self) -> None:
        client, self._client, self._session = self._client, None, None
        if client is None:
            return
        try:
            await asyncio.wait_for(client.stop(), 5)
        except Exception:
            with contextlib.suppress(Exception):
                await client.force_stop()

    async def stop(self) -> None:
        if self.ignored_events:
            self.log.info("Copilot runtime events the room ignored: %s", dict(self.ignored_events))
        for task in self._tasks:
            task.cancel()
        await self._disconnect()
        if self._demo is not None:
            await self._demo.stop()

    # -- turns -----------------------------------------------------------------------------------

    async def send(self, turn: Turn) -> None:
        if self._session is None:
            raise RuntimeError("the Copilot session is not connected")
        catalog = self.settings.catalog
        if catalog is not None and catalog.agent_configs() != self._agents:
            # Custom agents are fixed when a session is opened: reconnect to pass the new set.
            async with self._lock:
                await self._disconnect()
                await self._connect()
        self._busy, self._turn_error, self._usage_model = True, None, ""
        self._turn = turn
        self._turn_count += 1
        self._usage.clear()
        await self._session.send(f"[{turn.author}]: {turn.text}")

    async def abort(self) -> None:
        if self._session is not None:
            await self._session.abort()

    # -- health ----------------------------------------------------------------------------------

    async def _watch(self) -> None:
        """Probe the runtime; when it is gone, fail the turn it had and bring it back."""
        while True:
            await asyncio.sleep(self.probe_interval)
            if self._lock.locked() or await self._alive():
                continue
            self.log.warning("The Copilot runtime stopped answering; restarting it")
            if self._busy:
                self._busy = False
                if self.settings.notebooks is not None:
                    self.settings.notebooks.leave()
                await self._host.publish(
                    TurnEnded(
                        "The Copilot runtime stopped during this turn, so the turn failed; it was "
                        "not re-run. Submit it again if it is still needed."
                    )
                )
            try:
                await self.restart()
            except Exception as err:
                self.log.exception("Restarting the Copilot runtime failed")
                await self._unavailable(
                    f"The Copilot runtime stopped and could not be "
                    f"restarted: {err}. The room will keep trying."
                )

    async def _alive(self) -> bool:
        if self._client is None:
            return False
        try:
            await asyncio.wait_for(self._client.ping(), self.probe_timeout)
        except Exception:
            return False
        return True

    # -- runtime callbacks -----------------------------------------------------------------------

    async def _on_permission(self, request, invocation):
        if getattr(request, "kind", "") == "custom-tool" and request.tool_name in TOOL_NAMES:
            ask = await self._describe_notebook_edit(request)
        else:
            ask = describe_permission(request)
        answer = await self._host.request_permission(ask)
        if answer.approved:
            return PermissionDecisionApproveOnce()
        return PermissionDecisionReject(feedback=answer.text)

    async def _describe_notebook_edit(self, request) -> PermissionAsk:
        """A notebook edit's card: the notebook, the cell, and a before/after diff."""
        try:
            summary, details = await self.settings.notebooks.describe(
                request.tool_name, request.args
            )
        except NotebookToolError as err:
            summary, details = f"{request.tool_name} (it will fail: {err})", {}
        return PermissionAsk("notebook", summary, details)

    async def _on_user_input(self, request, invocation):
        ask = QuestionAsk(
            question=request.get("question", ""),
            choices=tuple(request.get("choices") or ()),
            allow_freeform=request.get("allowFreeform", True),
        )
        answer = await self._host.ask_question(ask)
        return {"answer": answer.text, "wasFreeform": answer.text not in ask.choices}

    # -- events ----------------------------------------------------------------------------------

    async def _pump(self) -> None:
        """Hand runtime events to the room one at a time, in the order they came."""
        while True:
            event = await self._events.get()
            try:
                for mapped in self._translate(event):
                    await self._host.publish(mapped)
            except Exception:
                self.log.exception("Could not handle runtime event %s", _name(event))

    def _translate(self, event) -> list:
        """The allow-list: runtime events the room shows or records; the rest is counted."""
        name, data = _name(event), event.data
        if name == "assistant.usage":  # sub-agents' calls too: the turn's whole cost
            self._usage_model = self._usage_model or data.model
            self._usage["input_tokens"] += data.input_tokens or 0
            self._usage["output_tokens"] += data.output_tokens or 0
            self._usage["model_calls"] += 1
            return []
        if event.agent_id is not None and not name.startswith("subagent."):
            # A sub-agent's own messages and tools are its work, never the room agent's reply.
            self.ignored_events["subagent:" + name] += 1
            return []
        match name:
            case "assistant.message_delta" if not data.parent_tool_call_id:
                return [MessageDelta(data.message_id, data.delta_content)]
            case "assistant.message" if not data.parent_tool_call_id:
                return [Message(data.message_id, data.content)] if data.content else []
            case "assistant.reasoning_delta":
                return [ReasoningDelta(data.reasoning_id, data.delta_content)]
            case "assistant.reasoning":
                return [Reasoning(data.reasoning_id, data.content)] if data.content else []
            case "tool.execution_start":
                self._tools_started[data.tool_call_id] = time.monotonic()
                arguments = data.arguments if isinstance(data.arguments, dict) else {}
                return [
                    ToolStarted(
                        data.tool_call_id,
                        data.tool_name,
                        summarize_arguments(data.tool_name, arguments),
                        _trim_arguments(arguments),
                    )
                ]
            case "tool.execution_complete":
                started = self._tools_started.pop(data.tool_call_id, None)
                duration = time.monotonic() - started if started is not None else None
                if data.success:
                    text = data.result.content if data.result else ""
                else:
                    text = data.error.message if data.error else "failed"
                return [
                    ToolCompleted(
                        data.tool_call_id, bool(data.success), text[:RESULT_EXCERPT], duration
                    )
                ]
            case "subagent.started":
                return [
                    SubagentStarted(
                        "subagent-" + data.tool_call_id, data.agent_name, data.agent_description
                    )
                ]
            case "subagent.completed":
                return [SubagentEnded("subagent-" + data.tool_call_id, data.agent_name)]
            case "subagent.failed":
                return [SubagentEnded("subagent-" + data.tool_call_id, data.agent_name, data.error)]
            case "session.error":
                self._turn_error = data.message
                return [AgentError(data.message)]
            case "session.idle":
                return self._turn_end()
            case _:
                self.ignored_events[name] += 1
                return []

    def _turn_end(self) -> list:
        if not self._busy:
            return []
        self._busy = False
        if self.settings.notebooks is not None:
            self.settings.notebooks.leave()
        usage = (
            [
                Usage(
                    self._usage_model,
                    self._usage["input_tokens"],
                    self._usage["output_tokens"],
                    self._usage["model_calls"],
                )
            ]
            if self._usage["model_calls"]
            else []
        )
        return [*usage, TurnEnded(self._turn_error)]


def _name(event) -> str:
    return event.raw_type or event.type.value


def describe_permission(request) -> PermissionAsk:
    """What a person must see to decide: the exact command, path or URL, and why."""
    kind = getattr(request, "kind", "unknown")
    intention = getattr(request, "intention", "") or ""
    match kind:
        case "shell":
            return PermissionAsk(
                "shell",
                request.full_command_text,
                {"intention": intention, "warning": request.warning or ""},
            )
        case "write":
            return PermissionAsk(
                "write",
                request.file_name,
                {"intention": intention, "diff": (request.diff or "")[:8000]},
            )
        case "url":
            return PermissionAsk("url", request.url, {"intention": intention})
        case "read":
            return PermissionAsk("read", request.path, {"intention": intention})
        case "mcp":
            return PermissionAsk(
                "mcp",
                f"{request.server_name}: {request.tool_title}",
                {"tool": request.tool_name, "arguments": _json(request.args)},
            )
        case "custom-tool":
            return PermissionAsk(
                "custom-tool", request.tool_name, {"arguments": _json(request.args)}
            )
        case _:
            return PermissionAsk(kind, intention or kind, {})


def summarize_arguments(tool: str, arguments: dict) -> str:
    """A readable line for a tool card: the command, the path, the pattern or the URL."""
    for key in ("command", "path", "file_path", "pattern", "url", "query", "prompt", "description"):
        if value := arguments.get(key):
            return str(value).splitlines()[0][:300]
    return tool


def _trim_arguments(arguments: dict) -> dict:
    return {k: (v[:2000] if isinstance(v, str) else v) for k, v in arguments.items()}


def _json(value) -> str:
    try:
        return json.dumps(value)[:4000]
    except TypeError:
        return str(value)[:4000]
