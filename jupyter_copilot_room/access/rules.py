"""What a person may do in a room, decided in one place, on the server.

The role table (`roles.py`) says what each role grants. This module adds what the room's settings
and state decide: a viewer's chat, an author's revert, the host claim while the room has no host,
and who a card waits on. Its answers are shipped as data, `GET room`'s `me.can` and each card's
`answerers` in the document (the document is shared, so a card names users and roles, never
"you"), and the panel and the widget (which shows the panel's cards) read them instead of
re-deriving the rules; the kernel API only relays answers, which the server checks here. A
change of who may answer a card is a change here and in this module's tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .roles import ADMITTED, ROLE_ACTIONS, Action, Role

#: The roles that answer any card (`answer_any`) and that admit people (`manage_people`).
ANSWERING_ROLES = tuple(role.value for role in Role if Action.ANSWER_ANY in ROLE_ACTIONS[role])
ADMITTING_ROLES = tuple(role.value for role in Role if Action.MANAGE_PEOPLE in ROLE_ACTIONS[role])


@dataclass(frozen=True)
class Terms:
    """What of the room's settings and state the rules depend on."""

    viewers_can_chat: bool = False
    authors_can_revert: bool = False
    claimable: bool = False  # no host yet: whoever started the server may claim the room


def actions(role: Role, terms: Terms) -> frozenset[Action]:
    """Everything `role` may do in a room on these terms."""
    granted = set(ROLE_ACTIONS[role])
    if role is Role.VIEWER and terms.viewers_can_chat:
        granted.add(Action.CHAT)
    if not terms.authors_can_revert:
        granted.discard(Action.REVERT_OWN)
    if terms.claimable:
        granted.add(Action.CLAIM_HOST)
    return frozenset(granted)


def listed(role: Role, terms: Terms) -> list[str]:
    """`me.can`: the actions in the role table's order."""
    granted = actions(role, terms)
    return [action.value for action in Action if action in granted]


def may(role: Role, action: Action, terms: Terms) -> bool:
    return action in actions(role, terms)


def _own_or_any(
    role: Role, terms: Terms, own: Action, any_: Action, username: str, author: str | None
) -> bool:
    granted = actions(role, terms)
    return any_ in granted or (own in granted and author is not None and username == author)


def may_revert(role: Role, username: str, author: str | None, terms: Terms) -> bool:
    """A turn's checkpoint: hosts any, its author while `authors_can_revert` is on."""
    return _own_or_any(role, terms, Action.REVERT_OWN, Action.REVERT_ANY, username, author)


def may_steer(role: Role, username: str, author: str) -> bool:
    return _own_or_any(role, Terms(), Action.STEER_OWN, Action.STEER_ANY, username, author)


def may_withdraw(role: Role, username: str, author: str, terms: Terms) -> bool:
    """A waiting prompt: its author, and hosts any (the queue says whether it still waits)."""
    return _own_or_any(role, terms, Action.WITHDRAW_OWN, Action.WITHDRAW_ANY, username, author)


def may_revert_anyway(role: Role, terms: Terms) -> bool:
    """ "Revert anyway": a revert over cells people edited since, which loses what they typed."""
    return may(role, Action.REVERT_ANYWAY, terms)


# -- who is in -------------------------------------------------------------------------------------


def admitted(role: Role) -> bool:
    """In the room: a host, a member or a viewer (not at the door, not refused)."""
    return role in ADMITTED


def at_the_door(role: Role) -> bool:
    """Waiting for a host to let them in."""
    return role is Role.PENDING


#: The roles a host may give, and whom they may give them: someone already admitted below host.
RE_ROLEABLE = (Role.MEMBER, Role.VIEWER)


def re_roleable(role: Role) -> bool:
    """Whom a host may make a member or a viewer."""
    return role in RE_ROLEABLE


#: What a refusal says to each role: its code and its words.
_REFUSALS = {
    Role.PENDING: ("not_admitted", "You are waiting for a host to let you into the room."),
    Role.REFUSED: ("refused", "You are not admitted to this room; ask a host to let you in."),
    Role.VIEWER: ("forbidden", "Viewers can watch the room but not act in it."),
    Role.MEMBER: ("forbidden", "Only a host can do that."),
}


def refusal(role: Role) -> tuple[str, str]:
    """The code and the words that refuse `role` an action it may not take."""
    return _REFUSALS.get(role, ("forbidden", "Not allowed."))


def may_create_room(role_in_main: Role, username: str, creators: frozenset[str]) -> bool:
    """A new room: the server's hosts (main's) and the people `room_creators` names."""
    return role_in_main is Role.HOST or username in creators


#: The roles on a repository (GitHub's `role_name`) whose holders may give a room on one of its
#: pull requests a task or answer its cards: those who may push to it.
REPOSITORY_ACTORS = frozenset({"admin", "maintain", "write"})


def may_act_on_repository(permission: str) -> bool:
    """Whether someone with `permission` on a repository (`admin`, `maintain`, `write`,
    `triage`, `read`, `none`, as GitHub says it) may act on the room from its pull request,
    as the room username they are mapped to; the room's own rules then decide the rest."""
    return permission in REPOSITORY_ACTORS


# -- side threads ----------------------------------------------------------------------------------


def thread_role(role_in_room: Role, added: bool) -> Role:
    """The role someone has in a side thread: the room's hosts host it; its owner and the
    people they added (`added`) are its members while they are members of the room; everyone
    else is refused, whatever the room's admission policy."""
    if role_in_room is Role.HOST:
        return Role.HOST
    if role_in_room is Role.MEMBER and added:
        return Role.MEMBER
    return Role.REFUSED


