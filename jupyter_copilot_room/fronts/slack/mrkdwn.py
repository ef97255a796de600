"""The one neutralizer for Slack: every byte the room posts there (messages, edits, whispers, a
card's title, summary, settled line, buttons and fallback text), the agent's and people's alike,
goes through it, because Slack reads its own markup in any text field: `<!channel>`, `<!here>`,
`<@U123>`, `<#C123>` notify people and `<https://evil|Approve safely>` is a link dressed as
words. So `&`, `<` and `>` are always escaped (the room itself never writes Slack markup), and
the room's Markdown is shown as Slack's mrkdwn, which is not Markdown: mistune parses it, and
each node is written in mrkdwn with every text it holds escaped (`mrkdwn`).

Code cannot end early. Slack has no escape for a backtick: a ``` inside a code block closes it,
and a backtick inside a code span closes the span. So a code block's text has a zero-width space
between any two backticks (it still shows as the same backticks, and no ``` can form; a single
backtick does not close a block), and the fences are lines of their own. A code span cannot hold
a backtick at all, so there its backticks are shown as the look-alike modifier letter grave
accent (U+02CB), which Slack never reads as markup. Runs of backticks in plain text are broken
the same way, so no text opens a code block either."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import mistune

#: Keeps two backticks from being read together (no ``` forms from them).
ZERO_WIDTH_SPACE = "\u200b"
#: A backtick inside a code span, which a real one would close.
SPAN_BACKTICK = "\u02cb"
#: Cut text ends with it.
ELLIPSIS = "…"

_parse = mistune.create_markdown(renderer=None, plugins=["strikethrough"])
_BACKTICK_RUN = re.compile(r"`(?=`)")


def escaped(text: str) -> str:
    """`text` shown as written: `&`, `<` and `>` escaped, Slack's only control characters."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescaped(text: str) -> str:
    """Text as a person typed it (Slack sends `&`, `<`, `>` escaped)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def mrkdwn(markdown: str) -> str:
    """Markdown (the agent's reply, a prompt, the room's own words) as Slack's mrkdwn: bold,
    italics, strike-through, headings as bold lines, lists with their bullets, quotes, code;
    a link as `label (url)`, never as a Slack link whose words hide where it goes. Markdown that
    shows nothing (a link's definition alone) is shown as written: Slack refuses an empty text."""
    tokens: Any = _parse(markdown)
    return _blocks(tokens, "\n\n") or _text(markdown.strip())


def code_block(code: str) -> str:
    """`code` as a code block nothing inside can end."""
    return f"```\n{_unbroken(escaped(code))}\n```"


def fitted(render: Callable[[str], str], text: str, limit: int) -> str:
    """`render(text)`, or if that is longer than `limit`, `render` of as much of `text` as fits
    with an ellipsis: the text is cut before it is rendered, so no escape or fence is cut."""
    shown = render(text)
    while len(shown) > limit and text:
        text = text[: max(0, len(text) * limit // len(shown) - 1)]
        shown = render(text + ELLIPSIS)
    return shown


def _unbroken(text: str) -> str:
    return _BACKTICK_RUN.sub("`" + ZERO_WIDTH_SPACE, text)


def _text(raw: str) -> str:
    return _unbroken(escaped(raw))


def _blocks(tokens: list[dict], between: str) -> str:
    shown = (_block(t) for t in tokens if t["type"] != "blank_line")
    return between.join(s for s in shown if s)


def _block(token: dict) -> str:
    kind, children = token["type"], token.get("children")
    if kind in ("paragraph", "block_text"):
        return _inline(children or [])
    if kind == "heading":
        return _wrapped("*", _inline(children or []))
    if kind == "block_code":
        return code_block(token.get("raw", "").removesuffix("\n"))
    if kind == "block_quote":
        quoted = _blocks(children or [], "\n")
        return "\n".join(f"&gt; {line}" for line in quoted.splitlines())
    if kind == "list":
        return _list(token)
    if kind == "thematic_break":
        return "---"
    if children is not None:
        return _blocks(children, "\n")
    return _text(token.get("raw", "").removesuffix("\n"))  # HTML and what else: as written


def _list(token: dict) -> str:
    attrs = token.get("attrs") or {}
    start, bullet = attrs.get("start", 1), token.get("bullet", "-")
    lines = []
    for n, item in enumerate(token.get("children") or []):
        marker = f"{start + n}{bullet}" if attrs.get("ordered") else bullet
        body = _blocks(item.get("children") or [], "\n").splitlines() or [""]
        lines.append(f"{marker} {body[0]}")
        lines.extend(f"{' ' * (len(marker) + 1)}{line}" for line in body[1:])
    return "\n".join(lines)


def _inline(tokens: list[dict]) -> str:
    return "".join(_span(t) for t in tokens)


def _span(token: dict) -> str:
    kind, children = token["type"], token.get("children") or []
    if kind == "text" or kind == "inline_html":
        return _text(token.get("raw", ""))
    if kind == "strong":
        return _wrapped("*", _inline(children))
    if kind == "emphasis":
        return _wrapped("_", _inline(children))
    if kind == "strikethrough":
        return _wrapped("~", _inline(children))
    if kind == "codespan":
        code = escaped(token.get("raw", "")).replace("`", SPAN_BACKTICK)
        return f"`{code}`" if code.strip() else code
    if kind in ("link", "image"):
        label, url = _inline(children), _text(token.get("attrs", {}).get("url", ""))
        return url if label in ("", url) else f"{label} ({url})"
    if kind in ("softbreak", "linebreak"):
        return "\n"
    return _inline(children) if children else _text(token.get("raw", ""))


def _wrapped(mark: str, inner: str) -> str:
    """`inner` between `mark`s, which Slack reads only around text that does not start or end
    with a space."""
    stripped = inner.strip()
    return f"{mark}{stripped}{mark}" if stripped else inner
