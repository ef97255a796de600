"""A room as its side threads see it: the few things they ask of it, by name, and none of its
parts. A thread's own room is seen the same way; the promote turn (`promotion.py`) asks the
room's cards through it too."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from ..access.identity import Identity
from ..access.roles import Action, Role
from ..agent.seam import Agent, Answer, PermissionAsk
from ..errors import NotFound, Unavailable
from ..events import SystemNote
from ..request_bodies import PromptBody
from ..room.room import Room
from ..room.turns.queue import QueuedPrompt

#: Seconds a fork waits for the room's agent to wake (its session is what is forked).
AGENT_WAKE_TIMEOUT = 60.0


class RoomSide:
    def __init__(self, room: Room):
        self.room = room  # opaque beyond this class: handed to the API as a thread's room

    @property
    def name(self) -> str:
        return self.room.name

    @property
    def state_dir(self) -> Path:
        return self.room.state_dir

    @property
    def agent(self) -> Agent | None:
        return self.room.agent

    # -- who is here -------------------------------------------------------------------------------

    def require(self, identity: Identity, action: Action) -> Role:
        return self.room.people.require(identity, action)

    def role_of(self, username: str) -> Role:
        return self.room.people.role_of(username)

    def display_name(self, username: str) -> str:
        return self.room.document.display_name(username) or username

    # -- what it shows and records -----------------------------------------------------------------

    def show(self, **meta: object) -> None:
        """`meta.threads` in a room's document, `meta.thread` in a thread's."""
        self.room.document.set_meta(**meta)

    def note(self, actor: str, template: str, *people: str) -> None:
        """A line in the transcript, said by the room on `actor`'s behalf: `{0}`, `{1}`... in
        `template` are `people`, shown by their names of the day (SystemNote)."""
        self.room.recorder.commit("system", actor, SystemNote(text=template, people=people or None))

    async def transcript_text(self) -> str:
        """The whole transcript, read off the loop (months of turns)."""
        return await asyncio.to_thread(self.room.transcript.read_text)

    # -- its turns ---------------------------------------------------------------------------------

    def submit(
        self, identity: Identity, text: str, thread: str | None = None, applies: bool = False
    ) -> tuple[str, int]:
        """A prompt queued as `identity`'s; `thread` marks one that brings a thread back."""
        body = PromptBody.model_validate({"text": text})
        return self.room.prompt_commands.submit(identity, body, thread=thread, applies=applies)

    async def agent_ready(self) -> None:
        """The room's agent connected (its session is what a fork copies)."""
        life = self.room.turns.life
        if life.agent_status in ("sleeping", "stopping"):
            life.need_agent()
        try:
            status = await asyncio.wait_for(life.settled(), AGENT_WAKE_TIMEOUT)
        except TimeoutError:
            status = "still starting"
        if status != "ready":
            raise Unavailable(
                "The room's agent is not available, so its conversation cannot be forked.",
                code="agent_unavailable",
            )

    async def worktree_read(self) -> None:
        """Once the running turn's checkpoint has the working tree as the turn found it."""
        await self.room.turns.worktree_read()

    # -- its cards ---------------------------------------------------------------------------------

    def holds_card(self, request_id: str) -> bool:
        with contextlib.suppress(NotFound):
            self.room.cards.ledger.get(request_id)
            return True
        return False

    async def ask_card(
        self, prompt: QueuedPrompt, kind: str, summary: str, details: dict[str, str]
    ) -> Answer:
        """A card of the running turn, decided like a write under the room's approval policy:
        at once by a rule, or by the prompt's author and the hosts (two under `two`)."""
        settings = self.room.settings.current
        ask = PermissionAsk(kind=kind, summary=summary, details=details)
        return await self.room.cards.under_policy(
            prompt, ask, settings.approval_policy, settings.permission_timeout, decided_as="write"
        )

    # -- its life ----------------------------------------------------------------------------------

    async def ensure_started(self) -> None:
        await self.room.ensure_started()

    async def stop(self) -> None:
        await self.room.stop()
