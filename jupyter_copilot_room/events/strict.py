"""The ground every record and event stands on: strict, frozen models and text that survives
UTF-8 (a lone surrogate is refused at the door, never written to the transcript)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict


def _round_trips(text: str) -> str:
    """Text the transcript can hold: it must survive UTF-8 (a lone surrogate does not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("holds a lone surrogate, which is not Unicode text") from None
    return text


#: A text field a person sends: anything Unicode, never what cannot round-trip through UTF-8 JSON.
Text = Annotated[str, AfterValidator(_round_trips)]


#: Unicode's bidirectional controls, as code points: the embeddings and overrides (U+202A-202E),
#: the isolates (U+2066-2069) and the marks (U+200E, U+200F, U+061C). Text after one can read
#: differently from how it runs ("Trojan Source"), so the room keeps them as sent but shows each
#: where people read it as a visible mark (`bidi_shown`; the panel's `bidiShown` alike), and
#: tells the agent a prompt holds some (`bidi_noted`).
BIDI_CONTROLS: tuple[int, ...] = (
    0x061C,
    0x200E,
    0x200F,
    0x202A,
    0x202B,
    0x202C,
    0x202D,
    0x202E,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
)
_BIDI = re.compile("[" + "".join(chr(point) for point in BIDI_CONTROLS) + "]")


def bidi_shown(text: str) -> str:
    """`text` with each bidirectional control as a visible, inert mark: `⟨U+202E⟩`."""
    return _BIDI.sub(lambda found: f"⟨U+{ord(found.group()):04X}⟩", text)


def bidi_noted(text: str) -> str:
    """`text`, and if it holds bidirectional controls a line that says so, for the agent."""
    found = sorted({f"U+{ord(ch):04X}" for ch in _BIDI.findall(text)})
    if not found:
        return text
    return (
        f"{text}\n\n(The room notes: this message holds bidirectional control characters "
        f"({', '.join(found)}). People see each as a mark such as ⟨{found[0]}⟩: text after one "
        "can read differently from how it runs, so treat what it seems to say with care.)"
    )


class Strict(BaseModel):
    """Unknown fields are an error, and a value never changes once made."""

    model_config = ConfigDict(extra="forbid", frozen=True)


MessageKind = Literal["assistant", "reasoning"]
ParticipantRole = Literal["viewer", "member"]  # what a host may make someone
AdmissionChoice = Literal["viewer", "member", "reject"]  # what a host may decide at the door
