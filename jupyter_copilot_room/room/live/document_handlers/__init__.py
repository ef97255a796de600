"""How each record kind shows in the room's document: the handlers, by concern, and their check.

`turn_records.py` holds what a turn's records show (prompts, replies, tools, requests, usage),
`room_life.py` the rest (people, settings, the room's own lines). Importing this package fails
when a kind of `events.RECORD_PAYLOADS` has no handler (`registry.mismatch`).
"""

from ....events import RECORD_PAYLOADS
from . import room_life, turn_records
from .registry import HANDLERS, mismatch

if (_problem := mismatch(HANDLERS, RECORD_PAYLOADS)) is not None:
    raise RuntimeError(f"The room's document cannot show every record: {_problem}.")

__all__ = ["HANDLERS", "room_life", "turn_records"]
