"""The one neutralizer of what the room posts to Teams: every text, the agent's and people's
alike (messages, their edits, the one-to-one notes, a card's title, summary and settled line,
the card message's own `text`), is shown as written, with no link, mention or formatting of its
own. Nothing reaches Teams from `fronts/teams/` without passing through here.

What Teams does with text: a message's `text` is Markdown by default (`textFormat`), and Teams
also reads a subset of HTML in it (`<a href>`, `<at>` mentions, `<b>`); an Adaptive Card's
`TextBlock` is always read as Markdown (bold, italic, lists, links), with no property to turn
that off. `textFormat: plain` is not the robust way: a card has no such switch, and a client that
still reads Markdown would make the text live. So text is escaped, as CommonMark defines escapes:
each character that could open Markdown syntax gets a backslash, and where HTML is read (the
message's text) `&`, `<` and `>` become entities, which every Markdown and HTML reader shows as
the character. Teams' clients have treated backslashes in cards unevenly (some showed them), so
the escapes also break the syntax for a reader that ignores them: `](` is never left adjacent
(no link), and a link, a tag or a mention needs characters that are all escaped. A line's
leading spaces become no-break spaces (four spaces would be a code block) and each line of a
card is its own TextBlock (Markdown joins single lines). Fields Teams never reads as Markdown (a
button's title, a drop-down's choices) are shown as given, only cleaned of control characters.
A bare URL stays as typed: Teams may underline it, but it goes where it says.
"""

from __future__ import annotations

import re

#: ASCII punctuation that can open Markdown syntax anywhere in a line (CommonMark lets each be
#: escaped): emphasis, code, links and images, strikethrough, tables, HTML, autolinks, entities.
_INLINE = re.compile(r"([\\`*_\[\]~|<>&])")
#: What opens a block at a line's start: headings, lists, quotes, thematic breaks, setext
#: underlines, fences; an ordered list's `1.` or `1)`.
_BLOCK = re.compile(r"^([#+\-=]|\d+(?=[.)]))")
_LEADING = re.compile(r"^[ \t]+")
#: Control characters other than tab and newline: never shown, sometimes read as markup.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def clean(text: str) -> str:
    """`text` with line ends as `\\n` and no control characters: what every field holds."""
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def card_lines(text: str) -> list[str]:
    """`text` as the TextBlocks of a card show it as written: one escaped line each."""
    return [_line(line, html=False) or "\u00a0" for line in clean(text).split("\n")]


def message(text: str) -> str:
    """`text` as a message's Markdown `text` shows it as written (HTML read too)."""
    return "\n".join(_line(line, html=True) for line in clean(text).split("\n"))


def _line(line: str, html: bool) -> str:
    indent = _LEADING.match(line)
    lead = "\u00a0" * len(indent.group(0).expandtabs(4)) if indent else ""
    rest = line[len(indent.group(0)) :] if indent else line
    if html:
        rest = _INLINE.sub(lambda m: _ENTITIES.get(m[1]) or "\\" + m[1], rest)
    else:
        rest = _INLINE.sub(r"\\\1", rest)
    rest = _BLOCK.sub(lambda m: _block(m[1]), rest, count=1)
    return lead + rest.replace("](", "]\\(")


def _block(opener: str) -> str:
    """A line's opening syntax, escaped: `1.` keeps its digits and escapes the `.`."""
    if opener.isdigit():
        return opener + "\\"
    return "\\" + opener
