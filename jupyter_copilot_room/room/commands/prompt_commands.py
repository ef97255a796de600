"""The room's commands about prompts and turns: submit (checked whole, then recorded), images, chat,
steering, withdrawal, abort, and the answers to the agent's cards.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import unicodedata
import uuid
from collections.abc import Callable
from pathlib import Path

from ...access import rules
from ...access.identity import Identity
from ...access.roles import Action, Role
from ...agent.seam import Agent
from ...attachments import AttachmentStore, Upload
from ...catalog import Catalog, check_target
from ...errors import (
    Conflict,
    InvalidRequest,
    NotAllowed,
    NotFound,
    Refused,
    TooLarge,
    TooMany,
)
from ...events import (
    Attachment,
    ChatMessage,
    Chip,
    PromptRef,
    PromptSubmitted,
    Steering,
    SystemNote,
    bidi_noted,
)
from ...notebooks import context
from ...request_bodies import ChatBody, PromptBody, SteerBody
from ...settings import SettingsStore
from ..budgets.spending import Spending
from ..cards.open_requests import OpenRequests
from ..people.participants import People
from ..persistence.recorder import Recorder, source_of
from ..persistence.replay import replay_prompt
from ..persistence.transcript_file import Transcript
from ..turns.queue import PromptQueue, QueuedPrompt, check_withdraw_prompt
from ..turns.turns import Turns

log = logging.getLogger(__name__)


def visible(text: str) -> bool:
    """Whether the text shows anything: not only spaces, control or zero-width characters."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cc", "Cf") for ch in text)


