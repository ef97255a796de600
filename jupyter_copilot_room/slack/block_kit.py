"""A card as Slack shows it: Block Kit sections and Approve / Reject (or a question's choices)
buttons, whose value names the card and the answer."""

from __future__ import annotations

import json

from ..bridges.chat_service import CardView

#: The longest text of a section block.
SECTION_TEXT = 3000


def card_blocks(card: CardView) -> list[dict]:
    if card.settled is not None:
        return [_section(f"*{card.settled}*")]
    body = f"```{card.summary}```" if card.code else card.summary
    blocks = [_section(f"*{card.title}*"), _section(body[:SECTION_TEXT])]
    if card.choices:
        blocks.append(
            {
                "type": "actions",
                "block_id": f"card-{card.card_id}"[:255],
                "elements": [_button(card.card_id, label, value) for label, value in card.choices],
            }
        )
    return blocks


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _button(card_id: str, label: str, value: str) -> dict:
    button = {
        "type": "button",
        "action_id": f"{value}"[:255],
        "text": {"type": "plain_text", "text": label[:75]},
        "value": json.dumps({"card": card_id, "answer": value})[:2000],
    }
    if value in ("approve", "reject"):
        button["style"] = "primary" if value == "approve" else "danger"
    return button


def clicked(action: dict) -> tuple[str, str] | None:
    """The card and the answer a button's click names, or None for a button not ours."""
    try:
        value = json.loads(action.get("value") or "")
        return str(value["card"]), str(value["answer"])
    except (ValueError, KeyError, TypeError):
        return None
