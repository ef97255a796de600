"""Every limit Teams publishes for what a bot posts, in one place, so the cards, the messages and
the fake Teams (`tests/harness/fake_teams.py`) agree on them.

- A bot message's whole payload, encoded as UTF-16, was documented at 40 KB (the connector
  answers 413 `MessageSizeTooBig` beyond); Microsoft's newer page raises it to about 100 KB and
  advises staying under 80 KB. The room keeps to the older, stricter one.
- Adaptive Cards: Teams renders schema 1.5 (mobile clients less). Microsoft's renderer
  (npm `adaptivecards`) allows 5 actions in one card by its default HostConfig
  (`actions.maxActions`): a sixth is refused by its validation and dropped when rendered.
"""

from __future__ import annotations

import json

CARD_VERSION = "1.5"
MAX_ACTIONS = 5
MESSAGE_BYTES = 40 * 1024
#: What a message's text may take of MESSAGE_BYTES: the rest is the activity around it.
TEXT_BYTES = MESSAGE_BYTES - 4 * 1024
#: The characters of one message before the bridge splits it (each can grow when escaped; the
#: service cuts what still passes TEXT_BYTES).
MAX_TEXT = 7000
#: What a card may take of MESSAGE_BYTES (the activity's text goes beside it).
CARD_BYTES = MESSAGE_BYTES - 4 * 1024
#: Characters of a card's summary, and its lines (each line is a TextBlock).
SUMMARY = 3000
SUMMARY_LINES = 40
#: Characters of a button's or a choice's title, tried in turn until the card fits CARD_BYTES.
LABELS = (500, 100, 40)


def size(payload: object) -> int:
    """A payload's size as Teams counts it: its JSON encoded as UTF-16, in bytes."""
    return utf16(json.dumps(payload, ensure_ascii=False))


def utf16(text: str) -> int:
    """`text`'s length in UTF-16 bytes."""
    return len(text.encode("utf-16-le"))
