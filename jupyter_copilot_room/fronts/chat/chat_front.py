"""A chat service's side of the rooms: who a chat user is (`linked_people.py`), a mention in a
linked channel as their prompt, a click on a card's button or a reply in a turn's thread as
their answer, `link <code>` (an ask its owner answers in the panel); each delivery once (a
service retries what it thinks was lost, also across a restart of the server: the ids seen are
kept in `<service>-deliveries.json`).
Every decision is the room's (`access/rules.py` through `api/`): a refusal is whispered to the
person alone, and nothing is queued."""

from __future__ import annotations

import asyncio
import logging
import re
from collections import OrderedDict
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...api import Person, Refused
from ...request_bodies import CardDecision
from ...statefiles import read_json, write_json_atomically
from ..reach import ServiceRefusal, ServiceWaiting
from .chat_service import ChatService
from .linked_people import LinkAsk, LinkedPeople

if TYPE_CHECKING:
    from ...api import RoomAPI, RoomsAPI
    from .channel_links import ChannelLinks

log = logging.getLogger(__name__)

#: How many delivery ids are remembered (a service retries within minutes), across restarts.
REMEMBERED = 1000
HOW_TO_LINK = (
    "You are not linked to a room account yet. In JupyterLab, open the Copilot room, choose "
    "\u201cLink a {service} Account\u2026\u201d in the room's menu, and send me `link <code>` "
    "with the code it shows (it works for ten minutes)."
)


