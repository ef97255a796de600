"""A room's links to outside places, set by its hosts: the pull request it is on (`github/`) and
its channel in each chat service the server bridges (`bridges/channel_links.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..access.roles import Action
from ..errors import NotFound
from ..request_bodies import ChannelBody, PullBody, validated
from .fronts import ChatChannels, Fronts, PullLinks
from .person import Caller, acting

if TYPE_CHECKING:
    from .room_api import RoomAPI


class RoomLinksAPI:
    def __init__(self, room: RoomAPI, fronts: Fronts):
        self._room = room
        self._fronts = fronts

    def _as_host(self, caller: Caller) -> None:
        people = self._room.room.people
        with acting(caller, people.known.get) as identity:
            people.require(identity, Action.EDIT_SETTINGS)

    async def link_pull(self, caller: Caller, number: int) -> dict:
        """`POST github/pull` (hosts): the room on the pull request `number`, posting its card."""
        self._as_host(caller)
        return await self._pulls().link(self._room, validated(PullBody, {"number": number}).number)

    async def unlink_pull(self, caller: Caller) -> None:
        self._as_host(caller)
        await self._pulls().unlink(self._room)

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
        409 `channel_taken` if it is another room's."""
        self._as_host(caller)
        given = validated(ChannelBody, {"channel": channel}).channel
        linked = await self._channels(service).link(self._room.name, given)
        return {"service": service, "channel": linked}

    async def unlink_channel(self, caller: Caller, service: str) -> None:
        self._as_host(caller)
        await self._channels(service).unlink(self._room.name)

    def _channels(self, service: str) -> ChatChannels:
        if (links := self._fronts.channels.get(service)) is None:
            raise NotFound(f"This server runs no {service} bridge.", code="no_bridge")
        return links
