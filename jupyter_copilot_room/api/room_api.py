"""One room as every front drives it: REST's handlers, the websocket, side threads, bridges.

Each method is one command: it takes the caller (a front's `Person`, or REST's `Identity`),
leaves every decision to the room (`People.require`, `access/rules.py`) and raises `Refused`,
with REST's code and status, for what the room will not do. What a `Person` does is recorded
with their `source`. A front reads the room and says how its service is as itself (`Front`).
The room object stays inside: a front gets answers, never the room.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from contextlib import AbstractContextManager
from datetime import UTC, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ..access import rules
from ..access.identity import Identity
from ..access.roles import Action, Role
from ..attachments import Upload
from ..export import Format
from ..request_bodies import (
    ApprovalBody,
    CardDecision,
    ChatBody,
    ModelBody,
    PromptBody,
    QuestionBody,
    SteerBody,
    TranscriptQuery,
    validated,
)
from ..room.live.sync import ClientChannel
from ..room.room import Room
from . import download
from .card_views import agent_card, card_view
from .download import Download
from .follow import follow
from .fronts import Fronts
from .person import Caller, Front, Reader, acting, identity_of
from .room_links import RoomLinksAPI
from .threads_api import ThreadsAPI

if TYPE_CHECKING:
    from ..threads import ThreadRegistry


class RoomAPI:
    """A started room (`RoomsAPI.open`), or one of its side threads (`ThreadsAPI.open`)."""

    def __init__(self, room: Room, threads: ThreadRegistry, fronts: Fronts | None = None):
        self._room = room
        self._threads = threads
        self._fronts = fronts or Fronts()

    @property
    def name(self) -> str:
        return self._room.name

    def _acting(self, caller: Caller) -> AbstractContextManager[Identity]:
        return acting(caller, self._room.people.known.get)

    def _holding(self, card_id: str) -> RoomAPI:
        """This room, or its thread where the card `card_id` is open."""
        holder = self._threads.room_holding(self._room, card_id)
        return self if holder is self._room else RoomAPI(holder, self._threads, self._fronts)

    async def durable(self) -> None:
        """Once everything recorded so far is on disk (REST answers after this)."""
        await self._room.durable()

    # -- who is here -------------------------------------------------------------------------------

    def can(self, caller: Caller) -> list[str]:
        """What the caller may do here now, as `GET room`'s `me.can` says it (`"submit"`,
        `"answer_own"`, ...; nothing for someone not admitted), no visit recorded."""
        identity = identity_of(caller, self._room.people.known.get(caller.username))
        return rules.listed(self._room.people.role_now(identity), self._room.terms())

    def _check_reader(self, reader: Reader, action: Action) -> None:
        """A front reads as itself; a person reads what their role lets them (`action`)."""
        if not isinstance(reader, Front):
            with self._acting(reader) as identity:
                self._room.people.require(identity, action)

    def describe(self, caller: Caller) -> dict:
        """`GET room`: who the caller is, what they may do (`me.can`); if admitted, the state and
        the chat services whose account they may link (`chats`, `POST link-code`) and the room's
        channel in each bridged one (`channels`)."""
        with self._acting(caller) as identity:
            described = self._room.people_commands.describe(identity)
        if self._fronts.channels and rules.admitted(self._room.people.role_of(caller.username)):
            described["chats"] = list(self._fronts.channels)
            described["channels"] = self.links.channels()
        return described

    def list_people(self, caller: Caller) -> list[dict]:
        with self._acting(caller) as identity:
            return self._room.people_commands.list_people(identity)

    def set_role(self, caller: Caller, username: str, role: str) -> dict:
        with self._acting(caller) as identity:
            now = self._room.people_commands.set_role(identity, username, role)  # type: ignore[arg-type]
            return {"username": username, "role": now.value}

    def remove(self, caller: Caller, username: str) -> None:
        with self._acting(caller) as identity:
            self._room.people_commands.remove(identity, username)

    def admit(self, caller: Caller, username: str, decision: str) -> dict:
        with self._acting(caller) as identity:
            now = self._room.people_commands.admit(identity, username, decision)  # type: ignore[arg-type]
            return {"username": username, "role": now.value}

    def left_door(self, caller: Caller) -> None:
        with self._acting(caller) as identity:
            self._room.people_commands.left_door(identity)

    def claim_host(self, caller: Caller, secret: str) -> dict:
        """The host secret spent: the caller is the host; `GET room` as they now see it."""
        with self._acting(caller) as identity:
            self._room.people_commands.claim_host(identity, secret)
            return self._room.people_commands.describe(identity)

    def check_watcher(self, caller: Caller) -> None:
        """Refuse, as REST would, someone who may not watch the room's live document."""
        with self._acting(caller) as identity:
            self._room.people.require(identity, Action.WATCH)

    def still_watches(self, identity: Identity) -> bool:
        """Whether `identity` (re-read from the identity provider) may still watch, no visit
        recorded: an open socket's periodic check."""
        return rules.may(self._room.people.role_now(identity), Action.WATCH, self._room.terms())

    async def connect(self, caller: Caller, channel: ClientChannel) -> None:
        """Serve the live document to the caller until they disconnect."""
        with self._acting(caller) as identity:
            await self._room.people_commands.connect(channel, identity)

    # -- prompts and chat --------------------------------------------------------------------------

    async def post_prompt(self, caller: Caller, body: PromptBody, link: str | None = None) -> dict:
        """A prompt with everything it may carry: `{"id", "position"}` in the queue."""
        await self._room.people.book.settled(caller.username)
        with self._acting(caller) as identity:
            prompt_id, position = await self._room.prompt_commands.submit_from_request(
                identity, body, link
            )
            return {"id": prompt_id, "position": position}

    async def submit(
        self, caller: Caller, text: str, link: str | None = None, **fields: Any
    ) -> str:
        """Queue a prompt (`fields`: what `POST prompts` takes besides its text; `link`: the
        page a front took it from, a pull request's comment, which the panel links to); its id."""
        body = validated(PromptBody, {"text": text, **fields})
        return (await self.post_prompt(caller, body, link))["id"]

    async def say(self, caller: Caller, text: str) -> str:
        """Chat to the room (never to the agent); the message's id."""
        with self._acting(caller) as identity:
            return self._room.prompt_commands.say(identity, validated(ChatBody, {"text": text}))

    async def steer(self, caller: Caller, prompt_id: str, text: str) -> str:
        with self._acting(caller) as identity:
            return await self._room.prompt_commands.steer(
                identity, prompt_id, validated(SteerBody, {"text": text})
            )

    async def withdraw(self, caller: Caller, prompt_id: str) -> None:
        with self._acting(caller) as identity:
            await self._room.prompt_commands.withdraw(identity, prompt_id)

    async def abort(self, caller: Caller) -> None:
        with self._acting(caller) as identity:
            await self._room.prompt_commands.abort(identity)

    async def upload(self, caller: Caller, data: bytes, declared: str) -> Upload:
        with self._acting(caller) as identity:
            return await self._room.prompt_commands.upload(identity, data, declared)

    def attachment(self, caller: Caller, image_id: str) -> tuple[Path, str]:
        with self._acting(caller) as identity:
            return self._room.prompt_commands.attachment(identity, image_id)

    # -- the agent's cards -------------------------------------------------------------------------

    def cards_for(self, reader: Reader, name: Callable[[str], str] | None = None) -> list[dict]:
        """The open cards, each with `id`, `kind`, `prompt`, `summary`, a question's `choices`,
        `answerers`, whether the reader may answer it now (`may_answer`, from
        `access/rules.py`; a `Front` never may), and the words for who may: `waiting_on` and
        `who_answers` (as a refusal says it), naming people by `name` (default: the room's
        display names; GitHub's `@login`s)."""
        username = None if isinstance(reader, Front) else reader.username
        role = self._room.people.role_of(username) if username else Role.PENDING
        cards = (self._room.document.approvals.to_py() or {}).items()
        name = name or self._room.document.display_name
        return [card_view(card_id, card, username, role, name) for card_id, card in cards]

    def card(self, reader: Reader, card_id: str) -> dict | None:
        """The open card `card_id` as `cards_for` shows it to the reader; None once settled."""
        return next((card for card in self.cards_for(reader) if card["id"] == card_id), None)

    async def answer(
        self, caller: Caller, card_id: str, decision: CardDecision, feedback: str | None = None
    ) -> dict:
        """Approve or reject a card (here, or in one of the room's threads)."""
        body = validated(ApprovalBody, {"decision": decision, "feedback": feedback})
        holder = self._holding(card_id)
        with holder._acting(caller) as identity:
            holder._room.prompt_commands.answer_permission(
                identity, card_id, body.decision == "approve", body.feedback
            )
        return {"id": card_id, "decision": body.decision}

    async def reply(self, caller: Caller, card_id: str, text: str) -> dict:
        """Answer the agent's question on a card."""
        answer = validated(QuestionBody, {"answer": text}).answer
        holder = self._holding(card_id)
        with holder._acting(caller) as identity:
            holder._room.prompt_commands.answer_question(identity, card_id, answer)
        return {"id": card_id, "answer": answer}

    def card_in_full(self, caller: Caller, card_id: str) -> dict:
        """An open card's summary and details with nothing cut."""
        holder = self._holding(card_id)
        with holder._acting(caller) as identity:
            return holder._room.prompt_commands.approval_in_full(identity, card_id)

    # -- the agent and its model -------------------------------------------------------------------

    async def describe_model(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return await self._room.agent_commands.describe_model(identity)

    async def choose_model(self, caller: Caller, model: str) -> dict:
        with self._acting(caller) as identity:
            return await self._room.agent_commands.choose_model(
                identity, validated(ModelBody, {"model": model})
            )

    def describe_catalog(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return self._room.people_commands.describe_catalog(identity)

    def start_agent(self, caller: Caller) -> None:
        with self._acting(caller) as identity:
            self._room.prompt_commands.start_agent(identity)

    def describe_signin(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return self._room.agent_commands.describe_signin(identity)

    async def begin_signin(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return await self._room.agent_commands.begin_signin(identity)

    async def deliver_signin(self, caller: Caller, landed: str) -> dict:
        with self._acting(caller) as identity:
            return await self._room.agent_commands.deliver_signin(identity, landed)

    async def allow_signin(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return await self._room.agent_commands.allow_signin(identity)

    async def cancel_signin(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return await self._room.agent_commands.cancel_signin(identity)

    async def sign_out(self, caller: Caller) -> None:
        with self._acting(caller) as identity:
            await self._room.agent_commands.sign_out(identity)

    # -- budgets and settings ----------------------------------------------------------------------

    def describe_usage(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return self._room.agent_commands.describe_usage(identity)

    def lift_budget(self, caller: Caller, username: str) -> dict:
        with self._acting(caller) as identity:
            return self._room.agent_commands.lift_budget(identity, username)

    def get_settings(self, caller: Caller) -> dict:
        with self._acting(caller) as identity:
            return self._room.people_commands.get_settings(identity)

    def patch_settings(self, caller: Caller, patch: BaseModel) -> dict:
        with self._acting(caller) as identity:
            return self._room.people_commands.patch_settings(identity, patch)

    # -- the transcript and the checkpoints --------------------------------------------------------

    def follow(self, reader: Reader, after: int = 0) -> AsyncGenerator[dict]:
        """The transcript's records after seq `after` (as `transcript.jsonl` holds them), then
        each new one, live: an async iterator, for a front or for whom may read the transcript.
        It ends with the room: a front restarts it when told the room started again
        (`RoomsAPI.watch`)."""
        self._check_reader(reader, Action.READ_TRANSCRIPT)
        return follow(self._room.recorder, self._room.transcript, after)

    async def read_transcript(self, caller: Caller, query: TranscriptQuery) -> Download:
        """`GET transcript`: the whole of it, a page of its records, or an export."""
        with self._acting(caller) as identity:
            if query.format is not None:
                text = await self._room.history_commands.export_transcript(
                    identity, query.format, query.tz
                )
                return download.exported(text, query)
            if query.page is not None:
                page = query.page
                return download.lines(
                    await self._room.history_commands.transcript_page(
                        identity, page.before, page.limit
                    )
                )
            return download.whole(self._room.history_commands.transcript_chunks(identity))

    async def export_transcript(self, caller: Caller, fmt: Format, tz: tzinfo = UTC) -> str:
        """The whole transcript as a notebook, Markdown or JSONL, its times in `tz`."""
        with self._acting(caller) as identity:
            return await self._room.history_commands.export_transcript(identity, fmt, tz)

    async def history_page(self, caller: Caller, before: int, limit: int) -> dict:
        with self._acting(caller) as identity:
            return await self._room.history_commands.history_page(identity, before, limit)

    async def checkpoint_diff(self, caller: Caller, commit: str) -> dict:
        with self._acting(caller) as identity:
            return await self._room.history_commands.checkpoint_diff(identity, commit)

    async def revert(self, caller: Caller, commit: str, force: bool = False) -> dict:
        with self._acting(caller) as identity:
            return await self._room.history_commands.revert(identity, commit, force=force)

    # -- fronts ------------------------------------------------------------------------------------

    def agent_card(self) -> dict:
        """What a front shows others of the room's agent: the name they mention it by, and the
        skills of the repository's catalog (public: a pull request's readers see it)."""
        return agent_card(self._room)

    def last_seq(self) -> int:
        """The transcript's last record (a front that starts now follows from there)."""
        return self._room.transcript.position().seq

    def display_name(self, username: str) -> str:
        """The name the room shows for `username` (a front names people as the room does)."""
        return self._room.document.display_name(username)

    def streamed_text(self, reader: Reader, entry_id: str) -> str:
        """What a reply has streamed so far (KeyError once it left the live document)."""
        self._check_reader(reader, Action.WATCH)
        return self._room.document.streamed_text(entry_id)

    def set_front_status(self, front: Front, status: str | None) -> None:
        """What a front says of its service in the room's header ("GitHub: waiting"); None
        while all is well."""
        fronts = dict(self._room.document.meta.get("fronts") or {})
        if status is None:
            fronts.pop(front.name, None)
        else:
            fronts[front.name] = status
        self._room.document.set_meta(fronts=fronts)

    def set_front_channel(self, front: Front, channel: str | None) -> None:
        """The room's channel in a chat service (`meta.channels`), so every panel's menu follows
        a host's link or unlink at once; None: unlinked."""
        channels = dict(self._room.document.meta.get("channels") or {})
        self._room.document.set_meta(channels={**channels, front.name: channel})

    def may_act_from_repository(self, permission: str) -> bool:
        """Whether someone whose permission on the room's repository is `permission` (GitHub's
        `admin`, `write`, `read`, ...) may act here from its pull request, as the username they
        are mapped to (`access/rules.py`); the room's own rules then decide the rest."""
        return rules.may_act_on_repository(permission)

    @property
    def links(self) -> RoomLinksAPI:
        """The room's links to outside places: a pull request, a channel per chat service."""
        return RoomLinksAPI(self, self._room, self._fronts)

    # -- side threads ------------------------------------------------------------------------------

    @property
    def threads(self) -> ThreadsAPI:
        """The room's side threads."""
        return ThreadsAPI(
            self._threads.of(self._room),
            lambda room: RoomAPI(room, self._threads),
            self._room.people.known.get,
        )
