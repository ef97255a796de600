"""The server's rooms as fronts reach them: `rooms_of(serverapp)` from any other Jupyter server
extension, `RoomsAPI` for REST's handlers and the websocket."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..access.identity import Identity
from ..access.roles import Action
from ..errors import NotFound
from ..events.room_records import SystemNote, literal
from ..request_bodies import LinkAnswerBody, validated
from ..room_registry import Rooms
from ..threads import ThreadRegistry
from .fronts import ChatLinks, Fronts
from .person import Caller, identity_of
from .room_api import RoomAPI

if TYPE_CHECKING:
    from ..room.room import Room


class RoomsAPI:
    def __init__(self, rooms: Rooms, threads: ThreadRegistry):
        self._rooms = rooms
        self._threads = threads
        #: The fronts whose settings are rooms' commands (set by the extension at start).
        self.fronts = Fronts()
        #: The doctor's report on the server's own configuration, its checks as JSON
        #: (`doctor/`, set by the extension at start): for `GET doctor`.
        self.setup_report: Callable[[], Awaitable[list[dict]]] | None = None
        self._watches: dict[str, list[tuple[Callable[[RoomAPI], None], Callable[[], None]]]] = {}
        rooms.watch(self._told)

    @property
    def main(self) -> RoomAPI:
        """The room of the server's root, as loaded (it starts with the server)."""
        return RoomAPI(self._rooms.main, self._threads, self.fronts)

    def watch(
        self, name: str, started: Callable[[RoomAPI], None], unloaded: Callable[[], None]
    ) -> Callable[[], None]:
        """Tell a front of the room `name`'s life: `started(room)` each time it has started
        (at once if it has already), `unloaded()` each time it is unloaded (quiet for
        `room_idle_timeout`, or the server stopping). A room loaded anew is a new `RoomAPI`:
        what a front read of the old one stops with `unloaded`. Loads nothing and keeps nothing
        loaded (a front that watches is no visit). The answer stops the watch."""
        watch = (started, unloaded)
        self._watches.setdefault(name, []).append(watch)
        room = self._rooms.loaded(name)
        if room is not None and room.startup.started:
            started(RoomAPI(room, self._threads, self.fronts))
        return lambda: self._watches[name].remove(watch)

    def _told(self, name: str, room: Room | None) -> None:
        """The registry's word on a room's life, to the fronts that watch it."""
        for started, unloaded in list(self._watches.get(name, ())):
            if room is None:
                unloaded()
            else:
                started(RoomAPI(room, self._threads, self.fronts))

    def once_started(self, name: str, then: Callable[[RoomAPI], None]) -> None:
        """`then(room)` once the room `name` has started, if it is loaded (at once if it has
        started already); a room asleep: nothing. Loads nothing."""
        room = self._rooms.loaded(name)
        if room is not None:
            room.startup.when_started(lambda: then(RoomAPI(room, self._threads, self.fronts)))

    async def open(self, name: str) -> RoomAPI:
        """The room `name`, loaded and started if it slept; `Refused` (`unknown_room`, 404) for
        a name that is no room, and the room's own refusal (503, 507) if it cannot start."""
        return RoomAPI(await self._rooms.open(name), self._threads, self.fronts)

    def _identity(self, caller: Caller) -> Identity:
        """Who the caller is, as the server's room (main) last saw them."""
        return identity_of(caller, self._rooms.main.people.known.get(caller.username))

    def listing(self, caller: Caller) -> dict:
        """`GET rooms`: every room as the caller may see it, and whether they may create one.
        Nothing is recorded and no room opens: listing is no visit."""
        identity = self._identity(caller)
        return {
            "rooms": self._rooms.describe(identity),
            "can_create": self._rooms.may_create(identity),
        }

    async def create(self, caller: Caller, name: str, repository: str = "") -> dict:
        """A new room (hosts and `room_creators`), started; its entry in `GET rooms`."""
        identity = self._identity(caller)
        await self._rooms.create(identity, name, repository)
        return self._rooms.entry(name, identity)

    async def check_setup(self, caller: Caller) -> dict:
        """`GET doctor`, for hosts (the room's refusal otherwise): `jupyter copilot-room
        doctor`'s report on the server's own configuration, `{"checks": [{"name", "ok",
        "said", "todo"}]}`; no secret's value in it."""
        self._rooms.main.people.require(self._identity(caller), Action.EDIT_SETTINGS)
        if self.setup_report is None:
            raise NotFound("This server has no configuration to check.", code="no_setup")
        return {"checks": await self.setup_report()}

    def link_code(self, caller: Caller) -> dict:
        """`POST link-code`: a one-time code (ten minutes) for the caller's chat account: the
        chat user who sends it to the bot (`link <code>`) asks to act as the caller, who
        allows or denies that in the panel (`chat_links`, `answer_link`); their role applies."""
        return self._links().code_for(self._identity(caller).username)

    def chat_links(self, caller: Caller) -> dict:
        """`GET chat-links`: the chat accounts the caller linked, and the chat users asking to
        act as them (`{"links": [{service, user, name}], "asks": [{id, service, user, name}]}`)."""
        links, username = self._links(), self._identity(caller).username
        asks = [ask.public() for ask in links.asks_for(username)]
        return {"links": links.links_of(username), "asks": asks}

    async def answer_link(self, caller: Caller, ask_id: str, decision: str) -> dict:
        """`POST chat-links/asks/{id}` `{"decision": "allow"|"deny"}`: the code's owner, and
        only they, let the chat user who sent it act as them. A line in main's transcript, then
        the link; the chat user is told either way."""
        links, identity = self._links(), self._identity(caller)
        username = identity.username
        allow = validated(LinkAnswerBody, {"decision": decision}).decision == "allow"
        ask = links.ask(username, ask_id)
        account = f"{ask.service.title()} user {literal(ask.name)}"
        said = "let {} act as them in the rooms" if allow else "refused to let {} act as them"
        self._note(username, "{0} " + said.format(account) + ".")
        links.settle(ask, allow)
        if (tell := links.answered.get(ask.service)) is not None:
            await tell(ask, allow, identity.display_name)
        return {"id": ask.id, "decision": decision}

    def unlink_chat(self, caller: Caller, service: str, user: str) -> None:
        """`DELETE chat-links/{service}/{user}`: the caller's link removed (a line, then the
        change); 404 for a link that is not theirs."""
        links, username = self._links(), self._identity(caller).username
        linked = {
            (link["service"], link["user"]): link["name"] for link in links.links_of(username)
        }
        if (name := linked.get((service, user))) is None:
            raise NotFound(f"You have no linked {service.title()} account {user}.")
        account = f"{service.title()} user {literal(name)}"
        self._note(username, f"{{0}} removed the link of {account}: it no longer acts as them.")
        links.unlink(username, service, user)

    def _links(self) -> ChatLinks:
        if self.fronts.links is None:
            raise NotFound("This server runs no chat bridge.", code="no_bridge")
        return self.fronts.links

    def _note(self, username: str, text: str) -> None:
        """A line in main's transcript (a link is the server's, not one room's)."""
        note = SystemNote(text=text, people=(username,))
        self._rooms.main.recorder.commit("system", username, note)

    def hear_github(self, event: str, signature: str, body: bytes, content_type: str) -> None:
        """`POST copilot-room/github/webhook`: GitHub's delivery (as JSON or as a form),
        checked against its signature (`Refused` 401 if it does not match) and handed to the
        room on its pull request."""
        if self.fronts.pulls is None:
            raise NotFound("This server takes no GitHub webhooks.", code="no_github")
        self.fronts.pulls.hear(event, signature, body, content_type)

    async def hear_teams(self, authorization: str, body: bytes) -> None:
        """`POST copilot-room/teams/messages`: an activity Teams delivers, checked against its
        Bot Framework token (`Refused` 401 if it is not Teams calling this bot) and handed to
        the Teams bridge."""
        if self.fronts.teams is None:
            raise NotFound("This server runs no Teams bridge.", code="no_teams")
        await self.fronts.teams.hear(authorization, body)


def rooms_of(serverapp: Any) -> RoomsAPI:
    """The rooms of a running Jupyter server whose `jupyter_copilot_room` extension is loaded;
    a `LookupError` when it is not."""
    from ..app import CopilotRoom  # the app imports the API: resolved when first asked

    for point in serverapp.extension_manager.extension_points.values():
        app = getattr(point, "app", None)
        if isinstance(app, CopilotRoom):
            return app.api
    raise LookupError("The jupyter_copilot_room extension is not loaded in this server.")
