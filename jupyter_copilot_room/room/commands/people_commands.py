"""The room's commands about people and the room itself: who is here and what they may do
(`GET room`, from `access/rules.py`), hosts' decisions, the live document's connection, settings
and the catalog.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from pydantic import BaseModel

from ...access import rules
from ...access.identity import HostClaim, Identity
from ...access.roles import Action, Role
from ...catalog import Catalog
from ...errors import InvalidRequest
from ...events import (
    AdmissionChoice,
    ParticipantRole,
    PromptRef,
    RoomCreated,
    SettingsChanged,
)
from ...settings import SettingsStore
from ..live.document import RoomDocument
from ..live.sync import ClientChannel, RoomSync
from ..people.participants import People
from ..persistence.recorder import Recorder
from ..turns.queue import PromptQueue, TaskState
from ..turns.turns import Turns

log = logging.getLogger(__name__)


class PeopleCommands:
    """Who is here and what they may do, hosts' decisions, the live document, settings."""

    def __init__(
        self,
        *,
        people: People,
        document: RoomDocument,
        queue: PromptQueue,
        turns: Turns,
        sync: RoomSync,
        recorder: Recorder,
        settings: SettingsStore,
        catalog: Catalog | None,
        claim: HostClaim | None,
        terms: Callable[[], rules.Terms],
        maybe_quiet: Callable[[], None],
    ):
        self.people = people
        self.document = document
        self.queue = queue
        self.turns = turns
        self.sync = sync
        self.recorder = recorder
        self.settings = settings
        self.catalog = catalog
        self.claim = claim
        self.terms = terms
        self.maybe_quiet = maybe_quiet  # a connection closed: the room may be quiet now

    def left_door(self, identity: Identity) -> None:
        """`DELETE door`: the caller's panel closed while they waited to come in."""
        self.people.door.went_away(identity.username)

    def waiting_on(self, username: str, role: Role) -> int:
        """How many cards wait on `username` here: requests they may answer and have not
        approved, and people at the door if they admit people (each card's `answerers`)."""
        cards = [*(self.document.approvals.to_py() or {}).values(), *self.people.listing()]
        return rules.waiting_on(cards, username, role)

    def describe(self, identity: Identity) -> dict:
        """`GET room`: who I am and what I may do; the room's state only for those admitted."""
        role = self.people.check_in(identity)
        me = self.people.me(identity, role, self.terms())
        if not rules.admitted(role):
            return {"me": me}
        state = self.document.snapshot("meta", "queue", "approvals")
        return {
            "me": me,
            "agent": state["meta"],
            "queue": state["queue"],
            "approvals": state["approvals"],
            "participants": self.people.listing(),
            "settings": self.settings.current.model_dump(),
        }

    def list_people(self, identity: Identity) -> list[dict]:
        self.people.require(identity, Action.WATCH)
        return self.people.listing()

    async def connect(self, channel: ClientChannel, identity: Identity) -> None:
        """Serve the live document to an admitted person until they disconnect."""
        if not rules.may(self.people.check_in(identity), Action.WATCH, self.terms()):
            channel.close(4403, "You are not admitted to this room.")  # lost since the upgrade
            return
        try:
            await self.sync.serve(channel, identity.username, self.people.presence_changed)
        finally:
            self.maybe_quiet()  # perhaps the last one gone

    def overview(self, identity: Identity) -> dict:
        """What `GET rooms` says of this room to `identity`: the agent's state, who is
        connected and what waits on them there (only where they are admitted), their role,
        decided without recording a visit (listing is no visit), and whether they knock at its
        door now (`door.py`: a pending role alone is only what the door would say)."""
        role = self.people.role_now(identity)
        admitted = rules.admitted(role)
        return {
            "state": self.turns.life.state().value,
            "people": self.people.connected() if admitted else [],
            "role": role.value,
            "at_the_door": identity.username in self.people.door,
            "waiting_on_you": self.waiting_on(identity.username, role) if admitted else 0,
        }

    def record_room_created(self, identity: Identity, name: str, repository: str) -> float:
        """The creation of another room, recorded in this room's (main's) transcript by its
        creator; returns when."""
        self.people.check_in(identity)  # the creator is someone this transcript knows
        record = self.recorder.commit(
            "room.created", identity.username, RoomCreated(name=name, repository=repository)
        )
        return record.ts

    def set_role(self, identity: Identity, username: str, role: ParticipantRole) -> Role:
        """Re-role someone; returns the role now in effect."""
        self.people.require(identity, Action.MANAGE_PEOPLE)
        return self._after_decision(
            identity, username, self.people.set_role(identity, username, role)
        )

    def remove(self, identity: Identity, username: str) -> None:
        self.people.require(identity, Action.MANAGE_PEOPLE)
        self._after_decision(identity, username, self.people.remove(identity, username))

    def admit(self, identity: Identity, username: str, decision: AdmissionChoice) -> Role:
        self.people.require(identity, Action.MANAGE_PEOPLE)
        return self._after_decision(
            identity, username, self.people.admit(identity, username, decision)
        )

    def _after_decision(self, host: Identity, username: str, role: Role) -> Role:
        """Someone no longer admitted loses their connections and their waiting prompts."""
        if rules.admitted(role):
            return role
        self.sync.disconnect(username, "You are no longer admitted to this room.")
        for prompt in list(self.queue.open()):
            if prompt.author == username and prompt.state is TaskState.SUBMITTED:
                record = self.recorder.commit(
                    "prompt.withdrawn", host.username, PromptRef(id=prompt.id)
                )
                self.queue.withdraw(prompt.id, now=record.ts)
        return role

    def claim_host(self, identity: Identity, secret: str) -> None:
        self.people.claim_host(identity, self.claim, secret)

    def get_settings(self, identity: Identity) -> dict:
        self.people.require(identity, Action.WATCH)
        return self.settings.current.model_dump()

    def patch_settings(self, identity: Identity, patch: BaseModel) -> dict:
        self.people.require(identity, Action.EDIT_SETTINGS)
        if (agent := getattr(patch, "agent", None)) is not None:
            self._check_agent(agent)
        if changes := self.settings.changes(patch):
            title = self._offered().get(changes["agent"]) if "agent" in changes else None
            self.recorder.commit(
                "settings.changed",
                identity.username,
                SettingsChanged(changes=changes, agent_title=title),
            )
            self.settings.apply(changes)
            self.people.apply_policies(self.settings.current)
            if "agent" in changes:
                self.turns.wake()  # another agent chosen: it starts between turns
        return self.settings.current.model_dump()

    def _offered(self) -> dict[str, str]:
        return self.turns.agent.offered() if self.turns.agent is not None else {}

    def _check_agent(self, name: str) -> None:
        offered = self._offered()
        if name not in offered:
            raise InvalidRequest(
                f"There is no agent {name[:60]!r} here; the server offers "
                + (", ".join(f"{n!r} ({title})" for n, title in offered.items()) or "none")
                + ".",
                code="unknown_agent",
            )

    def describe_catalog(self, identity: Identity) -> dict:
        """The repository's skills and custom agents, read afresh (the files may have changed)."""
        self.people.require(identity, Action.WATCH)
        if self.catalog is None:
            return {"skills": [], "agents": [], "problems": []}
        return self.catalog.refresh().to_json()
