"""One room in one channel: every prompt of the room (from the panel too) is a message naming its
author and text, and its turn is mirrored in that message's thread: the reply streamed by
editing one message at most once a second, a line for each tool call, each card with its
buttons (edited to say who answered, wherever they answered), and the end in words.

It follows the room's transcript (`RoomFollower`) from where it stopped, so the turns missed
while the service was unreachable are posted when it answers again, none twice
(`mirror_state.py`); every call to the service goes through `reach`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ...api import Front
from ...events.consumers import reads
from ..reach import ServiceRefusal, ServiceWaiting, reach
from ..room_follower import RoomFollower
from .chat_service import CardView, ChatService
from .mirror_state import MirrorState

if TYPE_CHECKING:
    from ...api import RoomAPI, RoomsAPI

log = logging.getLogger(__name__)

RECORDS = reads(
    "channel_mirror",
    handles={
        "prompt.submitted",
        "prompt.withdrawn",
        "prompt.finished",
        "assistant.started",
        "assistant.message",
        "tool.started",
        "request.opened",
        "request.settled",
    },
)

#: Seconds between two edits of a streaming reply (Slack asks for about one a second).
STREAM_EVERY = 1.0
#: Seconds from a reading's start before one that ended (a bad token, a channel the bot is not
#: in) is started again, from the line that was refused.
READ_AGAIN = 30.0
CARD_LINES = 20  # a card's code block shows this many lines, then "N more lines in the room"
_SETTLED = {
    "approved": "Approved by {}",
    "rejected": "Rejected by {}",
    "answered": "Answered by {}",
    "timed_out": "Nobody answered in time: rejected",
    "aborted": "The turn was aborted",
}
_ENDED = {"completed": "Completed.", "failed": "Failed.", "canceled": "Aborted."}


class ChannelMirror:
    def __init__(
        self,
        name: str,
        channel: str,
        service: ChatService,
        rooms: RoomsAPI,
        state: MirrorState,
        say_status: Callable[[RoomAPI | None, str | None], None],
    ):
        self.name = name
        self.channel = channel
        self.service = service
        self.rooms = rooms
        self.state = state
        self.say_status = say_status
        self.front = Front(service.name)  # the mirror reads the room as itself
        self.reading: RoomFollower | None = None
        self._streams: dict[str, asyncio.Task] = {}
        self._refused = False

    def start(self) -> None:
        """Follow the room while it is loaded, and afresh each time it is loaded anew: turns
        happen only in a loaded room, and a room unloads while quiet (`room_idle_timeout`) as if
        no channel followed it."""
        self.reading = RoomFollower(
            self.rooms,
            self.name,
            self.front,
            lambda: self.state.seq,
            self._show,
            loaded=self._loaded,
            ended=self._refused_reading,
            again=READ_AGAIN,
        )
        self.reading.start()

    async def stop(self) -> None:
        if self.reading is not None:
            await self.reading.stop()
        for task in self._streams.values():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def prompt_of_thread(self, thread: str | None) -> str | None:
        """The prompt whose message starts `thread` (a reply there is on that turn)."""
        return next((p for p, ts in self.state.prompts.items() if ts == thread), None)

    def _loaded(self, room: RoomAPI) -> None:
        """A room loaded anew gets the service's word in its header and its channel in
        `meta.channels`; a channel just linked gets its turns from now on, not its past."""
        if self.state.fresh:
            self.state.fresh = False
            self.state.advance(room.last_seq())
        self.say_status(room, None)
        room.set_front_channel(self.front, self.channel)

    async def _show(self, room: RoomAPI, record: dict) -> None:
        """One record in the channel; a line the service refuses alone is lost, a refusal of
        the token or the channel ends the reading (`READ_AGAIN`)."""
        try:
            shown = await self._mirror(room, record)
        except ServiceRefusal as refusal:
            if refusal.token or refusal.channel:
                raise
            log.warning("%s refused a line of %s: %s", self.service.name, self.name, refusal)
            shown = True  # that line is lost; the next go on
        if shown:
            if self._refused:
                self._refused = False
                self.say_status(room, None)
            self.state.advance(record["seq"])

    def _refused_reading(self, room: RoomAPI, refusal: ServiceRefusal) -> None:
        """Its lines wait, tried again `READ_AGAIN` seconds after the reading began."""
        if not self._refused:
            log.error("%s refused the mirror of %s: %s", self.service.name, self.name, refusal)
        self._refused = True
        self.say_status(room, "bad token" if refusal.token else "not in the channel")

    async def _send(self, room: RoomAPI, call: Callable) -> object:
        """`call()` until the service takes it: a rate limit waits its Retry-After, an outage
        backs off, and the header says so meanwhile."""

        def waited(waiting: ServiceWaiting, _: float) -> None:
            self.say_status(room, "disconnected" if waiting.retry_after is None else None)

        return await reach(call, waited, lambda: self.say_status(room, None))

    async def _once(self, room: RoomAPI, key: str, call: Callable) -> None:
        """Post what `key` names once (a record's message survives a retry of the record)."""
        if key in self.state.done:
            return
        await self._send(room, call)
        self.state.done.append(key)
        self.state.save()

    async def _mirror(self, room: RoomAPI, record: dict) -> bool:
        """Mirror one record; whether it was one the mirror shows."""
        kind, p, seq = record["kind"], record["payload"], record["seq"]
        service, channel = self.service, self.channel
        if kind == "prompt.submitted":
            if p["id"] in self.state.prompts:
                return True  # posted before a restart cut the save
            who = room.display_name(record.get("actor") or "")
            text = f"{who} asked: {p['text']}"[: service.max_text]
            ts = await self._send(room, lambda: service.post(channel, text))
            self.state.prompts[p["id"]] = str(ts)
            return True
        if kind == "request.settled":  # names its card only
            if p["id"] not in self.state.cards:
                return False
            await self._settle(room, record)
            return True
        thread = self.state.prompts.get(p.get("prompt_id") or p.get("id") or "")
        if thread is None:
            return False  # a turn from before the channel was linked
        if kind == "assistant.started" and p.get("kind", "assistant") == "assistant":
            if p["entry_id"] in self.state.replies:
                return True
            ts = await self._send(room, lambda: service.post(channel, "…", thread))
            self.state.replies[p["entry_id"]] = str(ts)
            self._streams[p["entry_id"]] = asyncio.create_task(self._stream(room, p["entry_id"]))
        elif kind == "assistant.message" and p["entry_id"] in self.state.replies:
            if p.get("retried"):
                return True  # an attempt the model call made again: recorded, not shown
            await self._reply_whole(room, seq, p["entry_id"], p["text"], thread)
        elif kind == "tool.started":
            line = f"> {p['summary']}"[: service.max_text]
            await self._once(room, f"{seq}", lambda: service.post(channel, line, thread))
        elif kind == "request.opened" and p["id"] not in self.state.cards:
            self.state.card_prompts[p["id"]] = p["prompt_id"]
            card = self._card_view(room, p)
            ts = await self._send(room, lambda: service.post_card(channel, card, thread))
            self.state.cards[p["id"]] = str(ts)
        elif kind in ("prompt.finished", "prompt.withdrawn"):
            words = self._ended(record)
            await self._once(room, f"{seq}", lambda: service.post(channel, words, thread))
        else:
            return False
        return True

    async def _stream(self, room: RoomAPI, entry_id: str) -> None:
        """Edit the reply's message with what has streamed, at most once a second."""
        shown = ""
        with contextlib.suppress(KeyError):  # the reply ended: its whole text follows
            while True:
                await asyncio.sleep(STREAM_EVERY)
                text = room.streamed_text(self.front, entry_id)[: self.service.max_text]
                if text and text != shown:
                    await self._edit_reply(room, entry_id, text)
                    shown = text

    async def _edit_reply(self, room: RoomAPI, entry_id: str, text: str) -> None:
        message = self.state.replies[entry_id]
        await self._send(room, lambda: self.service.update(self.channel, message, text))

    async def _reply_whole(
        self, room: RoomAPI, seq: int, entry_id: str, text: str, thread: str
    ) -> None:
        if (stream := self._streams.pop(entry_id, None)) is not None:
            stream.cancel()  # and waited for: an edit on its way must not land after the whole
            with contextlib.suppress(asyncio.CancelledError):
                await stream
        parts = split_to(text, self.service.max_text) or ["(no text)"]
        message = self.state.replies[entry_id]
        await self._once(
            room, f"{seq}:0", lambda: self.service.update(self.channel, message, parts[0])
        )
        for n, part in enumerate(parts[1:], 1):  # long text: Slack's limits
            await self._once(
                room, f"{seq}:{n}", lambda part=part: self.service.post(self.channel, part, thread)
            )

    def _card_view(self, room: RoomAPI, p: dict) -> CardView:
        card = room.card(self.front, p["id"])
        who = card["waiting_on"] if card else "no one"  # answered already: the next line says
        details = p.get("details") or {}
        body = str(details.get("diff") or p["summary"])
        lines = body.splitlines()
        if len(lines) > CARD_LINES:
            more = len(lines) - CARD_LINES
            body = "\n".join(lines[:CARD_LINES]) + f"\n… {more} more lines in the room"
        if p["kind"] == "question":
            # A choice is carried by its index: a button's value has a service's length limit.
            choices = tuple((c, str(i)) for i, c in enumerate(p.get("choices") or ()))
            title = f"{room.display_name(p['author'])}'s turn asks (reply in this thread to answer)"
            return CardView(p["id"], title, p["summary"], False, choices)
        title = f"The agent asks: {p['kind']}. Waiting on {who}."
        return CardView(p["id"], title, body, True, (("Approve", "approve"), ("Reject", "reject")))

    async def _settle(self, room: RoomAPI, record: dict) -> None:
        p = record["payload"]
        prompt = self.state.card_prompts.get(p["id"])
        refused = p["outcome"] in ("rejected", "timed_out")
        if prompt is not None and refused and prompt not in self.state.refused:
            self.state.refused.append(prompt)
        elif prompt in self.state.refused and not refused:
            self.state.refused.remove(prompt)
        people = p.get("approvers") or [record.get("actor")]
        who = ", ".join(room.display_name(u) for u in people if u)
        said = _SETTLED[p["outcome"]].format(who or "the room")
        card = CardView(p["id"], said, "", False, (), settled=said)
        message = self.state.cards[p["id"]]
        await self._once(
            room, f"{record['seq']}", lambda: self.service.update_card(self.channel, message, card)
        )

    def _ended(self, record: dict) -> str:
        p = record["payload"]
        if record["kind"] == "prompt.withdrawn":
            return "Withdrawn before it ran."
        if p["state"] == "completed" and p["id"] in self.state.refused:
            return "Rejected: a request of this turn was refused."
        said = _ENDED[p["state"]]
        return f"{said} {p['reason']}" if p.get("reason") else said


def split_to(text: str, limit: int) -> list[str]:
    """`text` in parts of at most `limit` characters, cut at a line's or a word's end where one
    is in the second half of the part; the parts joined are the text."""
    parts = []
    while len(text) > limit:
        cut = max(text.rfind("\n", 0, limit), text.rfind(" ", 0, limit)) + 1
        cut = cut if cut > limit // 2 else limit
        parts.append(text[:cut])
        text = text[cut:]
    return [*parts, text] if text else parts
