"""Bidirectional controls (U+202E and the like) reverse what people read after them: the room
keeps them as sent, shows each as a visible mark where people read (the panel: labextension's
bidi.ts; exports here), and tells the agent a prompt holds some."""

from jupyter_copilot_room.events import bidi_noted, bidi_shown

from .harness import people
from .harness.helpers import eventually, ready

SNEAKY = "approve \u202eelif not admin\u202c please"


def test_each_control_is_a_visible_mark_and_other_scripts_are_untouched():
    assert bidi_shown(SNEAKY) == "approve ⟨U+202E⟩elif not admin⟨U+202C⟩ please"
    assert bidi_shown("שלום café") == "שלום café"
    assert bidi_noted("plain") == "plain"
    noted = bidi_noted(SNEAKY)
    assert noted.startswith(SNEAKY) and "U+202C, U+202E" in noted


async def test_the_transcript_keeps_them_the_export_shows_them_the_agent_is_told(
    api, room, agent, jp_fetch
):
    await ready(api, room)
    assert (await api("bob", "POST", "messages", body={"text": SNEAKY})).code == 201
    assert (await api("bob", "POST", "prompts", body={"text": SNEAKY})).code == 202
    await eventually(lambda: agent.turns, what="the turn")
    assert agent.turns[0].text.startswith(f"{SNEAKY}\n\n(The room notes:")

    jsonl = (await api("bob", "GET", "transcript")).body.decode()
    assert "\\u202e" in jsonl.lower() or "\u202e" in jsonl, "nothing is lost"
    exported = await jp_fetch(
        "copilot-room",
        "api",
        "transcript",
        params={"format": "md"},
        headers=people.authorization("bob"),
    )
    exported = exported.body.decode()
    assert "⟨U+202E⟩elif not admin⟨U+202C⟩" in exported
    assert "\u202e" not in exported
