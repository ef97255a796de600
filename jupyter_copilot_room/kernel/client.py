"""`connect()`: the room's REST API and live document, as the kernel's own credentials allow.

The kernel acts as whoever its credentials name: on JupyterHub the server's owner; under a plain
token server the room's "Server owner", a host (the server's token with no browser session, so
this client never keeps jupyter_server's login cookie). The server takes the author from
authentication only; a kernel's prompts carry `origin: "kernel"` so the room says they came from
a notebook kernel.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from typing import Any

from .discovery import ServerInfo, discover
from .live_document import LiveDocument
from .record_frames import Records
from .summaries import attach_summaries
from .turn import Turn

API = "copilot-room/api/"


class RoomAPIError(RuntimeError):
    """The room refused a command: `status`, `code` and the server's own `message`."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(f"{message} ({status} {code})")
        self.status, self.code, self.message = status, code, message


#: One `KernelRoom` per server and token in this process: `connect()` and `%%copilot` share one
#: connection to the room's live document.
_ROOMS: dict[tuple[str, str], KernelRoom] = {}


def connect(url: str | None = None, token: str | None = None) -> KernelRoom:
    """The room of the Jupyter server this kernel runs under (or of `url`, with `token`)."""
    server = discover(url, token)
    room = _ROOMS.get((server.url, server.token)) or KernelRoom(server)
    room.status()  # fail now, clearly, rather than at the first prompt
    _ROOMS[(server.url, server.token)] = room
    return room


class KernelRoom:
    """One room, as this kernel's credentials see it. Commands are short REST calls; turns are
    followed on the room's live document, on the kernel's running event loop."""

    def __init__(self, server: ServerInfo):
        self.server = server
        self._live: LiveDocument | None = None

    def __repr__(self) -> str:
        return f"<copilot room at {self.server.url} (found by {self.server.found_by})>"

    # -- reading -------------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """`GET room`: who the kernel is here (`me`), the agent, queue, open requests, people."""
        return self._call("GET", "room")

    @property
    def me(self) -> dict[str, Any]:
        return self.status()["me"]

    @property
    def queue(self) -> list[dict[str, Any]]:
        """The running prompt first, then the waiting ones."""
        return self._admitted()["queue"]

    @property
    def people(self) -> list[dict[str, Any]]:
        return self._call("GET", "participants")["participants"]

    def transcript(self) -> Records:
        """The whole transcript (the audit trail) as records (dicts); members and hosts only."""
        text = self._call("GET", "transcript", raw=True)
        return Records(json.loads(line) for line in text.splitlines() if line.strip())

    # -- acting --------------------------------------------------------------------------------

    def ask(
        self,
        text: str,
        target: str | Mapping[str, str] | None = None,
        attach: Mapping[str, Any] | Iterable[str] | None = None,
    ) -> Turn:
        """Queue a prompt and return its `Turn` at once (never waits for the agent).

        `target`: "/skill-name" or "@agent-name". `attach`: variables whose bounded text summary
        is appended to the prompt (a mapping of name to value, or names in the notebook's
        namespace); the summary is what the room records and the agent reads."""
        if attach:
            text = attach_summaries(text, _named_values(attach))
        body: dict[str, Any] = {"text": text, "origin": "kernel"}
        if target is not None:
            body["target"] = _target(target)
        queued = self._call("POST", "prompts", body)
        turn = Turn(self, queued["id"], queued["position"], text)
        turn.start()
        return turn

    def abort(self) -> None:
        """Stop the running turn (hosts)."""
        self._call("POST", "abort")

    def answer(self, request_id: str, answer: str | bool, feedback: str | None = None) -> None:
        """Answer an open request: a permission with "approve"/"reject" (or True/False, and an
        optional `feedback`), a question with its answer text."""
        approvals = self._admitted().get("approvals", {})
        request = approvals.get(request_id)
        if request is None:
            raise RoomAPIError(
                404, "no_such_request", f"No open request {request_id!r} in the room."
            )
        if request.get("kind") == "question":
            self._call("POST", f"questions/{request_id}", {"answer": str(answer)})
            return
        decision = answer if isinstance(answer, str) else ("approve" if answer else "reject")
        body: dict[str, Any] = {"decision": decision}
        if feedback is not None:
            body["feedback"] = feedback
        self._call("POST", f"approvals/{request_id}", body)

    def widget(self, **options: Any) -> Any:
        """The live room as a notebook widget, shown as the browser's own user (not the
        kernel's): see `RoomWidget`."""
        from ..widget import RoomWidget

        return RoomWidget(**options)

    # -- plumbing ------------------------------------------------------------------------------

    def live(self) -> LiveDocument:
        """The room's document, synced over its websocket on the running loop (one per loop)."""
        loop = asyncio.get_running_loop()
        if self._live is None or self._live.loop is not loop:
            self._live = LiveDocument(self._ws_url(), self._headers(), loop)
        return self._live

    def _admitted(self) -> dict[str, Any]:
        state = self.status()
        if "queue" not in state:
            me = state.get("me", {})
            raise RoomAPIError(
                403,
                "not_admitted",
                f"This kernel acts as {me.get('username')!r}, who is not admitted to the room "
                f"(role {me.get('role')!r}); a host must let them in.",
            )
        return state

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.server.token}"} if self.server.token else {}

    def _ws_url(self) -> str:
        parts = urllib.parse.urlsplit(self.server.url + "copilot-room/ws")
        scheme = "wss" if parts.scheme == "https" else "ws"
        return urllib.parse.urlunsplit(parts._replace(scheme=scheme))

    def _call(self, method: str, path: str, body: Any = None, raw: bool = False) -> Any:
        """One REST call; a refusal raises `RoomAPIError` with the server's message."""
        request = urllib.request.Request(
            self.server.url + API + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Content-Type": "application/json", **self._headers()},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                data = response.read()
        except urllib.error.HTTPError as err:
            raise _refusal(err) from None
        except urllib.error.URLError as err:
            raise ConnectionError(
                f"The Jupyter server at {self.server.url} did not answer: {err.reason}"
            ) from None
        if raw:
            return data.decode()
        return json.loads(data) if data else None


def _refusal(err: urllib.error.HTTPError) -> RoomAPIError:
    text = err.read().decode(errors="replace")
    try:
        data = json.loads(text)
        return RoomAPIError(err.code, data.get("error", "error"), data.get("message", text))
    except (ValueError, AttributeError):
        return RoomAPIError(err.code, "error", text.strip()[:500] or str(err.reason))


def _target(target: str | Mapping[str, str]) -> dict[str, str]:
    if isinstance(target, Mapping):
        return dict(target)
    kinds = {"/": "skill", "@": "agent"}
    if target[:1] not in kinds or len(target) < 2:
        raise ValueError(f"target is '/skill-name' or '@agent-name', not {target!r}")
    return {"kind": kinds[target[0]], "name": target[1:]}


def _named_values(attach: Mapping[str, Any] | Iterable[str]) -> dict[str, Any]:
    """Names and values to summarize: as given, or names looked up in the notebook."""
    if isinstance(attach, Mapping):
        return dict(attach)
    names = [attach] if isinstance(attach, str) else list(attach)
    from IPython import get_ipython

    shell = get_ipython()
    namespace = shell.user_ns if shell is not None else {}
    missing = [name for name in names if name not in namespace]
    if missing:
        raise NameError(f"No variable named {', '.join(map(repr, missing))} in the notebook.")
    return {name: namespace[name] for name in names}
