"""What the bridge core asks of a chat service (Slack, Teams), and what it hands it: plain
messages, and cards as `CardView`s the adapter renders (Block Kit, Adaptive Cards). Its failures
are `fronts/reach.py`'s, as every front's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class CardView:
    """A card as the channel shows it: what it asks, the choices, and once answered, by whom."""

    card_id: str
    title: str  # "Bob's turn asks to run a command"
    summary: str  # cut to the service's limits, "N more lines in the room"
    code: bool  # the summary is a diff or a command: shown as a code block
    #: (label, value): ("Approve", "approve") and ("Reject", "reject"), or a question's choices
    #: with their index as the value ("0", "1", ...), which a click hands back to the front.
    choices: tuple[tuple[str, str], ...]
    settled: str | None = None  # "Approved by alice", once answered


class ChatService(Protocol):
    name: str  # "slack": the room's record source and the header's front
    max_text: int  # the longest text one message takes

    async def post(self, channel: str, text: str, thread: str | None = None) -> str: ...

    async def update(self, channel: str, message: str, text: str) -> None: ...

    async def post_card(self, channel: str, card: CardView, thread: str | None) -> str: ...

    async def update_card(self, channel: str, message: str, card: CardView) -> None: ...

    async def whisper(self, channel: str, user: str, text: str, thread: str | None) -> None: ...

    async def name_of(self, user: str) -> str:
        """How the service names a user to people ("@mallory"); their id if it cannot say."""
        ...

    def channel_id(self, given: str) -> str | None:
        """A channel's id as the service knows it, from what a host typed; None if it is none."""
        ...

    async def close(self) -> None:
        """Let go of its connections (the server stops)."""
        ...