class PromptCommands:
    """`POST prompts`, images, chat, steering, withdrawal, abort and the cards' answers."""

    def __init__(
        self,
        *,
        people: People,
        queue: PromptQueue,
        turns: Turns,
        open_requests: OpenRequests,
        recorder: Recorder,
        transcript: Transcript,
        settings: SettingsStore,
        attachments: AttachmentStore,
        spending: Spending,
        catalog: Catalog | None,
        agent: Agent | None,
        terms: Callable[[], rules.Terms],
    ):
        self.people = people
        self.queue = queue
        self.turns = turns
        self.open_requests = open_requests
        self.recorder = recorder
        self.transcript = transcript
        self.settings = settings
        self.attachments = attachments
        self.spending = spending
        self.catalog = catalog
        self.agent = agent
        self.terms = terms

    def _check_text(self, text: str, what: str) -> None:
        """A prompt's or a chat message's text: something visible, within `max_prompt_chars`
        (the same limit and errors for both, so the panel handles them alike)."""
        if not visible(text):
            raise InvalidRequest(f"The {what} is empty.", code="empty_prompt")
        limit = self.settings.current.max_prompt_chars
        if len(text) > limit:
            raise TooLarge(
                f"The {what} has {len(text)} characters; the room takes at most {limit}.",
                code="prompt_too_long",
            )

    async def submit_from_request(
        self, identity: Identity, body: PromptBody, link: str | None = None
    ) -> tuple[str, int]:
        """`POST prompts`: as `submit`, but an output's image chips are checked and stored in a
        worker thread (Pillow decodes each whole, up to hundreds of milliseconds: never on the
        loop that serves everyone); what may have changed meanwhile is checked again."""
        if not any(chip.data is not None for chip in body.chips or ()):
            return self.submit(identity, body, link=link)  # nothing to decode
        attached = self._check_prompt(identity, body)
        chips = await asyncio.to_thread(context.store_images, body.chips, self.attachments)
        self._check_room_for(identity)  # the budget or the queue may have moved meanwhile
        return self._record_prompt(identity, body, chips, attached, link=link)

    def submit(
        self,
        identity: Identity,
        body: PromptBody,
        thread: str | None = None,
        applies: bool = False,
        link: str | None = None,
    ) -> tuple[str, int]:
        """`thread`: the side thread the prompt brings back (`threads/`), marked as such;
        `applies`: its turn applies the thread's changes rather than asking the agent; `link`:
        the page a front took it from."""
        attached = self._check_prompt(identity, body)
        # Last of the checks, first to write: an output's image joins the attachments' store.
        chips = context.store_images(body.chips, self.attachments)
        return self._record_prompt(identity, body, chips, attached, thread, applies, link)

    def _check_prompt(self, identity: Identity, body: PromptBody) -> list[Attachment]:
        """Everything `submit` refuses, before anything is written; the attachments resolved."""
        self.people.require(identity, Action.SUBMIT)
        self._check_text(body.text, "prompt")
        if body.target is not None:  # a name the repository offers, never a path
            check_target(self.catalog, body.target.kind, body.target.name)
        context.check(body.chips, self.turns.notebooks)
        attached = self.attachments.resolve(
            [(a.id, a.path, a.name) for a in body.attachments or ()], self.turns.notebooks
        )
        self._check_room_for(identity)
        return attached

    def _check_room_for(self, identity: Identity) -> None:
        """The day's budget and the author's share of the queue."""
        self.spending.check(identity.username)
        waiting = self.queue.waiting_by(identity.username)
        if waiting >= self.settings.current.max_waiting_prompts:
            raise TooMany(
                f"You have {waiting} prompts waiting, as many as one person may; submit more "
                "when one of them has started (or withdraw one).",
                code="too_many_waiting",
            )

    def _record_prompt(
        self,
        identity: Identity,
        body: PromptBody,
        chips: list[Chip],
        attached: list[Attachment],
        thread: str | None = None,
        applies: bool = False,
        link: str | None = None,
    ) -> tuple[str, int]:
        prompt_id = uuid.uuid4().hex
        record = self.recorder.commit(
            "prompt.submitted",
            identity.username,
            PromptSubmitted(
                id=prompt_id,
                text=body.text,
                target=body.target,
                origin=body.origin or source_of(identity.username),
                chips=chips or None,
                attachments=attached or None,
                thread=thread,
                applies=applies or None,
                link=link,
            ),
        )
        self.queue.submit(
            prompt_id,
            identity.username,
            body.text,
            body.target,
            record.ts,
            chips,
            attached,
            thread if applies else None,
        )
        position = self.queue.position(prompt_id)
        self.turns.wake()
        return prompt_id, position

    async def upload(self, identity: Identity, data: bytes, declared: str) -> Upload:
        """An image for a prompt, checked whole and stored once (`attachments.py`)."""
        self.people.require(identity, Action.SUBMIT)
        return await asyncio.to_thread(self.attachments.add, data, declared)

    def attachment(self, identity: Identity, image_id: str) -> tuple[Path, str]:
        """A stored image and its type, for everyone admitted (viewers see the transcript)."""
        self.people.require(identity, Action.WATCH)
        return self.attachments.path(image_id), self.attachments.describe(image_id).mime

    def say(self, identity: Identity, body: ChatBody) -> str:
        """A chat message to the room: recorded, shown in the transcript, never sent to the
        agent. Viewers may chat only while `viewers_can_chat` is on."""
        self.people.require(identity, Action.CHAT)
        self._check_text(body.text, "message")
        message_id = uuid.uuid4().hex
        self.recorder.commit(
            "chat.message", identity.username, ChatMessage(id=message_id, text=body.text)
        )
        return message_id

    async def steer(self, identity: Identity, prompt_id: str, body: SteerBody) -> str:
        """A steering message into the running turn, from its author or a host: recorded,
        then said to the agent at once (its open approval cards stay open)."""
        role = self.people.require(identity, Action.STEER_OWN)
        turn = self.turns.running
        if turn is None or turn.prompt.id != prompt_id:
            raise Conflict(
                "That prompt is not running: only a running turn can be steered.",
                code="not_running",
            )
        if turn.stop is not None:
            raise Conflict("This turn is being stopped.", code="already_aborting")
        if not rules.may_steer(role, identity.username, turn.prompt.author):
            raise NotAllowed(
                "Only the prompt's author or a host can steer its turn.", code="not_your_turn"
            )
        self._check_text(body.text, "steering message")
        steering_id = uuid.uuid4().hex
        self.recorder.commit(
            "prompt.steered",
            identity.username,
            Steering(id=steering_id, prompt_id=prompt_id, text=body.text),
        )
        assert self.agent is not None  # a turn runs
        try:
            await self.agent.steer(identity.username, bidi_noted(body.text))
        except Exception as err:
            log.warning("A steering message could not reach the agent: %s", err)
            self.recorder.commit(
                "system",
                None,
                SystemNote(text=f"The steering message did not reach the agent: {err}"),
            )
        return steering_id

    async def withdraw(self, identity: Identity, prompt_id: str) -> None:
        """A waiting prompt withdrawn, by its author or a host (`rules.may_withdraw`)."""
        role = self.people.require(identity, Action.WITHDRAW_OWN)
        try:
            prompt = self.queue.get(prompt_id)
        except NotFound:
            await self._refuse_as_before(prompt_id, identity.username, role)
            raise
        self._check_withdraw(prompt, identity.username, role)
        record = self.recorder.commit(
            "prompt.withdrawn", identity.username, PromptRef(id=prompt_id)
        )
        self.queue.withdraw(prompt_id, now=record.ts)

    def _check_withdraw(self, prompt: QueuedPrompt, by: str, role: Role) -> None:
        """Whose it is first (403 not_your_prompt), then whether it still waits (409)."""
        if not rules.may_withdraw(role, by, prompt.author, self.terms()):
            raise NotAllowed(
                "Only its author or a host can withdraw this prompt.", code="not_your_prompt"
            )
        check_withdraw_prompt(prompt)

    async def _refuse_as_before(self, prompt_id: str, by: str, role: Role) -> None:
        """The queue forgets finished prompts: one is refused as the queue would refuse it
        (403 not_your_prompt or 409 not_pending, not 404), in the state its records replayed
        into a queue of its own leave it. Returns if the transcript has no such prompt."""
        past = PromptQueue()
        last: QueuedPrompt | None = None
        for record, payload in await self.transcript.records_with_id(prompt_id):
            with contextlib.suppress(Refused, RuntimeError):  # the room's replay logged it
                last = replay_prompt(record, payload, past) or last
        if last is not None:
            self._check_withdraw(last, by, role)

    def start_agent(self, identity: Identity) -> None:
        """A host's retry of an agent that could not start (no server restart needed)."""
        self.people.require(identity, Action.START_AGENT)
        self.turns.life.retry(identity.username)

    async def abort(self, identity: Identity) -> None:
        self.people.require(identity, Action.ABORT)
        await self.turns.abort(identity.username)

    def approval_in_full(self, identity: Identity, request_id: str) -> dict:
        """An open card's content with nothing cut (`GET approvals/<id>/details`), for everyone
        who sees the card: viewers read the same card in the document, only shorter."""
        self.people.require(identity, Action.WATCH)
        return self.open_requests.in_full(request_id)

    def answer_permission(
        self, identity: Identity, request_id: str, approve: bool, feedback: str | None
    ) -> None:
        role = self.people.require(identity, Action.ANSWER_OWN)
        self.open_requests.answer_permission(
            request_id,
            identity.username,
            role=role,
            approve=approve,
            feedback=feedback,
        )

    def answer_question(self, identity: Identity, request_id: str, answer: str) -> None:
        role = self.people.require(identity, Action.ANSWER_OWN)
        self.open_requests.answer_question(request_id, identity.username, role=role, answer=answer)
