"""The hidden marker every comment the room writes holds exactly once, `<!-- copilot-room {json}
-->`, then prose for people: other agents reading the thread (and the room after a restart) read
the JSON, people read the prose. The JSON never holds `<` or `>` (written `\\u003c`, `\\u003e`),
so it can neither end the comment early nor hold a second marker. The prose after it is made
inert by `comment_text.py`, so a marker can only be the room's."""

from __future__ import annotations

import json
import re

_MARKER = re.compile(r"<!-- copilot-room (\{.*?\}) -->", re.S)


def marker(data: dict) -> str:
    """The marker of a comment the room writes (`comment_text.comment_body` puts it first)."""
    text = json.dumps(data, separators=(", ", ": ")).replace("<", "\\u003c").replace(">", "\\u003e")
    return f"<!-- copilot-room {text} -->"


def marker_of(body: str | None) -> dict | None:
    """The marker's data in a comment's body, or None if it holds none (or a broken one)."""
    found = _MARKER.search(body or "")
    if found is None:
        return None
    try:
        data = json.loads(found.group(1))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
