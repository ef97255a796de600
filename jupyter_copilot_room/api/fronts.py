"""The fronts a server runs whose settings are commands of a room or of a person (a host links a
room to a pull request or a chat channel; someone links their chat account), reached through the
API like every command, so REST stays one call a route."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..fronts.chat.linked_people import LinkAsk
    from .room_api import RoomAPI


class PullLinks(Protocol):
    """`fronts/github/pull_requests.py`: rooms on pull requests."""

    def number_of(self, room: str) -> int | None: ...  # the pull request the room is on

    async def link(self, room: RoomAPI, number: int, recorded: Callable[[], None]) -> dict:
        """`room` on the pull request `number`; `recorded()` once it is checked, before the
        link is kept (not called when the room is on it already)."""
        ...

    async def unlink(self, room: RoomAPI) -> None: ...

    def hear(self, event: str, signature: str, body: bytes, content_type: str) -> None: ...


class ChatLinks(Protocol):
    """`fronts/chat/linked_people.py`: chat accounts linked to room usernames, each by its owner's
    own answer to the chat user's ask."""

    #: Each chat service's way to tell the asker the answer: (ask, allowed, the owner's name as
    #: the room shows it: their username may be hex).
    answered: dict[str, Callable[[LinkAsk, bool, str], Awaitable[None]]]

    def code_for(self, username: str) -> dict: ...

    def asks_for(self, username: str) -> list[LinkAsk]: ...

    def ask(self, username: str, ask_id: str) -> LinkAsk: ...

    def settle(self, ask: LinkAsk, allow: bool) -> None: ...

    def links_of(self, username: str) -> list[dict]: ...

    def unlink(self, username: str, service: str, user: str) -> None: ...


class ChatChannels(Protocol):
    """`fronts/chat/channel_links.py`: which channel of a chat service each room is in."""

    @property
    def linked(self) -> dict[str, str]: ...  # room name -> channel

    async def link(self, room: str, given: str, recorded: Callable[[str], None]) -> str:
        """`room` in the channel `given` names; `recorded(channel)` once it is checked, before
        the link is kept (not called when the room is in it already)."""
        ...

    async def unlink(self, room: str) -> None: ...


class TeamsEndpoint(Protocol):
    """`fronts/teams/teams_bridge.py`: what Teams delivers to the bot."""

    async def hear(self, authorization: str, body: bytes) -> None: ...


@dataclass
class Fronts:
    pulls: PullLinks | None = None  # None: no `c.CopilotRoom.github` repository
    links: ChatLinks | None = None  # None: no chat bridge (`c.CopilotRoom.slack`, `.teams`)
    teams: TeamsEndpoint | None = None  # None: no `c.CopilotRoom.teams`
    #: Each bridged chat service's channels, by name ("slack"): also the services people may
    #: link an account of (`GET room`'s `chats`).
    channels: dict[str, ChatChannels] = field(default_factory=dict)
