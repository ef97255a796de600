"""`copilot-room/mcp`: the room's notebook tools as an MCP server (`agent/notebook_mcp.py`), for
the agents the room runs. The caller is an agent session, never a person: it is known by the
bearer token its grant gave it, not by Jupyter's login (which an agent does not hold), so the
handler takes no login and answers 401 to anyone else. A request carrying an `Origin` (a
browser's) is refused, as MCP's transport asks of a local server.
"""

from __future__ import annotations

import json

from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.base.handlers import JupyterHandler

from ..agent.notebook_mcp import PATH, Grant, NotebookToolsServer

#: Addresses a server listens on for everyone; its agents reach it on the loopback.
EVERY_ADDRESS = {"", "0.0.0.0", "::", "*", "localhost"}
#: Largest request an agent may send (a cell's source is at most 100 000 characters).
MAX_BODY = 2 * 2**20


def tools_url(serverapp) -> str | None:
    """Where the server's agents reach the tools: this server, on the address it listens on (the
    loopback when it listens on every one); None on a Unix socket, which an agent cannot reach."""
    if serverapp.sock:
        return None
    host = "127.0.0.1" if serverapp.ip in EVERY_ADDRESS else serverapp.ip
    host = f"[{host}]" if ":" in host else host
    scheme = "https" if serverapp.certfile else "http"
    return f"{scheme}://{host}:{serverapp.port}{serverapp.base_url}{PATH}"


class NotebookToolsHandler(JupyterHandler):
    def initialize(self, tools: NotebookToolsServer) -> None:
        self.tools = tools

    def check_xsrf_cookie(self) -> None:
        """No cookie is involved: the bearer token is the credential (`_grant`)."""

    @allow_unauthenticated
    async def post(self) -> None:
        grant = self._grant()
        if grant is None:
            return
        if len(self.request.body) > MAX_BODY:
            self._refuse(413, f"A request to the notebook tools is at most {MAX_BODY} bytes.")
            return
        answer = await self.tools.answer(grant, self.request.body)
        if answer is None:
            self.set_status(202)  # a notification: accepted, nothing to say
            self.finish()
            return
        self._send(answer)

    @allow_unauthenticated
    def get(self) -> None:
        """No stream of server messages is offered here (MCP: 405)."""
        self._refuse(405, "This MCP server answers POSTs only; it offers no stream.")

    @allow_unauthenticated
    def delete(self) -> None:
        self._refuse(405, "This MCP server keeps no session to end.")

    def _grant(self) -> Grant | None:
        if self.request.headers.get("Origin"):
            self._refuse(403, "The notebook tools are for the room's agents, not for browsers.")
            return None
        scheme, _, token = self.request.headers.get("Authorization", "").partition(" ")
        grant = self.tools.granted(token) if scheme.lower() == "bearer" else None
        if grant is None:
            self._refuse(401, "A room's agent session's bearer token is required.")
        return grant

    def _send(self, answer: dict) -> None:
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(answer))

    def _refuse(self, status: int, message: str) -> None:
        self.set_status(status)
        self._send({"error": "notebook_tools", "message": message})
