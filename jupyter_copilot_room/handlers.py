"""The room's REST commands, under `<base_url>copilot-room/api/` (the routes are in `app.py`).

Every handler is guarded by jupyter_server's `@authorized` on the resource `copilot-room` (so a
deployment's Authorizer can restrict the room as a whole), then by the room's own role table. The
acting user is always `current_user`. Errors leave as `{"error": code, "message": text}`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import time
from dataclasses import dataclass
from http.client import responses
from typing import TYPE_CHECKING, Any, TypeVar

from jupyter_server.auth.decorator import authorized
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from pydantic import BaseModel, ValidationError
from tornado import web

from . import export
from .access.hub_grants import hub_grant
from .access.identity import SERVER_OWNER, Identity
from .errors import InvalidRequest, RoomError
from .request_bodies import (
    AdmissionBody,
    ApprovalBody,
    ChatBody,
    ClaimBody,
    ModelBody,
    PromptBody,
    QuestionBody,
    RoleBody,
    RoomBody,
    SignInReturnBody,
    SteerBody,
)
from .room.room import Room
from .rooms import Rooms
from .settings import SettingsPatch

AUTH_RESOURCE = "copilot-room"
CLAIMED_COOKIE = "copilot-room-claimed"
Body = TypeVar("Body", bound=BaseModel)


@dataclass(frozen=True)
class HubGrants:
    """Which hub groups grant which role here, and this server as JupyterHub names it."""

    member_groups: tuple[str, ...] = ()
    viewer_groups: tuple[str, ...] = ()
    server: str = ""


@dataclass(frozen=True)
class RoomContext:
    """What every handler is given: the rooms, whether users are verified, the hub's grants."""

    rooms: Rooms
    users_verified: bool
    grants: HubGrants
    recheck_interval: float  # seconds between re-checks of an open websocket's user

    @property
    def room(self) -> Room:
        """The `main` room: the routes without a room's name are its."""
        return self.rooms.main


if TYPE_CHECKING:
    _Handler = JupyterHandler
else:
    _Handler = object


class RoomMixin(_Handler):
    """What every room handler shares: the room, the caller's identity, the error format."""

    auth_resource = AUTH_RESOURCE

    def initialize(self, context: RoomContext) -> None:
        self.context = context
        self.room = context.room

    def choose_room(self) -> None:
        """The room a `rooms/<name>/...` route names (tornado hands the name to the method as a
        keyword, so it is taken out here and the methods keep their arguments); 404
        `room_not_found` for a name that is no room. Left to `@web.authenticated` when nobody
        signed in, so the list of rooms is never told to strangers."""
        name = self.path_kwargs.pop("room_name", None)
        if name is not None and self.current_user is not None:
            self.room = self.context.rooms.get(name)

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
        self.choose_room()
        await self.room.ensure_started()

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
        try:
            return model.model_validate(data)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            raise InvalidRequest(f"{where}: {first['msg']}.", code="invalid_body") from None

    def reply(self, data: object, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(data))

    def write_error(self, status_code: int, **kwargs) -> None:
        error = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(error, RoomError):
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
        if isinstance(value, RoomError):
            self.log.info(
                "copilot-room: %s %s -> %d %s",
                self.request.method,
                self.request.path,
                value.status,
                value.code,
            )
        else:
            super().log_exception(typ, value, tb)


class RoomStateHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def get(self) -> None:
        self.reply(self.room.describe(self.identity))


class RoomsHandler(RoomAPIHandler):
    """`GET rooms`: every room, main first, with its state, who is in it and what waits on the
    caller there, and whether the caller may create one; `POST rooms {name, repository}`: a new
    room (hosts and `room_creators`)."""

    @web.authenticated
    @authorized
    def get(self) -> None:
        rooms = self.context.rooms
        self.reply(
            {
                "rooms": rooms.describe(self.identity),
                "can_create": rooms.may_create(self.identity),
            }
        )

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(RoomBody)
        await self.context.rooms.create(self.identity, body.name, body.repository)
        self.reply(self.context.rooms.entry(body.name, self.identity), status=201)


class PromptsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def post(self) -> None:
        body = self.parse(PromptBody)
        prompt_id, position = self.room.submit(self.identity, body)
        self.reply({"id": prompt_id, "position": position}, status=202)


class MessagesHandler(RoomAPIHandler):
    """`POST messages {text}`: say something to the room (chat; never to the agent)."""

    @web.authenticated
    @authorized
    def post(self) -> None:
        body = self.parse(ChatBody)
        self.reply({"id": self.room.say(self.identity, body)}, status=201)