class ChatFront:
    def __init__(
        self,
        service: ChatService,
        rooms: RoomsAPI,
        people: LinkedPeople,
        links: ChannelLinks,
        deliveries: Path,
    ):
        self.service = service
        self.rooms = rooms
        self.people = people
        self.links = links
        self._deliveries = deliveries  # the ids seen, kept: a retry may cross a restart
        seen = (read_json(deliveries) or {}).get("seen", [])
        self._seen: OrderedDict[str, None] = OrderedDict.fromkeys(seen)
        self._handling: set[asyncio.Task] = set()
        people.answered[service.name] = self._answered

    def take(self, kind: str, delivery: Coroutine[Any, Any, None]) -> None:
        """Handle a delivery after the service had its answer (Slack's acknowledgement, Teams'
        202): in its own task, whose failure is logged, never lost with the task."""
        task = asyncio.create_task(self._handled(kind, delivery))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    async def _handled(self, kind: str, delivery: Coroutine[Any, Any, None]) -> None:
        service = self.service.name.title()
        try:
            await delivery
        except (ServiceWaiting, ServiceRefusal) as failed:
            log.warning("%s did not take the room's answer to a %s: %s", service, kind, failed)
        except Refused as refused:  # the room cannot open now (stopping, a full disk)
            log.warning("The room did not take a %s %s: %s", service, kind, refused)
        except Exception:
            log.exception("A %s %s was not handled", service, kind)

    def stop(self) -> None:
        for task in list(self._handling):
            task.cancel()

    async def settled(self) -> None:
        """Returns once the deliveries in hand are handled, so that what one changed (or did
        not) is final: the service's client hands each message a task of its own, so a later
        delivery's effect says nothing of an earlier one's."""
        while self._handling:
            await asyncio.wait(set(self._handling))

    def first_time(self, delivery: str) -> bool:
        """Whether `delivery` (an event's id) is new; a retry of one seen is not."""
        if delivery in self._seen:
            return False
        self._seen[delivery] = None
        while len(self._seen) > REMEMBERED:
            self._seen.popitem(last=False)
        write_json_atomically(self._deliveries, {"seen": list(self._seen)})
        return True

    def _how_to_link(self) -> str:
        return HOW_TO_LINK.format(service=self.service.name.title())

    def _person(self, user: str) -> Person | None:
        username = self.people.username(self.service.name, user)
        return None if username is None else Person(username, source=self.service.name)

    async def _room(self, channel: str) -> RoomAPI | None:
        """The room `channel` is linked to, opened (None: it is no room's)."""
        mirror = self.links.in_channel(channel)
        return None if mirror is None else await self.rooms.open(mirror.name)

    async def mention(self, user: str, channel: str, text: str, thread: str | None) -> None:
        """`@bot <text>` in a channel (or a DM): `link <code>`, else a prompt by the person."""
        if (code := _link_code(text)) is not None:
            return await self._link(user, channel, code, thread)
        person = self._person(user)
        if person is None:
            return await self.service.whisper(channel, user, self._how_to_link(), thread)
        room = await self._room(channel)
        if room is None:
            said = "This channel is linked to no room; a host links one in the room's settings."
            return await self.service.whisper(channel, user, said, thread)
        try:
            await room.submit(person, text)
        except Refused as refused:
            await self.service.whisper(channel, user, refused.message, thread)

    async def message(self, user: str, channel: str, text: str, thread: str | None) -> None:
        """A plain message the bot sees: `link <code>` in a DM, or in a turn's thread the answer
        to the question its card asks."""
        if (code := _link_code(text)) is not None:
            return await self._link(user, channel, code, thread)
        mirror = self.links.in_channel(channel)
        prompt = mirror.prompt_of_thread(thread) if mirror else None
        person = self._person(user)
        if mirror is None or prompt is None or person is None:
            return  # the channel's own talk: no room opens for it
        room = await self.rooms.open(mirror.name)
        card = next(
            (
                c
                for c in room.cards_for(person)
                if c["prompt"] == prompt and c["kind"] == "question"
            ),
            None,
        )
        if card is not None:
            await self._answer(room, person, user, channel, thread, card, text)

    async def click(
        self, user: str, channel: str, thread: str | None, card_id: str, answer: str
    ) -> None:
        person = self._person(user)
        if person is None:
            return await self.service.whisper(channel, user, self._how_to_link(), thread)
        room = await self._room(channel)
        if room is None:
            return
        card = next((c for c in room.cards_for(person) if c["id"] == card_id), None)
        if card is None:
            said = "That request is no longer open."
            return await self.service.whisper(channel, user, said, thread)
        if card["kind"] == "question":
            chosen = _choice(card["choices"], answer)
            if chosen is None:
                said = "That choice is not one the question offers."
                return await self.service.whisper(channel, user, said, thread)
            answer = chosen
        await self._answer(room, person, user, channel, thread, card, answer)

    async def _answer(
        self,
        room: RoomAPI,
        person: Person,
        user: str,
        channel: str,
        thread: str | None,
        card: dict,
        answer: str,
    ) -> None:
        if not card["may_answer"]:
            said = f"Waiting on {card['waiting_on']}."
            return await self.service.whisper(channel, user, said, thread)
        try:
            if card["kind"] == "question":
                await room.reply(person, card["id"], answer)
            elif answer in ("approve", "reject"):
                decision: CardDecision = "approve" if answer == "approve" else "reject"
                await room.answer(person, card["id"], decision)
        except Refused as refused:
            await self.service.whisper(channel, user, refused.message, thread)

    async def _link(self, user: str, channel: str, code: str, thread: str | None) -> None:
        """`link <code>`: an ask for the code's owner to allow in the panel, never a link."""
        name = await self.service.name_of(user)
        presented = self.people.present(self.service.name, user, name, code, channel, thread)
        if presented.ask is not None:
            said = (
                "Almost there: the person whose code this is allows it in JupyterLab, where "
                "the code was shown. I will tell you here."
            )
        elif presented.retry_in:
            minutes = max(1, round(presented.retry_in / 60))
            said = f"Too many wrong codes: try again in {minutes} minutes."
        else:
            said = "That code is unknown or expired; get a new one from the room in JupyterLab."
        await self.service.whisper(channel, user, said, thread)

    async def _answered(self, ask: LinkAsk, allow: bool, who: str) -> None:
        """Tell the chat user how the code's owner (`who`, by their display name: the room
        may never have seen them) answered their ask."""
        said = (
            f"Linked: you act as {who} in the rooms, with {who}'s role."
            if allow
            else f"{who} did not allow this account to act as them."
        )
        try:
            await self.service.whisper(ask.channel, ask.user, said, ask.thread)
        except (ServiceWaiting, ServiceRefusal) as failed:
            log.warning("%s was not told of their link: %s", ask.name, failed)


def _choice(choices: list[str], index: str) -> str | None:
    """The choice a click names by its index (as the card's button carries it)."""
    if not index.isdecimal() or int(index) >= len(choices):
        return None
    return choices[int(index)]


def _link_code(text: str) -> str | None:
    found = re.fullmatch(r"\s*link\s+([A-Za-z0-9]{4,16})\s*", text, re.I)
    return found.group(1) if found else None
