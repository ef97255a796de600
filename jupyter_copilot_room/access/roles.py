"""The role table (README.md, "Roles and admission"), in one place.

Every action a person may be given is listed here; what a role grants is the table below, and
what the room's settings and state add or take away (a viewer's chat, an author's revert, a host
claim) is `access/rules.py`, which `GET room`'s `me.can` comes from, so no client re-implements
these rules.
"""

from enum import StrEnum


class Role(StrEnum):
    HOST = "host"
    MEMBER = "member"
    VIEWER = "viewer"
    PENDING = "pending"
    REFUSED = "refused"


class Action(StrEnum):
    WATCH = "watch"
    SUBMIT = "submit"
    WITHDRAW_OWN = "withdraw_own"
    WITHDRAW_ANY = "withdraw_any"
    ANSWER_OWN = "answer_own"
    ANSWER_ANY = "answer_any"
    ABORT = "abort"
    MANAGE_PEOPLE = "manage_people"
    EDIT_SETTINGS = "edit_settings"
    READ_TRANSCRIPT = "read_transcript"
    START_AGENT = "start_agent"  # retry starting an agent that could not start
    CHAT = "chat"  # say something to the room (viewers too when `viewers_can_chat` is on)
    STEER_OWN = "steer_own"  # send a steering message into one's own running turn
    STEER_ANY = "steer_any"  # ... into anyone's running turn
    CHOOSE_MODEL = "choose_model"  # switch the model that answers the next turns
    SIGN_IN = "sign_in"  # sign the room's runtime in to (or out of) GitHub Copilot
    REVERT_ANY = "revert_any"  # revert any turn's checkpoint
    REVERT_OWN = "revert_own"  # ... one's own turns, while `authors_can_revert` is on
    REVERT_ANYWAY = "revert_anyway"  # ... over cells people edited since (what they typed goes)
    CLAIM_HOST = "claim_host"  # the room has no host yet: claim it with the server's secret


_VIEWER = {Action.WATCH}
_MEMBER = _VIEWER | {
    Action.SUBMIT,
    Action.WITHDRAW_OWN,
    Action.ANSWER_OWN,
    Action.READ_TRANSCRIPT,
    Action.CHAT,
    Action.STEER_OWN,
    Action.REVERT_OWN,
}
_HOST = _MEMBER | {
    Action.WITHDRAW_ANY,
    Action.ANSWER_ANY,
    Action.ABORT,
    Action.MANAGE_PEOPLE,
    Action.EDIT_SETTINGS,
    Action.START_AGENT,
    Action.STEER_ANY,
    Action.CHOOSE_MODEL,
    Action.SIGN_IN,
    Action.REVERT_ANY,
    Action.REVERT_ANYWAY,
}

ROLE_ACTIONS: dict[Role, frozenset[Action]] = {
    Role.HOST: frozenset(_HOST),
    Role.MEMBER: frozenset(_MEMBER),
    Role.VIEWER: frozenset(_VIEWER),
    Role.PENDING: frozenset(),
    Role.REFUSED: frozenset(),
}

ADMITTED = frozenset({Role.HOST, Role.MEMBER, Role.VIEWER})


def can(role: Role, action: Action) -> bool:
    return action in ROLE_ACTIONS[role]
