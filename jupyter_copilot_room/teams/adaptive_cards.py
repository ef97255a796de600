"""A card as Teams shows it: an Adaptive Card (its title, the summary, a diff or a command in a
monospace block) with Approve / Reject (or a question's choices) as `Action.Submit` buttons,
whose data names the card and the answer; once answered, one line saying by whom."""

from __future__ import annotations

from ..bridges.chat_service import CardView

CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
#: Teams renders Adaptive Cards up to schema 1.5, in a message of about 28 KB.
VERSION = "1.5"
SUMMARY = 3000  # characters of a card's summary (the room cut a diff to 20 lines before)


def card_attachment(card: CardView) -> dict:
    """The activity's attachment that shows `card`."""
    return {"contentType": CONTENT_TYPE, "content": _card(card)}


def _card(card: CardView) -> dict:
    body: list[dict]
    if card.settled is not None:
        body = [_text(card.settled, weight="Bolder")]
    else:
        body = [_text(card.title, weight="Bolder")]
        if card.summary:
            summary = card.summary[:SUMMARY]
            body.append(_text(summary, **({"fontType": "Monospace"} if card.code else {})))
    content: dict = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": VERSION,
        "body": body,
    }
    if card.settled is None and card.choices:
        content["actions"] = [
            {
                "type": "Action.Submit",
                "title": label,
                "data": {"card": card.card_id, "answer": value},
                **_style(value),
            }
            for label, value in card.choices
        ]
    return content


def _text(text: str, **style: str) -> dict:
    return {"type": "TextBlock", "text": text, "wrap": True, **style}


def _style(value: str) -> dict:
    if value == "approve":
        return {"style": "positive"}
    return {"style": "destructive"} if value == "reject" else {}


def clicked(value: object) -> tuple[str, str] | None:
    """The card and the answer an `Action.Submit`'s data names, or None for data not ours."""
    if isinstance(value, dict) and isinstance(value.get("card"), str):
        answer = value.get("answer")
        return (value["card"], answer) if isinstance(answer, str) else None
    return None
