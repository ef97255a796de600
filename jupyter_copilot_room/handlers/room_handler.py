"""What every REST handler of the room shares, in one place: the room a route names,
who the caller is, how a body is parsed, and how a `Refused` leaves as
`{"error": code, "message": text}` with its HTTP status. Every handler is guarded by
jupyter_server's `@authorized` on the resource `copilot-room` (so a deployment's Authorizer can
restrict the room as a whole), then by the room's own role table; the acting user is always
`current_user`, never a field of the body.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from http.client import responses
from typing import TYPE_CHECKING, Any, TypeVar

from jupyter_server.base.handlers import APIHandler, JupyterHandler
from pydantic import BaseModel
from tornado import web

from ..access.hub_grants import hub_grant
from ..access.identity import SERVER_OWNER, Identity
from ..agent.notebook_mcp import NotebookToolsServer
from ..api import RoomAPI, RoomsAPI
from ..errors import InvalidRequest, Refused
from ..request_bodies import validated
from ..room_registry import MAIN

AUTH_RESOURCE = "copilot-room"
Body = TypeVar("Body", bound=BaseModel)


@dataclass(frozen=True)
class HubGrants:
    """Which hub groups grant which role here, and this server as JupyterHub names it."""

    member_groups: tuple[str, ...] = ()
    viewer_groups: tuple[str, ...] = ()
    server: str = ""


@dataclass(frozen=True)
class RoomContext:
    """What every handler is given: the rooms (the in-process API every handler calls),
    whether users are verified, the hub's grants."""

    rooms: RoomsAPI
    users_verified: bool
    grants: HubGrants
    recheck_interval: float  # seconds between re-checks of an open websocket's user
    notebook_tools: NotebookToolsServer  # the agents' MCP server (`notebook_tools.py`)


if TYPE_CHECKING:
    _Handler = JupyterHandler
else:
    _Handler = object


class RoomMixin(_Handler):
    """What every room handler shares: the room, the caller's identity, the error format."""

    auth_resource = AUTH_RESOURCE

    def initialize(self, context: RoomContext) -> None:
        self.context = context
        self.rooms = context.rooms
        self.room: RoomAPI = context.rooms.main  # the routes without a room's name are main's

    async def open_room(self) -> None:
        """The room a `rooms/<name>/...` route names (tornado hands the name to the method as a
        keyword, so it is taken out here and the methods keep their arguments; the routes
        without one are main's), started: a room loads at its first request (`Rooms.open`),
        and one that cannot start refuses with its reason; 404 `unknown_room` for a name
        that is no room. Left to `@web.authenticated` when nobody signed in, so the list of
        rooms is never told to strangers and no room starts for them."""
        name = self.path_kwargs.pop("room_name", MAIN)
        thread = self.path_kwargs.pop("thread_id", None)  # `threads/<id>/<command>`
        if self.current_user is None:
            return
        self.room = await self.rooms.open(name)
        if thread is not None:  # a room's command in one of its threads, for its people
            self.room = await self.room.threads.open(self.identity, thread)

    @property
    def identity(self) -> Identity:
        """The caller, re-read on every request: a hub's change of groups applies at once."""
        if self.acts_as_server_owner:
            return SERVER_OWNER
        return self.identity_of(self.current_user)

    @property
    def acts_as_server_owner(self) -> bool:
        """The server's token without a login cookie, under an anonymous provider (see
        `SERVER_OWNER`); a browser always carries its login cookie, with or without the token."""
        return (
            not self.context.users_verified
            and self.token_authenticated
            and not self.get_cookie(self.cookie_name)
        )

    def identity_of(self, user: Any) -> Identity:
        grants = self.context.grants
        hub_role = hub_grant(user, grants.member_groups, grants.viewer_groups, grants.server)
        return Identity.from_user(user, verified=self.context.users_verified, hub_role=hub_role)


class RoomAPIHandler(RoomMixin, APIHandler):
    async def prepare(self, **kwargs: Any) -> None:
        await super().prepare(**kwargs)
        await self.open_room()

    def parse(self, model: type[Body]) -> Body:
        """The request body as `model`; malformed JSON and unknown fields are a clear 400."""
        raw = self.request.body.strip() or b"{}"
        try:
            data = json.loads(raw)
        except RecursionError:
            raise InvalidRequest(
                "The request body is nested too deeply.", code="malformed_json"
            ) from None
        except ValueError as err:  # bad JSON, bad UTF-8, or an integer of thousands of digits
            raise InvalidRequest(
                f"The request body is not valid JSON: {err}.", code="malformed_json"
            ) from None
        return validated(model, data)

    async def reply(self, data: object, status: int = 200) -> None:
        """Answer once what the command recorded is on disk (`Room.durable`)."""
        await self.room.durable()
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(data))

    async def reply_empty(self) -> None:
        """`204 No Content`, once what the command recorded is on disk."""
        await self.room.durable()
        self.set_status(204)
        self.finish()

    def write_error(self, status_code: int, **kwargs) -> None:
        error = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(error, Refused):
            status_code, code, message = error.status, error.code, error.message
        elif isinstance(error, web.HTTPError):
            code = responses.get(status_code, "error").lower().replace(" ", "_")
            message = error.log_message or responses.get(status_code, "Error")
            if error.args:
                message = message % error.args
        else:
            code, message = "internal_error", "The room hit an unexpected error; see the log."
        self.set_status(status_code)
        self.set_header("Content-Type", "application/json")
        details = getattr(error, "details", {})  # e.g. a budget's cap and when it resets
        self.finish(json.dumps({"error": code, "message": message, **details}))

    def log_exception(self, typ, value, tb) -> None:
        if isinstance(value, Refused):
            self.log.info(
                "copilot-room: %s %s -> %d %s",
                self.request.method,
                self.request.path,
                value.status,
                value.code,
            )
        else:
            super().log_exception(typ, value, tb)
