"""The room's notebook tools as an MCP server, for every agent that is not the room's own Copilot:
an ACP agent is told of it in `session/new`'s `mcpServers` and edits open notebooks through the
CRDT as the Copilot agent does (`notebook_calls.py`).

It is served by the Jupyter server itself, at `copilot-room/mcp` (MCP's Streamable HTTP
transport, each POST answered with JSON: no stream, no session), so no process or port is added.
Each agent session gets a grant, a bearer token that names its room's notebook tools; a call
comes from the agent, never from a person, so the room's gate is in the call: an edit or a run
asks the room's card first, exactly as a Copilot tool call does. The protocol's messages are
checked and written with the MCP SDK's own types (`mcp_types`).
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import jsonschema
import mcp_types as mcp
from pydantic import ValidationError

from ..notebooks import TOOLS
from .notebook_calls import NotebookCalls, approval_of
from .seam import AgentHost

#: The server's name as the agent sees it (Copilot names its tools `jupyter-notebook_read`).
SERVER_NAME = "jupyter"
PATH = "copilot-room/mcp"
INSTRUCTIONS = (
    "The notebooks people have open in this Jupyter server. Use these tools, not file writes, "
    "for .ipynb files: each edit shows live in everyone's open notebook."
)
NO_TURN = "The room runs none of this agent's turns now: a notebook tool works only in a turn."


@dataclass(frozen=True)
class Grant:
    """One agent session's use of the tools: its room's notebook calls and the room as its host
    (None, or `running()` false: no turn runs, and a call is refused)."""

    calls: NotebookCalls
    host: Callable[[], AgentHost | None]
    running: Callable[[], bool]


class NotebookToolsServer:
    """Every grant of the server, by token; `url()` is where agents reach it (None: nowhere an
    agent can, a server on a Unix socket)."""

    def __init__(self, url: Callable[[], str | None], log: logging.Logger):
        self.url = url
        self.log = log
        self._grants: dict[str, Grant] = {}

    def grant(self, grant: Grant) -> str:
        token = secrets.token_urlsafe(32)
        self._grants[token] = grant
        return token

    def revoke(self, token: str) -> None:
        self._grants.pop(token, None)

    def granted(self, token: str) -> Grant | None:
        return self._grants.get(token)

    async def answer(self, grant: Grant, body: bytes) -> dict | None:
        """A JSON-RPC message's answer (None for a notification, which has none)."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return _error(None, mcp.PARSE_ERROR, "Not JSON.")
        try:
            envelope = mcp.jsonrpc_message_adapter.validate_python(message)
        except ValidationError:
            return _error(None, mcp.INVALID_REQUEST, "Not a JSON-RPC 2.0 message.")
        if not isinstance(envelope, mcp.JSONRPCRequest):
            return None  # a notification (`notifications/initialized`) or a stray response
        try:
            request = mcp.client_request_adapter.validate_python(
                {"method": envelope.method, "params": envelope.params}
            )
        except ValidationError as err:
            known = envelope.method in KNOWN_METHODS
            code = mcp.INVALID_PARAMS if known else mcp.METHOD_NOT_FOUND
            text = f"Invalid params: {err.errors()[0]['msg']}" if known else "Method not found."
            return _error(envelope.id, code, text)
        if isinstance(request, mcp.InitializeRequest):
            result: Any = _initialized(request.params.protocol_version)
        elif isinstance(request, mcp.ListToolsRequest):
            result = mcp.ListToolsResult(tools=TOOL_LIST)
        elif isinstance(request, mcp.CallToolRequest):
            if request.params.name not in TOOL_SPECS:
                return _error(envelope.id, mcp.INVALID_PARAMS, f"No tool {request.params.name}.")
            try:
                result = await _call(grant, request.params, f"mcp-{envelope.id}")
            except Exception:  # the agent hears a call failed, the log says why
                self.log.exception("The notebook tool %s failed", request.params.name)
                return _error(envelope.id, mcp.INTERNAL_ERROR, "The notebook tool failed.")
        elif isinstance(request, mcp.PingRequest):
            result = mcp.EmptyResult()
        else:
            return _error(envelope.id, mcp.METHOD_NOT_FOUND, "Method not found.")
        return {
            "jsonrpc": "2.0",
            "id": envelope.id,
            "result": result.model_dump(by_alias=True, exclude_none=True, mode="json"),
        }


TOOL_SPECS = {spec.name: spec for spec in TOOLS}
TOOL_LIST = [
    mcp.Tool(name=spec.name, description=spec.description, input_schema=spec.parameters)
    for spec in TOOLS
]
KNOWN_METHODS = {"initialize", "ping", "tools/list", "tools/call"}


def server_name() -> str:
    """A session's name for this server, its own: no MCP server the agent finds in the
    repository can take it, so a tool call under it is the room's."""
    return f"{SERVER_NAME}-{secrets.token_hex(3)}"


def room_tool_name(name: str, server: str, bare: bool = False) -> str | None:
    """The room's tool an agent's name for a tool means under the server's name `server` (as
    Copilot says it, `<server>-x`, or Claude, `mcp__<server>__x`; `bare`: the tool's own name
    too, for showing a row), or None when it is none of them."""
    prefixes = (f"{server}-", f"mcp__{server}__", *(("",) if bare else ()))
    for prefix in prefixes:
        if name.startswith(prefix) and name.removeprefix(prefix) in TOOL_SPECS:
            return name.removeprefix(prefix)
    return None


def takes(tool: str, arguments: object) -> bool:
    """Whether `arguments` are a call of the room's tool `tool`: its parameters, no others."""
    schema = TOOL_SPECS[tool].parameters
    return (
        isinstance(arguments, dict)
        and set(arguments) <= set(schema.get("properties", {}))
        and jsonschema.Draft202012Validator(schema).is_valid(arguments)
    )


def _initialized(asked: str) -> mcp.InitializeResult:
    """The client's protocol version when this server speaks it, else the newest it does."""
    known = mcp.version.HANDSHAKE_PROTOCOL_VERSIONS
    return mcp.InitializeResult(
        protocol_version=asked if asked in known else mcp.version.LATEST_HANDSHAKE_VERSION,
        capabilities=mcp.ServerCapabilities(tools=mcp.ToolsCapability()),
        server_info=mcp.Implementation(name=SERVER_NAME, version=version("jupyter_copilot_room")),
        instructions=INSTRUCTIONS,
    )


async def _call(grant: Grant, params: mcp.CallToolRequestParams, call_id: str) -> Any:
    """A tool call: refused outside a turn; an edit or a run only once the room's card let it."""
    host = grant.host()
    if host is None or not grant.running():
        return _failed(NO_TURN)
    arguments = params.arguments or {}
    if approval_of(params.name) is not None:
        answer = await host.request_permission(await grant.calls.describe(params.name, arguments))
        if not answer.approved:
            return _failed(answer.text or "The room did not approve this call.")
    outcome = await grant.calls.call(params.name, arguments, call_id)
    content: list[Any] = [mcp.TextContent(type="text", text=outcome.text)]
    content += [
        mcp.ImageContent(type="image", data=image.data, mime_type=image.mime_type)
        for image in outcome.images
    ]
    return mcp.CallToolResult(content=content, is_error=outcome.failed)


def _failed(text: str) -> mcp.CallToolResult:
    return mcp.CallToolResult(content=[mcp.TextContent(type="text", text=text)], is_error=True)


def _error(request_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
