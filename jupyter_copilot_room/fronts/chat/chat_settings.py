"""What every chat bridge's settings hold (`c.CopilotRoom.slack`, `.teams`): `rooms` (a room's
channel) and `people` (a chat user's room username), checked alike; base URLs ending in `/`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def rooms_and_people(value: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """`rooms` and `people` as given; ValueError naming what is wrong."""
    for key in ("rooms", "people"):
        pairs = value.get(key) or {}
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in pairs.items()):
            raise ValueError(f"{key} maps strings to strings")
    rooms, people = dict(value.get("rooms") or {}), dict(value.get("people") or {})
    if len(set(rooms.values())) != len(rooms):
        raise ValueError("one channel is linked to one room")
    return rooms, people


def slashed(url: Any) -> str:
    """A base URL that the service's paths are joined to."""
    url = str(url)
    return url if url.endswith("/") else url + "/"
