"""The ground every record and event stands on: strict, frozen models and text that survives
UTF-8 (a lone surrogate is refused at the door, never written to the transcript)."""

from __future__ import annotations

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


class Strict(BaseModel):
    """Unknown fields are an error, and a value never changes once made."""

    model_config = ConfigDict(extra="forbid", frozen=True)


MessageKind = Literal["assistant", "reasoning"]
ParticipantRole = Literal["viewer", "member"]  # what a host may make someone
AdmissionChoice = Literal["viewer", "member", "reject"]  # what a host may decide at the door
