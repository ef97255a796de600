"""Who has been in the room, the role each person has now, and what hosts decided about them.

Every request checks its caller in (`check_in`): a first visit or a changed name is recorded, and
the role is decided afresh from the admission book (the hub's grant is re-read on every request,
so a hub admin's change applies at once). The `participants` root of the document shows everyone
with their live role and presence; hosts' decisions are stored in `admissions.json` and recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...access import rules
from ...access.admissions import AdmissionBook, Decision, save_decisions
from ...access.identity import SERVER_OWNER, HostClaim, Identity
from ...access.roles import Action, Role
from ...errors import Conflict, NotAllowed, NotFound
from ...events import (
    AdmissionChoice,
    AdmissionDecided,
    ParticipantRole,
    PersonRef,
    PersonSeen,
    RoleChanged,
)
from ...settings import Policy, RoomSettings
from ..live.document import RoomDocument
from ..persistence.recorder import Recorder
from .door import Door

_HUB_ROLES: dict[Role | None, ParticipantRole] = {Role.MEMBER: "member", Role.VIEWER: "viewer"}


class People:
    def __init__(
        self,
        book: AdmissionBook,
        decisions_file: Path,
        document: RoomDocument,
        recorder: Recorder,
        online: Callable[[], set[str]],
        terms: Callable[[], rules.Terms] = rules.Terms,
    ):
        self.book = book
        self.decisions_file = decisions_file
        self.document = document
        self.recorder = recorder
        self.online = online
        self.terms = terms  # what of the room's settings and state the rules depend on
        self.known: dict[str, Identity] = {}
        self.door = Door(self.presence_changed)  # who waits to come in now (door.py)

    # -- who is here -----------------------------------------------------------------------------

    def remember(self, identity: Identity) -> None:
        """A visit replayed from the transcript."""
        self.known[identity.username] = identity

    def check_in(self, identity: Identity) -> Role:
        """Register the caller's visit (recorded when it is new or their name changed) and
        decide their role now."""
        if self.known.get(identity.username) != identity:
            self.recorder.commit(
                "person.seen",
                identity.username,
                PersonSeen(
                    username=identity.username,
                    display_name=identity.display_name,
                    verified=identity.verified,
                    avatar_url=identity.avatar_url,
                    color=identity.color,
                    gate=_HUB_ROLES.get(identity.hub_role),
                ),
            )
            self.known[identity.username] = identity
        if rules.at_the_door(self.role_of(identity.username)):
            self.door.knock(identity.username)
        else:
            self.door.leave(identity.username)
        return self.show(identity)

    def require(self, identity: Identity, action: Action) -> Role:
        """Check the caller in and refuse, with a message for them, what the rules forbid them
        on the room's terms now (`access/rules.py`, as `me.can` says)."""
        role = self.check_in(identity)
        if not rules.may(role, action, self.terms()):
            code, message = rules.refusal(role)
            raise NotAllowed(message, code=code)
        return role

    def role_now(self, identity: Identity) -> Role:
        """The role `identity` has now, decided afresh from what it says (the hub's grant),
        without recording a visit: for listing rooms, and for a socket's recheck, whose cookies
        are those of its start (a name changed since would be recorded back)."""
        return self.book.role_for(identity)

    def role_of(self, username: str) -> Role:
        person = self.known.get(username)
        if person is None:
            return self.book.role_of(username, verified=False)
        return self.book.role_for(person)

    def show(self, person: Identity) -> Role:
        role = self.role_of(person.username)
        # An admission card (who may admit them) while they knock: not once they went away.
        at_the_door = rules.at_the_door(role) and person.username in self.door
        # Why they wait, when the room knows (no Copilot seat): on the hosts' card.
        note = self.book.door_note(person.username) if at_the_door else None
        self.document.put_participant(
            person.username,
            (() if at_the_door else ("answerers",)) + (() if note else ("door_note",)),
            display_name=person.display_name,
            role=role.value,
            verified=person.verified,
            avatar_url=person.avatar_url,
            color=person.color,
            online=at_the_door or person.username in self.online(),
            **({"answerers": rules.admission_answerers()} if at_the_door else {}),
            **({"door_note": note} if note else {}),
        )
        return role

    def show_everyone(self) -> None:
        for person in self.known.values():
            self.show(person)

    def presence_changed(self, username: str) -> None:
        if username in self.known:
            self.show(self.known[username])

    @staticmethod
    def me(identity: Identity, role: Role, terms: rules.Terms) -> dict:
        """`GET room`'s `me`: who the caller is and what they may do on the room's terms."""
        return {
            "username": identity.username,
            "display_name": identity.display_name,
            "role": role.value,
            "verified": identity.verified,
            "avatar_url": identity.avatar_url,
            "color": identity.color,
            "can": rules.listed(role, terms),
        }

    def connected(self) -> list[dict]:
        """The people in the room with it open now, by their names and roles: not someone at
        the door, nor the server's own token (a kernel, a script), which is no person."""
        participants = self.document.participants.to_py() or {}
        return [
            {
                "username": username,
                "name": (participants.get(username) or {}).get("display_name") or username,
                "role": (participants.get(username) or {}).get("role", ""),
            }
            for username in sorted(self.online())
            if username != SERVER_OWNER.username and rules.admitted(self.role_of(username))
        ]

    def listing(self) -> list[dict]:
        participants = self.document.participants.to_py() or {}
        return [{"username": name, **fields} for name, fields in sorted(participants.items())]

    # -- hosts' decisions ------------------------------------------------------------------------

    def set_role(self, host: Identity, username: str, role: ParticipantRole) -> Role:
        """A host re-roles someone already in the room; it holds even against the hub's grant."""
        current = self._known_target(username)
        if not rules.re_roleable(current):
            raise Conflict(
                f"{self.document.display_name(username)} is {current.value}; admit them first "
                f"(POST admissions/{username}).",
                code="not_a_participant",
            )
        self.book.ensure_decidable(username, Decision(role), self.document.display_name)
        self.recorder.commit(
            "role.changed", host.username, RoleChanged(username=username, role=role)
        )
        return self._decide(username, Decision(role), over_hub=True)

    def remove(self, host: Identity, username: str) -> Role:
        self._known_target(username)
        self.recorder.commit("person.removed", host.username, PersonRef(username=username))
        return self._decide(username, Decision.REJECT)

    def admit(self, host: Identity, username: str, decision: AdmissionChoice) -> Role:
        self.book.ensure_decidable(username, Decision(decision), self.document.display_name)
        self.recorder.commit(
            "admission.decided",
            host.username,
            AdmissionDecided(username=username, decision=decision),
        )
        return self._decide(username, Decision(decision))

    def claim_host(self, identity: Identity, claim: HostClaim | None, secret: str) -> None:
        """The one-time secret makes its bearer the host; the refusals say what to do next."""
        if identity == SERVER_OWNER:  # a script or a kernel with the token: no person
            raise NotAllowed(
                "The host secret makes the person who opens it in a browser the host; a request "
                "with only the server's token (a script, a kernel) cannot spend it.",
                code="claim_needs_a_person",
            )
        if claim is None or claim.secret is None:
            raise Conflict(
                "This room already has a host, so there is nothing to claim (the host secret "
                "works once). The room panel shows you waiting at its door until a host lets "
                "you in; ask them to.",
                code="already_claimed",
            )
        if not claim.matches(secret):
            raise NotAllowed(
                "That is not this server's host secret. Copy it again from the page the "
                "server's log names when it starts (copilot-room-…-claim.html), or ask whoever "
                "started the server to let you in.",
                code="invalid_claim",
            )
        self.check_in(identity)
        self.recorder.commit(
            "host.claimed", identity.username, PersonRef(username=identity.username)
        )
        claim.redeem(secret)
        self.book.claim_host(identity.username)
        self.save_decisions()
        self.show(identity)

    def apply_policies(self, settings: RoomSettings) -> None:
        """The admission policies changed: everyone's role may have too."""
        self.book.policy = Policy(settings.admission)
        self.book.guest_policy = Policy(settings.guest_admission)
        self.show_everyone()

    def _known_target(self, username: str) -> Role:
        self.book.ensure_decidable(username, name=self.document.display_name)
        if username not in self.known:
            raise NotFound(f"{username} has never been in this room.", code="unknown_person")
        return self.role_of(username)

    def save_decisions(self) -> None:
        """Cache the decisions (rebuilt from the transcript at every start)."""
        save_decisions(self.decisions_file, self.book)

    def _decide(self, username: str, decision: Decision, *, over_hub: bool = False) -> Role:
        """Apply and store a recorded decision; show and return the role now in effect."""
        self.book.decide(username, decision, over_hub=over_hub)
        self.save_decisions()
        if username in self.known:
            return self.show(self.known[username])
        return self.role_of(username)