def thread_access(owner: str, added: Sequence[str]) -> dict[str, Any]:
    """Who uses a side thread (`use`) and who manages it (`manage`), as data the panel reads from
    `meta.threads` (as a card's `answerers`: users and roles, never "you"). A user named there
    uses it while they may submit in the room; the roles named do so whatever the names."""
    return {
        "use": {"users": [owner, *added], "roles": [Role.HOST.value]},
        "manage": {"users": [owner], "roles": [Role.HOST.value]},
    }


def may_manage_thread(role_in_room: Role, username: str, owner: str) -> bool:
    """Add people to a thread, bring it back, close it: its owner and the room's hosts."""
    return username == owner or may(role_in_room, Action.MANAGE_PEOPLE, Terms())


def may_join_thread(role_in_room: Role) -> bool:
    """Whom a thread's owner may add: the room's members and hosts."""
    return may(role_in_room, Action.SUBMIT, Terms())


# -- who may answer a card ------------------------------------------------------------------------


#: The card that brings a side thread's changes into everyone's files.
PROMOTE = "promote"


def request_answerers(
    author: str,
    approvers_needed: int = 1,
    approvals: Sequence[str] = (),
    *,
    open_: bool = True,
    kind: str = "",
) -> dict[str, Any]:
    """A permission request's, question's or execute card's `answerers`: its prompt's author and
    the roles that answer any card; `approved` those who approved already (a card that needs two
    approvers then waits only on the others) and `needed` the approvals still missing. A settled
    card waits on nobody. A promote card brings one person's private line of work into
    everyone's files, so someone other than its owner decides: the hosts only (its owner only
    as a host), and two people other than its owner when it needs two (`excluded`)."""
    needed = max(0, approvers_needed - len(set(approvals)))
    if not open_:
        return {"users": [], "roles": [], "needed": 0, "approved": list(approvals)}
    if kind == PROMOTE:
        excluded = [author] if approvers_needed > 1 else []
        return {
            "users": [],
            "roles": list(ANSWERING_ROLES),
            "needed": needed,
            "approved": list(approvals),
            **({"excluded": excluded} if excluded else {}),
        }
    return {
        "users": [author],
        "roles": list(ANSWERING_ROLES),
        "needed": needed,
        "approved": list(approvals),
    }


def admission_answerers() -> dict[str, Any]:
    """A person at the door (an admission card): the roles that admit people."""
    return {"users": [], "roles": list(ADMITTING_ROLES), "needed": 1, "approved": []}


def may_answer(answerers: Mapping[str, Any], username: str, role: Role) -> bool:
    """Whether `username` (with `role` now) may answer the card at all: a role it names, or a
    user it names who may still answer their own cards (a member, not one demoted since); never
    someone the card excludes (a side thread's owner on its promote card of two)."""
    if username in answerers.get("excluded", ()):
        return False
    if role.value in answerers.get("roles", ()):
        return True
    return username in answerers.get("users", ()) and Action.ANSWER_OWN in ROLE_ACTIONS[role]


def may_approve(answerers: Mapping[str, Any], username: str, role: Role) -> bool:
    """Whether `username` may approve the card: they may answer it and have not approved it yet
    (a card that needs two approvers takes one approval per person)."""
    return may_answer(answerers, username, role) and username not in answerers.get("approved", ())


def waits_on(answerers: Mapping[str, Any], username: str, role: Role) -> bool:
    """Whether the card waits on `username` (their sidebar tab and the room list count it): the
    users it names who have not approved yet, and, once none is left (a card nobody is named on:
    someone at the door; a two-approver card its author approved), the roles it names. A host
    may answer a member's card, but it waits on the member."""
    if not may_approve(answerers, username, role):
        return False
    approved = answerers.get("approved", ())
    named = [user for user in answerers.get("users", ()) if user not in approved]
    return username in named if named else role.value in answerers.get("roles", ())


def who_approves(answerers: Mapping[str, Any], needed: int) -> str:
    """Who approves a card of `needed` approvals, in words, from what its `answerers` name: its
    author and the hosts, or (a side thread brought back) hosts only (the panel's
    `whoApproves`)."""
    if answerers.get("users"):
        return "the author and a host, or two hosts" if needed > 1 else "the author or a host"
    return "two hosts" if needed > 1 else "a host"


def still_may(answerers: Mapping[str, Any]) -> str:
    """Who may still give a two-approver card's missing approval, in words (the panel's
    `stillMayApprove` says the same)."""
    users, approved = answerers.get("users", ()), answerers.get("approved", ())
    return "a host" if all(user in approved for user in users) else "the author or another host"


def who_answers(
    answerers: Mapping[str, Any],
    name: Callable[[str], str] = str,
    asker: str = " (who asked for this turn)",
) -> str:
    """Who may still answer a card, in words, for the refusal of someone else: the users it
    names who have not approved yet (`name`d, with `asker` after), and a host other than those
    the card excludes or who approved already."""
    approved = list(answerers.get("approved", ()))
    users = [name(user) + asker for user in answerers.get("users", ()) if user not in approved]
    if answerers.get("roles"):
        others = [name(user) for user in dict.fromkeys([*answerers.get("excluded", ()), *approved])]
        users.append(f"a host other than {' and '.join(others)}" if others else "a host")
    return " or ".join(users) or "no one"


def waiting_on(cards: Iterable[Mapping[str, Any]], username: str, role: Role) -> int:
    """How many of the document's cards (each a Map with `answerers`) wait on `username`."""
    return sum(1 for card in cards if waits_on(card.get("answerers") or {}, username, role))