class AttachmentsHandler(RoomAPIHandler):
    """`POST attachments`: an image for a prompt, its bytes the body, its type Content-Type;
    201 `{id, mime, bytes, width, height}`, the id to name in `POST prompts`' attachments."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        upload = await self.room.upload(
            self.identity, self.request.body, self.request.headers.get("Content-Type", "")
        )
        self.reply(dataclasses.asdict(upload), status=201)


class AttachmentHandler(RoomAPIHandler):
    """`GET attachments/<id>`: a stored image, for everyone admitted (viewers too)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        path, mime = self.room.attachment(self.identity, item_id)
        self.set_header("Content-Type", mime)
        # Its name is the hash of its bytes: it never changes, so the browser may keep it.
        self.set_header("Cache-Control", "private, max-age=31536000, immutable")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.finish(await asyncio.to_thread(path.read_bytes))


class PromptHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def delete(self, item_id: str) -> None:
        await self.room.withdraw(self.identity, item_id)
        self.set_status(204)
        self.finish()


class SteerHandler(RoomAPIHandler):
    """`POST prompts/<id>/steer {text}`: a steering message into that prompt's running turn."""

    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        body = self.parse(SteerBody)
        self.reply({"id": await self.room.steer(self.identity, item_id, body)}, status=201)


class ModelHandler(RoomAPIHandler):
    """`GET model`: the model that answers and the choices; `PUT model {model}`: a host's
    switch for the next turns."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.reply(await self.room.describe_model(self.identity))

    @web.authenticated
    @authorized
    async def put(self) -> None:
        self.reply(await self.room.choose_model(self.identity, self.parse(ModelBody)))


class SignInHandler(RoomAPIHandler):
    """Hosts only, in demo mode: `GET signin` the flow in hand (its address is never in the
    shared document), `POST signin` begins the runtime's own login flow."""

    @web.authenticated
    @authorized
    def get(self) -> None:
        self.reply(self.room.describe_signin(self.identity))

    @web.authenticated
    @authorized
    async def post(self) -> None:
        self.reply(await self.room.begin_signin(self.identity))


class SignInReturnHandler(RoomAPIHandler):
    """`POST signin/return {url}`: the address a host's browser landed on after GitHub."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse(SignInReturnBody)
        self.reply(await self.room.deliver_signin(self.identity, body.url))


class SignInAllowHandler(RoomAPIHandler):
    """`POST signin/allow`: a host lets the runtime keep the login in plain text (no keychain)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        self.reply(await self.room.allow_signin(self.identity))


class SignInCancelHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        self.reply(await self.room.cancel_signin(self.identity))


class SignOutHandler(RoomAPIHandler):
    """`POST signout`: forget the runtime's login; the agent starts afresh (demo mode)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.room.sign_out(self.identity)
        self.reply({"signed_out": True})


class CheckpointDiffHandler(RoomAPIHandler):
    """`GET checkpoints/<commit>/diff`: a turn's checkpoint as a unified diff (members, hosts)."""

    @web.authenticated
    @authorized
    async def get(self, item_id: str) -> None:
        self.reply(await self.room.checkpoint_diff(self.identity, item_id))


class CheckpointRevertHandler(RoomAPIHandler):
    """`POST checkpoints/<commit>/revert`: the turn's files back as before it (409 with the
    conflicting files if they changed since in the same places; nothing changed then)."""

    @web.authenticated
    @authorized
    async def post(self, item_id: str) -> None:
        self.reply(await self.room.revert(self.identity, item_id))


class ApprovalHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def post(self, item_id: str) -> None:
        body = self.parse(ApprovalBody)
        self.room.answer_permission(
            self.identity, item_id, body.decision == "approve", body.feedback
        )
        self.reply({"id": item_id, "decision": body.decision})


class QuestionHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def post(self, item_id: str) -> None:
        body = self.parse(QuestionBody)
        self.room.answer_question(self.identity, item_id, body.answer)
        self.reply({"id": item_id, "answer": body.answer})


class AbortHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    async def post(self) -> None:
        await self.room.abort(self.identity)
        self.reply({"aborted": True})


class AgentStartHandler(RoomAPIHandler):
    """`POST agent/start`: a host retries starting an agent that is unavailable."""

    @web.authenticated
    @authorized
    def post(self) -> None:
        self.room.start_agent(self.identity)
        self.reply({"state": "starting"}, status=202)


class ParticipantsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def get(self) -> None:
        self.reply({"participants": self.room.list_people(self.identity)})


class ParticipantHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def put(self, username: str) -> None:
        body = self.parse(RoleBody)
        role = self.room.set_role(self.identity, username, body.role)
        self.reply({"username": username, "role": role.value})

    @web.authenticated
    @authorized
    def delete(self, username: str) -> None:
        self.room.remove(self.identity, username)
        self.set_status(204)
        self.finish()


class AdmissionHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def post(self, username: str) -> None:
        body = self.parse(AdmissionBody)
        role = self.room.admit(self.identity, username, body.decision)
        self.reply({"username": username, "role": role.value})


class BudgetsHandler(RoomAPIHandler):
    """`GET budgets`: today's usage per person and for the room, the daily caps, their reset."""

    @web.authenticated
    @authorized
    def get(self) -> None:
        self.reply(self.room.describe_usage(self.identity))


