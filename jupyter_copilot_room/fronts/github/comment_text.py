"""Every byte the room posts on GitHub goes through here: the agent's replies and card summaries,
people's words quoted back, the room's own prose. GitHub renders a bot's comment like anyone's,
so a prompt-injected reply could ping `@octocat` or `@acme/everyone` as the room, cross-link
`#1` or `owner/repo#1` or `GH-1`, embed a tracking image, or plant a second marker that other
agents (and the room after a restart) would believe. `comment_body` is the only maker of a
`CommentBody`, the only type `github_rest.py` posts.

The inert forms put a zero-width space (U+200B) after the character that starts the construct:
`@`, `#` before a digit, `GH-` before a digit, `<` (no HTML tag, comment or autolink can start),
`&` (no entity can spell an `@`), `!` before `[` (an image becomes a plain link). GitHub's bots
write mentions the same way; a reader sees the text as written, and the form is inert whether
GitHub reads it as prose or as code, so a misjudged code span can never turn it live.

Code is shown as written where the room is sure GitHub shows it as code: a fenced block opened at
the start of a line (nothing but the end of its fence closes it; one left open is closed, so it
cannot swallow what follows) and a code span in a paragraph whose backticks pair up the same
however GitHub splits it into blocks, table cells or links (one line each, no `|`, no `](`, `]:`
or `$` nearby). Anywhere else code gets the inert forms too, which only add invisible characters.
Inside code only `<!--` is broken, so that no one else's text holds a marker.
"""

from __future__ import annotations

import bisect
import re
from typing import NewType

from .markers import marker

#: GitHub refuses a comment body longer than this many characters (422 "body is too long").
LIMIT = 65_536
ZWSP = "\u200b"

CommentBody = NewType("CommentBody", str)

_LIVE = re.compile(r"[@<&]|#(?=\d)|!(?=\[)|(?i:GH-)(?=\d)")
_COMMENT = re.compile(r"<(?=!--)")
_OPENER = re.compile(r"(`{3,}|~{3,})(.*)")
_BLANK = re.compile(r"[ \t]*\n?")
_RUN = re.compile(r"`+")
#: Where GitHub may read backticks otherwise than as code-span delimiters: a link's destination,
#: a reference definition, math, a bare URL it links (a table's `|` is checked per span).
_UNSURE = re.compile(r"\]\(|\]:|\$|://|www\.|mailto:|xmpp:", re.I)
_PUNCTUATION = frozenset(r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~""")


def comment_body(data: dict, prose: str, room: str) -> CommentBody:
    """A comment's body: the room's marker, then `prose` made inert, cut below GitHub's limit
    with a pointer to the room when it is too long (the marker is never cut)."""
    head = marker(data) + "\n\n"
    text = inert(prose)
    if len(head) + len(text) <= LIMIT:
        return CommentBody(head + text)
    pointer = f"\n\n... the full reply is in the room `{room}`."
    budget = LIMIT - len(head) - len(pointer)
    if budget < 0:
        raise ValueError("the marker alone is longer than GitHub takes")
    return CommentBody(head + _cut(prose, budget) + pointer)


def inert(text: str) -> str:
    """`text` as GitHub should show it and do nothing else: no mention, reference, image, HTML
    or marker; code as written; every fence closed."""
    out: list[str] = []
    # CommonMark's line endings only (str.splitlines would also break at U+2028 and others).
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    i = 0
    while i < len(lines):
        opened = _fence_opener(lines[i])
        if opened is None:
            start = i
            while i < len(lines) and _fence_opener(lines[i]) is None:
                i += 1
            out.append(_prose("".join(lines[start:i])))
            continue
        out.append(_COMMENT.sub("<" + ZWSP, lines[i]))
        closer = re.compile(rf" {{0,3}}{re.escape(opened[0])}{{{len(opened)},}}[ \t]*\n?")
        i += 1
        while i < len(lines) and not closer.fullmatch(lines[i]):
            out.append(_COMMENT.sub("<" + ZWSP, lines[i]))
            i += 1
        if i < len(lines):
            out.append(lines[i])
            i += 1
        else:  # left open: closed here, so nothing after it is swallowed
            out.append(("" if out[-1].endswith("\n") else "\n") + opened)
    return "".join(out)


def _fence_opener(line: str) -> str | None:
    """The fence (its backticks or tildes) a line opens at its very start, if it opens one.
    An indented one may belong to a list item or a quote, so it is not trusted as code."""
    found = _OPENER.match(line)
    if found is None or (found.group(1)[0] == "`" and "`" in found.group(2)):
        return None
    return found.group(1)


def _prose(text: str) -> str:
    """Lines outside fenced blocks, paragraph by paragraph (blank lines end them)."""
    parts = re.split(r"((?:^[ \t]*\n)+)", text, flags=re.M)
    return "".join(part if _BLANK.fullmatch(part) else _paragraph(part) for part in parts)


def _paragraph(text: str) -> str:
    spans = _code_spans(text)
    sure = not _UNSURE.search(text) and all(
        "\n" not in text[a:b] and "|" not in text[a:b] for a, b in spans
    )
    if not sure:
        return _made_inert(text)
    out, at = [], 0
    for a, b in spans:
        out += [_made_inert(text[at:a]), _COMMENT.sub("<" + ZWSP, text[a:b])]
        at = b
    return "".join([*out, _made_inert(text[at:])])


def _made_inert(text: str) -> str:
    return _LIVE.sub(lambda live: live.group() + ZWSP, text)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """CommonMark's code spans in one paragraph: a run of backticks (not escaped by a backslash
    outside code) up to the next run of the same length; a run with none is plain text."""
    runs = [(m.start(), m.end()) for m in _RUN.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for start, end in runs:
        by_length.setdefault(end - start, []).append(start)
    run_end = dict(runs)
    spans, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in _PUNCTUATION:
            i += 2
            continue
        if text[i] != "`":
            i += 1
            continue
        end = run_end.get(i) or _run_end(text, i)
        starts = by_length.get(end - i, [])
        at = bisect.bisect_left(starts, end)
        if at < len(starts):
            close = starts[at] + end - i
            spans.append((i, close))
            i = close
        else:
            i = end
    return spans


def _run_end(text: str, i: int) -> int:
    """The end of a run that starts after an escaped backtick (not one `_RUN` found)."""
    while i < len(text) and text[i] == "`":
        i += 1
    return i


def _cut(prose: str, budget: int) -> str:
    """The longest start of `prose` (at a line's end when one is near) whose inert text fits
    in `budget`: cut before neutralizing, so a cut code span or fence is made safe like any."""
    size = min(len(prose), budget)
    while True:
        line_end = prose.rfind("\n", 0, size)
        head = prose[:line_end] if line_end > size * 0.9 else prose[:size]
        text = inert(head)
        if len(text) <= budget:
            return text
        size = min(size - 1, size * budget // len(text))
