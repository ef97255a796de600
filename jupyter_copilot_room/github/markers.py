"""The hidden marker every comment the room writes holds exactly once, `<!-- copilot-room {json}
-->`, then prose for people: other agents reading the thread (and the room after a restart) read
the JSON, people read the prose. The JSON never holds `-->` (`>` is written `\\u003e`)."""

from __future__ import annotations

import json
import re

_MARKER = re.compile(r"<!-- copilot-room (\{.*?\}) -->", re.S)


def marked(data: dict, prose: str) -> str:
    """A comment's body: the marker, a blank line, the prose."""
    text = json.dumps(data, separators=(", ", ": ")).replace(">", "\\u003e")
    return f"<!-- copilot-room {text} -->\n\n{prose}"


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
