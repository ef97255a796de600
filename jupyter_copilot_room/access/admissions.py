"""Who gets in, and as what: the admission order as a pure function plus its store.

Order: configured hosts (and a host who claimed the room), then a host's rejection or a role a
host set over the hub's word (removing or re-roling someone takes effect at once, even for
someone a hub group admits), then the role the hub grants (groups or scopes, resolved by the
caller), then a host's admission decision or the configured allow lists, then the policy for the
person's sign-in type. With a Copilot seat check (`c.CopilotRoom.github["seat_check"]`), someone
the order makes a member needs an active seat in the org: without one, or while GitHub is asked,
they wait at the door, and a host may admit them as a viewer only. `host` is never decided
here: it comes only from configuration or the one-time claim link, so no API call can make
anyone a host.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Literal, Protocol

from ..errors import Conflict
from ..settings import Policy
from ..statefiles import read_json, write_cache
from .identity import Identity
from .roles import Role


class Decision(StrEnum):
    VIEWER = "viewer"
    MEMBER = "member"
    REJECT = "reject"


_POLICY_ROLE = {
    Policy.ASK_HOST: Role.PENDING,
    Policy.VIEWER: Role.VIEWER,
    Policy.MEMBER: Role.MEMBER,
    Policy.REFUSE: Role.REFUSED,
}

_DECISION_ROLE = {
    Decision.VIEWER: Role.VIEWER,
    Decision.MEMBER: Role.MEMBER,
    Decision.REJECT: Role.REFUSED,
}


#: What the seat check says of someone: an active seat, none, not answered yet, or GitHub could
#: not say (the admission policy then decides alone).
SeatWord = Literal["seat", "none", "asking", "unknown"]


class SeatAnswers(Protocol):
    org: str

    def word(self, username: str) -> SeatWord: ...

    async def settled(self, username: str) -> None: ...


#: What the hosts' admission card says of someone at the door, by the seat check's word.
_DOOR_NOTES = {
    "none": "no Copilot seat in {org}",
    "asking": "checking their Copilot seat in {org}",
    "unknown": "GitHub could not say whether they have a Copilot seat in {org}",
}


@dataclass
class AdmissionBook:
    """Configured lists plus the decisions hosts made; `role_of` is the whole admission order."""

    hosts: frozenset[str] = frozenset()
    members: frozenset[str] = frozenset()
    viewers: frozenset[str] = frozenset()
    policy: Policy = Policy.ASK_HOST
    guest_policy: Policy = Policy.ASK_HOST
    decisions: dict[str, Decision] = field(default_factory=dict)
    claimed_hosts: set[str] = field(default_factory=set)
    #: People whose decision a host made over what the hub grants them (a re-role).
    over_hub: set[str] = field(default_factory=set)
    seats: SeatAnswers | None = None  # None: no seat check configured

    def is_host(self, username: str) -> bool:
        return username in self.hosts or username in self.claimed_hosts

    def role_for(self, identity: Identity) -> Role:
        """`role_of` for someone as they sign in now (verified or not, the hub's grant)."""
        return self.role_of(
            identity.username, verified=identity.verified, hub_role=identity.hub_role
        )

    def role_of(self, username: str, *, verified: bool, hub_role: Role | None = None) -> Role:
        role = self._ordered_role(username, verified, hub_role)
        if role is Role.MEMBER and not self._seated(username):
            return Role.PENDING
        return role

    def _seated(self, username: str) -> bool:
        """Whether the seat check lets `username` be a member (always, with no check)."""
        return self.seats is None or self.seats.word(username) in ("seat", "unknown")

    async def settled(self, username: str) -> None:
        """Once the seat check has answered for `username` (at once without a check): a front
        acting for someone the room never saw waits for it rather than finds them at the door."""
        if self.seats is not None and not self.is_host(username):
            await self.seats.settled(username)

    def door_note(self, username: str) -> str | None:
        """What the hosts' card says of someone at the door, from the seat check."""
        if self.seats is None:
            return None
        note = _DOOR_NOTES.get(self.seats.word(username))
        return note.format(org=self.seats.org) if note else None

    def _ordered_role(self, username: str, verified: bool, hub_role: Role | None) -> Role:
        if self.is_host(username):
            return Role.HOST
        decision = self.decisions.get(username)
        if decision is Decision.REJECT or (decision is not None and username in self.over_hub):
            return _DECISION_ROLE[decision]  # a host's removal or re-role holds against the hub
        if hub_role in (Role.MEMBER, Role.VIEWER):
            return hub_role
        if username in self.decisions:
            return _DECISION_ROLE[self.decisions[username]]
        if username in self.members:
            return Role.MEMBER
        if username in self.viewers:
            return Role.VIEWER
        return _POLICY_ROLE[self.policy if verified else self.guest_policy]

    def ensure_decidable(
        self,
        username: str,
        decision: Decision | None = None,
        name: Callable[[str], str] = str,
    ) -> None:
        """Refuses a decision on `username` that cannot hold, naming them by `name` (the room's
        display name, where the caller has one)."""
        if self.is_host(username):
            raise Conflict(
                f"{name(username)} is a host by configuration; a host's role is fixed.",
                code="host_fixed",
            )
        if decision is Decision.MEMBER and not self._seated(username):
            raise Conflict(
                f"{name(username)} cannot be a member: {self.door_note(username)}. A host may "
                "admit them as a viewer.",
                code="no_copilot_seat",
            )

    def decide(self, username: str, decision: Decision, *, over_hub: bool = False) -> None:
        """Record a host's decision; `over_hub` makes it hold against what the hub grants."""
        self.ensure_decidable(username)
        self.restore(username, decision, over_hub=over_hub)

    def restore(self, username: str, decision: Decision, *, over_hub: bool = False) -> None:
        """A decision replayed from the transcript, as it was made."""
        self.decisions[username] = Decision(decision)
        if over_hub:
            self.over_hub.add(username)
        else:
            self.over_hub.discard(username)

    def claim_host(self, username: str) -> None:
        self.claimed_hosts.add(username)
        self.decisions.pop(username, None)
        self.over_hub.discard(username)

    def to_json(self) -> dict:
        return {
            "decisions": {name: d.value for name, d in sorted(self.decisions.items())},
            "claimed_hosts": sorted(self.claimed_hosts),
            "over_hub": sorted(self.over_hub),
        }


def restore_decisions(path: Path, book: AdmissionBook) -> None:
    """The decisions a room's cache holds, into `book` (a room not loaded: who it admits, for
    the list of rooms). The claimed hosts are main's, shared by every room, and not read here."""
    data = read_json(path) or {}
    over_hub = set(data.get("over_hub") or ())
    for username, decision in (data.get("decisions") or {}).items():
        with contextlib.suppress(ValueError):  # a decision this version does not know
            book.restore(username, Decision(decision), over_hub=username in over_hub)


def save_decisions(path: Path, book: AdmissionBook) -> None:
    """Write the cache of decisions (the transcript is their source; this file is rebuilt from it
    at every start), atomically: a crash never leaves half a file."""
    write_cache(path, book.to_json())
