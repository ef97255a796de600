"""Markdown that fetches nothing when it is shown: what an export does with remote resources.

The panel never loads a remote image until someone clicks it (`labextension/src/sanitize.ts`),
but an exported notebook is rendered by whatever opens it, so a reply's `![](https://...)` would
tell that site who read the room, and when. Every Markdown image and every HTML tag that points
elsewhere (a scheme other than `data:`, a `//` host; `src`, `srcset`, `style="...url()"`...) is
replaced by a word that says what was left out and from where; `<style>` and `<script>` elements
go whole. Relative and `data:` images stay. The rules err on the side of leaving out: a text with
an image in it also gets every remote link destination after it and every remote reference
definition made inert (kept as text), since the exact pairing of brackets is the renderer's.
Code is not spared (a fence's start is not certain either: an HTML block may hold it), so a URL
inside a quoted tag in code also becomes the word.
"""

from __future__ import annotations

import html
import re

_TEXT = r"(?:[^\[\]\\]|\\.)"
_DESTINATION = r"(?:<[^>\n]*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))+)"
_TITLE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\))"""
#: `![alt](destination "title")`, brackets nested twice at most (the safety net does the rest).
_IMAGE = re.compile(
    rf"!\[(?:{_TEXT}|\[(?:{_TEXT}|\[{_TEXT}*\])*\])*\]"
    rf"\(\s*(?P<dest>{_DESTINATION})(?:\s+{_TITLE})?\s*\)",
    re.S,
)
#: A link's destination right after its text: `](destination`.
_AFTER_TEXT = re.compile(rf"\]\(\s*(?P<dest>{_DESTINATION})")
#: A reference definition, `[label]: destination`, at the start of a line.
_DEFINITION = re.compile(r"^( {0,3})\[((?:[^\]\\]|\\.)+)\]:[ \t]*(?:\n[ \t]*)?(\S+)", re.M)
_ELEMENT = re.compile(r"<(style|script)\b.*?(?:</\1\s*>|\Z)", re.I | re.S)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*:", re.I)
_ELSEWHERE = re.compile(
    r"[/\\]{2}|(?:url|image|image-set|cross-fade|element|src)\s*\(|@import", re.I
)
_WHITESPACE = "\t\n\f\r "
_CONTROLS = "".join(map(chr, range(0x21)))  # what a URL parser strips around a URL
#: Attributes that only say where a click goes, on the tags that have them.
_LINKS = {("a", "href"), ("area", "href")}
#: Attributes that are only text, never fetched.
_TEXT_ONLY = {"alt", "title", "class", "id", "lang", "dir", "width", "height", "align", "role"}


def without_remote_resources(text: str) -> str:
    """`text` (Markdown, maybe with HTML) with nothing in it that a renderer would fetch."""
    text = _ELEMENT.sub(lambda m: f"*({m.group(1).lower()} left out of the export)*", text)
    text = _without_remote_tags(text)
    text = _IMAGE.sub(
        lambda m: _left_out("image", m["dest"]) if _remote(_url(m["dest"])) else m[0], text
    )
    if "![" not in text:
        return text
    # Whatever image the pattern above could not pair: its destination, inline or defined, inert.
    text = _AFTER_TEXT.sub(lambda m: "]\\(" + m[0][2:] if _remote(_url(m["dest"])) else m[0], text)
    return _DEFINITION.sub(
        lambda m: f"{m[1]}\\[{m[0][len(m[1]) + 1 :]}" if _remote(_url(m[3])) else m[0], text
    )


def _without_remote_tags(text: str) -> str:
    """Each HTML start tag read as a browser reads it (attribute values quoted or not, `/`
    between attributes), replaced when an attribute points elsewhere."""
    out, at = [], 0
    for start in (m.start() for m in re.finditer(r"<[A-Za-z]", text)):
        if start < at:
            continue  # inside a tag already read
        end, name, attributes = _tag(text, start)
        if (where := _fetches(name, attributes)) is not None:
            out += [text[at:start], _left_out("image" if name == "img" else f"<{name}>", where)]
            at = end
    return "".join([*out, text[at:]])


def _tag(text: str, start: int) -> tuple[int, str, list[tuple[str, str]]]:
    """The end of the start tag at `start`, its name and its attributes (values unescaped)."""
    i = start + 1
    while i < len(text) and text[i] not in _WHITESPACE + "/>":
        i += 1
    name, attributes = text[start + 1 : i].lower(), []
    while i < len(text):
        while i < len(text) and text[i] in _WHITESPACE + "/":
            i += 1
        if i >= len(text) or text[i] == ">":
            break
        first = i
        i += 1  # a name may start with "="
        while i < len(text) and text[i] not in _WHITESPACE + "/>=":
            i += 1
        key, value = text[first:i].lower(), ""
        while i < len(text) and text[i] in _WHITESPACE:
            i += 1
        if i < len(text) and text[i] == "=":
            i += 1
            while i < len(text) and text[i] in _WHITESPACE:
                i += 1
            if i < len(text) and text[i] in "\"'":
                close = text.find(text[i], i + 1)
                close = len(text) if close < 0 else close
                value, i = text[i + 1 : close], close + 1
            else:
                first = i
                while i < len(text) and text[i] not in _WHITESPACE + ">":
                    i += 1
                value = text[first:i]
        attributes.append((key, html.unescape(value)))
    return min(i + 1, len(text)), name, attributes


def _fetches(name: str, attributes: list[tuple[str, str]]) -> str | None:
    """Where a tag with these attributes would fetch from (None: nowhere)."""
    for key, value in attributes:
        if (name, key) in _LINKS or key in _TEXT_ONLY or key.startswith("aria-"):
            continue
        if (key != "style" and _remote(value)) or _ELSEWHERE.search(value):
            return value
    return None


def _url(destination: str) -> str:
    """A Markdown destination as the renderer resolves it: `<>` off, escapes and entities read."""
    if destination.startswith("<") and destination.endswith(">"):
        destination = destination[1:-1]
    return html.unescape(_ESCAPED.sub(r"\1", destination)).strip(_WHITESPACE)


def _remote(url: str) -> bool:
    """Fetched from elsewhere: a scheme other than `data:` (`http:`, `https:`, `ftp:`, `file:`
    ...), or a host with the scheme left out (`//`, or the backslashes browsers take for it)."""
    url = re.sub(r"[\t\n\r]", "", url).lstrip(_CONTROLS)  # as a browser's URL parser does
    if re.match(r"[/\\]{2}", url):
        return True
    return bool(_SCHEME.match(url)) and not url.lower().startswith("data:")


def _left_out(what: str, where: str) -> str:
    """The word that stands for what was left out: what it was and from which host."""
    found = re.search(r"[/\\]{2}([^/\\\s'\"?#()<>]+)", _url(where))
    host = found[1].rsplit("@", 1)[-1].split(":", 1)[0] if found else ""
    host = re.sub(r"[^A-Za-z0-9.\-]", "", host)
    return f"*({what}{f' from {host}' if host else ''} left out of the export)*"