class BudgetLiftHandler(RoomAPIHandler):
    """`POST budgets/<username>/lift`: a host lifts one person's daily cap for today."""

    @web.authenticated
    @authorized
    def post(self, username: str) -> None:
        self.reply(self.room.lift_budget(self.identity, username))


class SettingsHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def get(self) -> None:
        self.reply(self.room.get_settings(self.identity))

    @web.authenticated
    @authorized
    def patch(self) -> None:
        patch = self.parse(SettingsPatch)
        self.reply(self.room.patch_settings(self.identity, patch))


#: Paging (`?before=SEQ&limit=N`): how many records or entries a page holds by default, at most.
PAGE_LIMIT, MAX_PAGE_LIMIT = 100, 1000


class PagedHandler(RoomAPIHandler):
    def page_arguments(self) -> tuple[int, int]:
        """`before` (a seq: the page ends just before it; default after the last) and
        `limit`; a clear 400 if either is not a whole number from 1 (`limit` up to 1000)."""
        before = self._positive("before", 2**62)
        limit = self._positive("limit", PAGE_LIMIT)
        if limit > MAX_PAGE_LIMIT:
            raise InvalidRequest(
                f"limit is at most {MAX_PAGE_LIMIT}, not {limit}.", code="invalid_page"
            )
        return before, limit

    def _positive(self, name: str, default: int) -> int:
        raw = self.get_query_argument(name, None)
        if raw is None:
            return default
        if not raw.isascii() or not raw.isdigit() or len(raw) > 18 or int(raw) < 1:
            raise InvalidRequest(
                f"{name} must be a whole number of at least 1, not {raw[:40]!r}.",
                code="invalid_page",
            )
        return int(raw)


class TranscriptHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        """The whole transcript, or with `before`/`limit` one page of its records; with
        `format=ipynb|md|jsonl` the whole of it as a file to download (`export.py`)."""
        fmt = self.get_query_argument("format", None)
        if fmt is not None:
            if {"before", "limit"} & set(self.request.query_arguments):
                raise InvalidRequest(
                    "An export is the whole transcript: format cannot go with before or limit.",
                    code="invalid_format",
                )
            await self._export(fmt)
            return
        if not self.request.query_arguments:
            text = self.room.read_transcript(self.identity)
            self.set_header("Content-Type", "application/jsonl; charset=utf-8")
            self.finish(text)
            return
        before, limit = self.page_arguments()
        lines = await self.room.transcript_page(self.identity, before, limit)
        self.set_header("Content-Type", "application/jsonl; charset=utf-8")
        self.finish(b"".join(line + b"\n" for line in lines))

    async def _export(self, fmt: str) -> None:
        if fmt not in export.FORMATS:
            raise InvalidRequest(
                f"format is one of {', '.join(export.FORMATS)}, not {fmt[:40]!r}.",
                code="invalid_format",
            )
        text = await self.room.export_transcript(self.identity, fmt)
        name = export.filename(fmt, time.time())
        self.set_header("Content-Disposition", f'attachment; filename="{name}"')
        # APIHandler.finish would say application/json
        self.finish(text, set_content_type=export.MEDIA_TYPES[fmt])


class HistoryHandler(PagedHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        """Entries evicted from the live document, as it showed them, newest page first."""
        before, limit = self.page_arguments()
        self.reply(await self.room.history_page(self.identity, before, limit))


class CatalogHandler(RoomAPIHandler):
    @web.authenticated
    @authorized
    def get(self) -> None:
        self.reply(self.room.describe_catalog(self.identity))


class ClaimAPIHandler(RoomAPIHandler):
    """`POST claim {secret}`: the door's "I started this server", in the tab already open."""

    @web.authenticated
    @authorized
    def post(self) -> None:
        body = self.parse(ClaimBody)
        self.room.claim_host(self.identity, body.secret)
        self.reply(self.room.describe(self.identity))


class ClaimHandler(RoomMixin, JupyterHandler):
    """The one-time host-claim link printed at start when nobody is configured as host."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.room.ensure_started()
        try:
            self.room.claim_host(self.identity, self.get_argument("secret", ""))
        except RoomError as err:
            self.set_status(err.status)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(_refused_claim_page(err.message, self.base_url))
            return
        # For the panel about to open: say "You are the host" once (it reads and clears this).
        self.set_cookie(CLAIMED_COOKIE, "1", path=self.base_url, max_age=300, samesite="Strict")
        self.redirect(self.base_url)


def _refused_claim_page(message: str, lab_url: str) -> str:
    """What a used or wrong claim link says: why, and what to do next."""
    return (
        "<!doctype html><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width'>"
        "<title>Copilot room: not claimed</title>"
        "<body style='font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto;"
        " padding: 0 1em; line-height: 1.5'>"
        "<h1>You did not become the room's host</h1>"
        f"<p>{html.escape(message, quote=False)}</p>"
        f"<p><a href='{html.escape(lab_url)}'>Open JupyterLab</a> and the Copilot room panel: "
        "it shows whether you are waiting to be let in.</p></body>"
    )
