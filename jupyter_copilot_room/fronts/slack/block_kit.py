"""A card as Slack shows it: Block Kit sections and Approve / Reject buttons, or a question's
choices as buttons or a menu, each carrying the card and the answer's index; every text through
the neutralizer (`mrkdwn.py`) and cut to Slack's limits, which are all here, so Slack never
refuses a card (`invalid_blocks`) for the length or the number of what it asks."""

from __future__ import annotations

import json

from ..chat.chat_service import CardView
from .mrkdwn import code_block, escaped, fitted, mrkdwn

# Slack's published limits (Block Kit reference, and the Web API's chat.postMessage page); the
# SDK's models (`slack_sdk.models.blocks`) check the same numbers, and so does the fake Slack.
#: chat.postMessage and chat.update, `text`: longer is cut or refused (`msg_too_long`).
MESSAGE_TEXT = 40_000
#: Section block, `text`.
SECTION_TEXT = 3000
#: Actions block, `elements`.
ACTIONS_ELEMENTS = 25
#: Button element, `text` and `value`.
BUTTON_TEXT = 75
BUTTON_VALUE = 2000
#: Select menu element (static_select), `options` and `option_groups`.
SELECT_OPTIONS = 100
SELECT_GROUPS = 100
#: Option object, `text` and `value`.
OPTION_TEXT = 75
OPTION_VALUE = 150
#: Every `block_id` and `action_id`.
ID_LENGTH = 255

#: A question with more choices than this shows them in a menu, not as buttons. Slack would
#: take 25 buttons in a row, but past a handful they wrap into a wall people scan badly, and
#: Teams shows five actions (the Adaptive Cards host's default): a question reads alike in both.
MAX_BUTTONS = 5
_APPROVAL = {"approve": "primary", "reject": "danger"}


def card_blocks(card: CardView) -> list[dict]:
    if card.settled is not None:
        return [_section(fitted(_bold, card.settled, SECTION_TEXT))]
    blocks = [_section(fitted(_bold, card.title, SECTION_TEXT))]
    if card.summary:
        render = code_block if card.code else mrkdwn
        blocks.append(_section(fitted(render, card.summary, SECTION_TEXT)))
    if card.choices:
        block_id = f"card-{card.card_id}"[:ID_LENGTH]
        blocks.append({"type": "actions", "block_id": block_id, "elements": _answers(card)})
    return blocks


def fallback_text(card: CardView) -> str:
    """What a notification and a client without blocks show: the card's title, or who settled it."""
    return fitted(mrkdwn, card.settled or card.title, MESSAGE_TEXT)


def _bold(text: str) -> str:
    return mrkdwn(f"**{text}**")


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _answers(card: CardView) -> list[dict]:
    if len(card.choices) <= min(MAX_BUTTONS, ACTIONS_ELEMENTS):
        return [_button(card.card_id, label, value) for label, value in card.choices]
    options = [_option(card.card_id, label, value) for label, value in card.choices]
    menu: dict = {"type": "static_select", "action_id": "choice"}
    menu["placeholder"] = {"type": "plain_text", "text": "Choose an answer"}
    if len(options) <= SELECT_OPTIONS:
        return [menu | {"options": options}]
    groups = [  # "1-100", "101-200", ...: the rest (past 10,000) are answered in the thread
        {
            "label": {"type": "plain_text", "text": f"{n + 1}-{n + len(chunk)}"},
            "options": chunk,
        }
        for n in range(0, SELECT_OPTIONS * SELECT_GROUPS, SELECT_OPTIONS)
        if (chunk := options[n : n + SELECT_OPTIONS])
    ]
    return [menu | {"option_groups": groups}]


# A button's and an option's text are `plain_text`: Slack reads no mrkdwn there, but they are
# escaped all the same, so no byte the room posts is ever Slack markup.


def _button(card_id: str, label: str, value: str) -> dict:
    button = {
        "type": "button",
        # approve, reject, or a choice's index: unique in the card whatever the labels
        "action_id": value,
        "text": {"type": "plain_text", "text": fitted(escaped, label, BUTTON_TEXT)},
        "value": _value(card_id, value, BUTTON_VALUE),
    }
    if style := _APPROVAL.get(value):
        button["style"] = style
    return button


def _option(card_id: str, label: str, value: str) -> dict:
    text = {"type": "plain_text", "text": fitted(escaped, label, OPTION_TEXT)}
    return {"text": text, "value": _value(card_id, value, OPTION_VALUE)}


def _value(card_id: str, answer: str, limit: int) -> str:
    """The card and the answer a click hands back. Both are the room's own (an id, "approve" or
    an index), so they always fit; cut, they would not be read back, hence the error."""
    value = json.dumps({"card": card_id, "answer": answer})
    if len(value) > limit:
        raise ValueError(f"a card's answer {value!r} is longer than Slack's {limit} characters")
    return value


def clicked(action: dict) -> tuple[str, str] | None:
    """The card and the answer a click names (a button's `value`, a menu's `selected_option`),
    or None for an action not ours."""
    chosen = action.get("selected_option") or {}
    try:
        value = json.loads(action.get("value") or chosen.get("value") or "")
        return str(value["card"]), str(value["answer"])
    except (ValueError, KeyError, TypeError):
        return None
