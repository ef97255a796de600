"""What the room's own records show in the document: people's arrivals and decisions, settings,
chat and steering, the model and the Copilot sign-in, reverts, rooms created.

A line about people never holds a username in its text (`RoomDocument.say`): a template and the
usernames it names, shown by their display names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .... import events as ev
from ....access.approval_policy import describe_policy
from ....events import Record
from .registry import handles

if TYPE_CHECKING:
    from ..document import RoomDocument


@handles("abort")
def abort(doc: RoomDocument, record: Record, p: ev.PromptRef) -> None:
    doc.say(record, "{0} aborted the running turn.", record.actor)


@handles("person.seen")
def person_seen(doc: RoomDocument, record: Record, p: ev.PersonSeen) -> None:
    """People are kept in `participants`, which the room writes with their live role."""


@handles("admission.decided")
def admission_decided(doc: RoomDocument, record: Record, p: ev.AdmissionDecided) -> None:
    said = {
        "member": "{0} admitted {1} as a member.",
        "viewer": "{0} admitted {1} as a viewer.",
        "reject": "{0} turned {1} away.",
    }[p.decision]
    doc.add_entry(
        record,
        f"r{record.seq}",
        "admission",
        record.actor,
        body=said,
        people=[record.actor, p.username],
        username=p.username,
        decision=p.decision,
    )


@handles("role.changed")
def role_changed(doc: RoomDocument, record: Record, p: ev.RoleChanged) -> None:
    doc.say(record, "{0} made {1} a " + p.role + ".", record.actor, p.username)


@handles("person.removed")
def person_removed(doc: RoomDocument, record: Record, p: ev.PersonRef) -> None:
    doc.say(record, "{0} removed {1} from the room.", record.actor, p.username)


@handles("host.claimed")
def host_claimed(doc: RoomDocument, record: Record, p: ev.PersonRef) -> None:
    doc.say(record, "{0} claimed the room as its host.", p.username)


@handles("settings.changed")
def settings_changed(doc: RoomDocument, record: Record, p: ev.SettingsChanged) -> None:
    changed = ev.literal(
        ", ".join(f"{k} = {_described(k, v, p)}" for k, v in sorted(p.changes.items()))
    )
    doc.say(record, "{0} changed the room settings: " + changed + ".", record.actor)


def _described(key: str, value: object, p: ev.SettingsChanged) -> object:
    """A setting's new value as people read it: a policy in words, an agent by its title."""
    if key == "approval_policy":
        return describe_policy(value)
    if key == "agent" and p.agent_title:
        return p.agent_title
    return value


@handles("system")
def system(doc: RoomDocument, record: Record, p: ev.SystemNote) -> None:
    if p.people:
        doc.say(record, p.text, *p.people)
    else:
        doc.system(record, p.text)


@handles("chat.message")
def chat_message(doc: RoomDocument, record: Record, p: ev.ChatMessage) -> None:
    doc.add_entry(record, p.id, "chat", record.actor, body=p.text)


@handles("prompt.steered")
def prompt_steered(doc: RoomDocument, record: Record, p: ev.Steering) -> None:
    doc.add_entry(record, p.id, "steering", record.actor, body=p.text, prompt_id=p.prompt_id)


@handles("model.changed")
def model_changed(doc: RoomDocument, record: Record, p: ev.ModelChanged) -> None:
    doc.meta["model"] = p.model
    doc.say(record, "{0} switched the model to " + ev.literal(p.model) + ".", record.actor)


@handles("copilot.signed_in")
def copilot_signed_in(doc: RoomDocument, record: Record, p: ev.CopilotSeat) -> None:
    doc.meta["copilot_seat"] = p.login  # "" when the runtime did not say whose login
    doc.say(record, "{0} signed the room in to GitHub Copilot.", record.actor)


@handles("copilot.signed_out")
def copilot_signed_out(doc: RoomDocument, record: Record, p: ev.CopilotSeat) -> None:
    doc.meta["copilot_seat"] = None
    doc.say(record, "{0} signed the room out of GitHub Copilot.", record.actor)


@handles("room.created")
def room_created(doc: RoomDocument, record: Record, p: ev.RoomCreated) -> None:
    folder = ev.literal(p.repository or "the server's root")
    doc.say(
        record,
        "{0} created the room " + ev.literal(p.name) + " for " + folder + ".",
        record.actor,
    )
