"""A room's links to outside places, set by its hosts: the pull request it is on (`fronts/github/`)
and its channel in each chat service the server bridges (`fronts/chat/channel_links.py`). Each
change is a line in the transcript, naming the host: the room's turns go where it says, so the
audit trail keeps who sent them there. Checked, recorded, then changed: the front checks (the
channel's id, the pull request on GitHub), calls back to record the line, and only then keeps
the link, so a full disk refuses the change instead of leaving a link no line tells."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..access.roles import Action
from ..errors import NotFound
from ..events.room_records import SystemNote, literal
from ..request_bodies import ChannelBody, PullBody, validated
from .fronts import ChatChannels, Fronts, PullLinks
from .person import Caller, Front, acting

if TYPE_CHECKING:
    from ..room.room import Room
    from .room_api import RoomAPI


class RoomLinksAPI:
    def __init__(self, api: RoomAPI, room: Room, fronts: Fronts):
        self._api = api  # what the fronts are handed
        self._room = room
        self._fronts = fronts

    def _as_host(self, caller: Caller) -> str:
        people = self._room.people
        with acting(caller, people.known.get) as identity:
            people.require(identity, Action.EDIT_SETTINGS)
            return identity.username

    def _note(self, host: str, text: str) -> None:
        """`text` in the transcript, said on `host`'s behalf ("{0}" names them)."""
        self._room.recorder.commit("system", host, SystemNote(text=text, people=(host,)))

    async def link_pull(self, caller: Caller, number: int) -> dict:
        """`POST github/pull` (hosts): the room on the pull request `number`, posting its card.
        The line is written once GitHub said the pull request is there, before the link is kept:
        a link the transcript cannot tell is not made."""
        host = self._as_host(caller)
        number = validated(PullBody, {"number": number}).number
        pulls = self._pulls()

        def recorded() -> None:
            self._note(host, f"{{0}} put this room on pull request #{number}.")

        return await pulls.link(self._api, number, recorded)

    async def unlink_pull(self, caller: Caller) -> None:
        host = self._as_host(caller)
        pulls = self._pulls()
        if (before := pulls.number_of(self._room.name)) is not None:
            self._note(host, f"{{0}} took this room off pull request #{before}.")
            await pulls.unlink(self._api)

    def _pulls(self) -> PullLinks:
        if self._fronts.pulls is None:
            raise NotFound(
                "This server links no pull requests: set c.CopilotRoom.github's repository.",
                code="no_github",
            )
        return self._fronts.pulls

    def channels(self) -> dict[str, str | None]:
        """The room's channel in each bridged chat service (None: not linked)."""
        name = self._room.name
        return {service: links.linked.get(name) for service, links in self._fronts.channels.items()}

    async def link_channel(self, caller: Caller, service: str, channel: str) -> dict:
        """`PUT channels/{service}` (hosts): the room's turns go to `channel` from now on, and
        mentions there are its prompts; 400 `invalid_channel` for no channel's id of the service,
        409 `channel_taken` if it is another room's. Checked, recorded, then changed."""
        host = self._as_host(caller)
        given = validated(ChannelBody, {"channel": channel}).channel
        channels = self._channels(service)

        def recorded(linked: str) -> None:
            where = f"the {service.title()} channel {literal(linked)}"
            self._note(host, f"{{0}} linked this room to {where}: its turns are posted there.")

        linked = await channels.link(self._room.name, given, recorded)
        self._api.set_front_channel(Front(service), linked)
        return {"service": service, "channel": linked}

    async def unlink_channel(self, caller: Caller, service: str) -> None:
        host = self._as_host(caller)
        channels = self._channels(service)
        if (before := channels.linked.get(self._room.name)) is not None:
            where = f"the {service.title()} channel {literal(before)}"
            self._note(host, f"{{0}} unlinked this room from {where}.")
        await channels.unlink(self._room.name)
        self._api.set_front_channel(Front(service), None)

    def _channels(self, service: str) -> ChatChannels:
        if (links := self._fronts.channels.get(service)) is None:
            raise NotFound(f"This server runs no {service} bridge.", code="no_bridge")
        return links
