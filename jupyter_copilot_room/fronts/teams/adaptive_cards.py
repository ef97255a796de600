"""A card as Teams shows it: an Adaptive Card (its title, the summary, a diff or a command in
monospace lines) with Approve / Reject (or a question's choices) as `Action.Submit` buttons,
whose data names the card and the answer; once answered, one line saying by whom. Every text
goes through `plain_text`, every limit comes from `limits`.

A question with more choices than a card may hold buttons (`limits.MAX_ACTIONS`) offers them in
a drop-down (`Input.ChoiceSet`, its value a choice's index) with one Answer button: Teams sends
the button's data merged with the inputs by id, so a click's value names the card and the
answer either way."""

from __future__ import annotations

from ..chat.chat_service import CardView
from . import limits, plain_text

CONTENT_TYPE = "application/vnd.microsoft.card.adaptive"
ANSWER = "answer"  # the data's key for the answer, and the drop-down's id


def card_attachment(card: CardView) -> dict:
    """The activity's attachment that shows `card`, within what a message may hold: long
    choices are cut shorter, then the choices past those that fit are left to a reply in the
    thread (the room takes any choice as a reply)."""
    for label in limits.LABELS:
        content = _card(card, label)
        if limits.size(content) <= limits.CARD_BYTES:
            break
    shown = len(card.choices)
    while limits.size(content) > limits.CARD_BYTES and shown > 1:
        shown //= 2
        content = _card(card, limits.LABELS[-1], shown)
    return {"contentType": CONTENT_TYPE, "content": content}


def _card(card: CardView, label: int = limits.LABELS[0], shown: int | None = None) -> dict:
    """`card` with choices cut to `label` characters, the first `shown` of them."""
    if card.settled is not None:
        body = _texts(card.settled, weight="Bolder")
    else:
        body = _texts(card.title, weight="Bolder")
        if card.summary:
            body += _texts(_cut(card.summary), **({"fontType": "Monospace"} if card.code else {}))
    content: dict = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": limits.CARD_VERSION,
        "body": body,
    }
    if card.settled is None and card.choices:
        choices = tuple((_label(text, label), value) for text, value in card.choices[:shown])
        if len(card.choices) <= limits.MAX_ACTIONS:
            content["actions"] = [_button(card.card_id, text, value) for text, value in choices]
        else:
            body.append(_drop_down(choices))
            if len(choices) < len(card.choices):
                more = f"{len(card.choices) - len(choices)} more choices: reply in the thread."
                body += _texts(more)
            content["actions"] = [
                {"type": "Action.Submit", "title": "Answer", "data": {"card": card.card_id}}
            ]
    return content


def _texts(text: str, **style: str) -> list[dict]:
    """One TextBlock per line: Markdown would join the lines of one."""
    return [
        {"type": "TextBlock", "text": line, "wrap": True, **style}
        for line in plain_text.card_lines(text)
    ]


def _cut(summary: str) -> str:
    lines = summary[: limits.SUMMARY].split("\n")
    if len(lines) <= limits.SUMMARY_LINES:
        return "\n".join(lines)
    more = len(lines) - limits.SUMMARY_LINES
    return "\n".join([*lines[: limits.SUMMARY_LINES], f"… {more} more lines in the room"])


def _button(card_id: str, label: str, value: str) -> dict:
    data = {"card": card_id, ANSWER: value}
    button: dict = {"type": "Action.Submit", "title": label, "data": data}
    if value in ("approve", "reject"):
        button["style"] = "positive" if value == "approve" else "destructive"
    return button


def _drop_down(choices: tuple[tuple[str, str], ...]) -> dict:
    return {
        "type": "Input.ChoiceSet",
        "id": ANSWER,
        "style": "compact",
        "label": "Your answer",
        "placeholder": "Choose one",
        "isRequired": True,
        "errorMessage": "Choose one of the answers first.",
        "choices": [{"title": label, "value": value} for label, value in choices],
    }


def _label(label: str, most: int) -> str:
    """A button's or a choice's title: Teams shows it as given (no Markdown), never empty."""
    label = plain_text.clean(label).strip() or "(empty)"
    return label if len(label) <= most else label[: most - 1] + "…"


def clicked(value: object) -> tuple[str, str] | None:
    """The card and the answer an `Action.Submit`'s data (with the card's inputs) names, or
    None for data not ours. A drop-down left empty names no answer: ""."""
    if isinstance(value, dict) and isinstance(value.get("card"), str):
        answer = value.get(ANSWER, "")
        return (value["card"], answer) if isinstance(answer, str) else None
    return None
