"""What a card shows and what it keeps back, so that nothing is approved unseen.

A card's summary (a shell command, a path) and each text of its details (a diff, the cells' code,
a tool's arguments) are shown up to `DISPLAY_LIMIT` characters: the document goes to every joiner
and into every snapshot, so it never holds a 5 MB diff. A text cut there is named in the card's
`details.truncated`, `{field: {"shown": n, "total": m}}` (`summary` or a key of `details`), so
the panel says how much is hidden instead of showing a cut text as if it were whole. The whole
texts stay with the open request (`OpenRequests`) for `GET approvals/<id>/details`, and go when it
settles: never in the document or the transcript, and each held only up to `HELD_LIMIT`
characters, so what the agent sends never grows the server's memory without bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Characters of each text a card shows (the document, the transcript, the panel).
DISPLAY_LIMIT = 8_000
#: Characters of each cut text the room keeps while its request is open (5,000,000: 5 MB of
#: ASCII); beyond that, the whole-content reply says how much even it leaves out.
HELD_LIMIT = 5_000_000
#: The name `truncated` gives the card's summary (the other names are keys of `details`).
SUMMARY = "summary"


@dataclass(frozen=True)
class CardContent:
    """A card's summary and details as shown, and the whole of each text cut for showing."""

    summary: str
    details: dict[str, Any]
    whole: dict[str, str] = field(default_factory=dict)

    def in_full(self) -> dict[str, Any]:
        """`GET approvals/<id>/details`: the summary and details with every cut text whole (a
        text beyond `HELD_LIMIT` as far as the room kept it, named in `truncated`)."""
        cut = self.details.get("truncated", {})
        details = {k: self.whole.get(k, v) for k, v in self.details.items() if k != "truncated"}
        reply: dict[str, Any] = {"summary": self.whole.get(SUMMARY, self.summary)}
        reply["details"] = details
        beyond = {
            name: {"shown": HELD_LIMIT, "total": sizes["total"]}
            for name, sizes in cut.items()
            if sizes["total"] > HELD_LIMIT
        }
        if beyond:
            reply["truncated"] = beyond
        return reply


def shown(summary: str, details: dict[str, Any]) -> CardContent:
    """`summary` and `details` as a card shows them: each text at most `DISPLAY_LIMIT`
    characters, `details.truncated` naming each one cut (absent when nothing was)."""
    truncated: dict[str, dict[str, int]] = {}
    whole: dict[str, str] = {}

    def cut(name: str, text: Any) -> Any:
        if not isinstance(text, str) or len(text) <= DISPLAY_LIMIT:
            return text
        truncated[name] = {"shown": DISPLAY_LIMIT, "total": len(text)}
        whole[name] = text[:HELD_LIMIT]
        return text[:DISPLAY_LIMIT]

    shown_summary = cut(SUMMARY, summary)
    shown_details = {name: cut(name, text) for name, text in details.items()}
    if truncated:
        shown_details["truncated"] = truncated
    return CardContent(shown_summary, shown_details, whole)
