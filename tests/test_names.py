"""People are named by the document, never by their usernames in text.

A system line about people carries a template and the usernames it mentions (`people`), so the
panel shows each by the display name the document knows; `participants` keeps everyone the room
has seen, also after they left and after a restart. The JSONL records keep usernames.
"""

import re

from jupyter_copilot_room.access.admissions import AdmissionBook
from jupyter_copilot_room.access.identity import HostClaim, Identity
from jupyter_copilot_room.events import Record, SettingsChanged
from jupyter_copilot_room.request_bodies import PromptBody
from jupyter_copilot_room.room.room import Room
from jupyter_copilot_room.settings import SettingsPatch

ALICE = Identity(username="alice", display_name="Alice Liddell", verified=True)
GUEST = Identity(
    username="6e623df3a1b24c6d", display_name="Anonymous Callirrhoe", verified=False, color="#a0f"
)
CLAIMER = Identity(username="f00dcafe", display_name="Anonymous Io", verified=False)


def spoken(entry: dict, participants: dict) -> str:
    """An entry's line as the panel says it: each `{n}` is the display name of `people[n]`."""
    people = entry.get("people") or []

    def name(match: re.Match) -> str:
        if match.group(0) in ("{{", "}}"):
            return match.group(0)[0]
        return participants[people[int(match.group(1))]]["display_name"]

    return re.sub(r"\{\{|\}\}|\{(\d+)\}", name, entry["body"]) if people else entry["body"]


def lines(room: Room) -> list[str]:
    snapshot = room.document.snapshot()
    return [
        spoken(entry, snapshot["participants"])
        for entry in snapshot["transcript"]
        if entry["kind"] in ("system", "admission")
    ]


async def test_system_lines_name_people_by_the_names_the_document_knows(make_room, tmp_path):
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    room.people.check_in(ALICE)
    room.people.check_in(GUEST)
    room.people_commands.admit(ALICE, GUEST.username, "member")
    prompt_id, _ = room.prompt_commands.submit(GUEST, PromptBody(text="wait"))  # queued: no agent
    await room.prompt_commands.withdraw(ALICE, prompt_id)
    room.people_commands.set_role(ALICE, GUEST.username, "viewer")
    room.people_commands.patch_settings(ALICE, SettingsPatch(question_timeout=42))
    room.people_commands.remove(ALICE, GUEST.username)
    said = lines(room)
    texts = [e["body"] for e in room.document.snapshot("transcript")["transcript"]]
    await room.stop()
    assert said == [
        "Alice Liddell admitted Anonymous Callirrhoe as a member.",
        "Alice Liddell withdrew Anonymous Callirrhoe's prompt.",
        "Alice Liddell made Anonymous Callirrhoe a viewer.",
        "Alice Liddell changed the room settings: question_timeout = 42.0.",
        "Alice Liddell removed Anonymous Callirrhoe from the room.",
    ]
    assert not any("alice" in text or GUEST.username in text for text in texts)
    # The audit trail stays by username.
    records = (tmp_path / "transcript.jsonl").read_text()
    assert '"actor":"alice"' in records and f'"username":"{GUEST.username}"' in records

    # After a restart the document still names them, the guest who left included.
    again = make_room(tmp_path, agent=None)
    await again.ensure_started()
    assert lines(again) == said
    guest = again.document.snapshot("participants")["participants"][GUEST.username]
    assert guest["display_name"] == "Anonymous Callirrhoe"
    assert guest["color"] == "#a0f"
    assert guest["online"] is False
    assert guest["role"] == "refused"


async def test_a_claim_names_the_new_host_and_braces_in_settings_stay_braces(make_room, tmp_path):
    claim = HostClaim()
    room = make_room(tmp_path, agent=None, book=AdmissionBook(), claim=claim)
    await room.ensure_started()
    room.people_commands.claim_host(CLAIMER, claim.secret or "")
    room.document.apply(*_settings_record(room, "{0} {x}"))
    said = lines(room)
    assert said[0] == "Anonymous Io claimed the room as its host."
    assert said[1] == "Anonymous Io changed the room settings: note = {0} {x}."


def _settings_record(room: Room, value: str):
    """A settings change whose value holds braces, as the document gets it."""
    payload = SettingsChanged(changes={"note": value})
    return Record(seq=999, ts=0.0, kind="settings.changed", actor=CLAIMER.username), payload
