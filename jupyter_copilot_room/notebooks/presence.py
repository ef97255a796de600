"""The agent as a visible collaborator in a live notebook, and the cursors of the people in it."""

from __future__ import annotations

import contextlib

from pycrdt import Assoc, StickyIndex

AGENT_COLOUR = "#8250df"


class Presence:
    """The agent's awareness state in one live notebook; re-announced when someone joins, so
    late joiners see it at once. `autosave: False`: a state without it would turn the room's
    autosave back on for everyone (jupyter_server_ydoc saves if any state asks)."""

    def __init__(self, live, author: str):
        self.live = live
        self.state: dict = {
            "user": {
                "username": "copilot",
                "name": f"Copilot for {author}",
                "display_name": f"Copilot for {author}",
                "initials": "CP",
                "color": AGENT_COLOUR,
            },
            "autosave": False,
        }
        self._subscription = live.awareness.observe(self._on_change)

    def point_at(self, cell_id: str | None) -> None:
        self.state["cursors"] = self._cursor(cell_id)
        self.live.awareness.set_local_state(dict(self.state))

    def _cursor(self, cell_id: str | None) -> list:
        cells = [self.live.get_cell(i) for i in range(self.live.cell_number)]
        index = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
        if index is None:
            return []
        source = self.live.ycells[index]["source"]
        if not len(source):
            return []  # pycrdt 0.14 panics on a sticky index into an empty text
        # Named by the cell's first character (Assoc.AFTER at 0): JupyterLab resolves that; a
        # position before it is named by the text's own id, which pycrdt 0.14 gets wrong.
        position = source.sticky_index(0, Assoc.AFTER).to_json()
        return [{"anchor": position, "head": position, "primary": True, "empty": True}]

    def _on_change(self, topic: str, changes) -> None:
        added = [c for c in changes[0].get("added", []) if c != self.live.awareness.client_id]
        if topic == "change" and added:
            self.live.awareness.set_local_state(dict(self.state))

    def leave(self) -> None:
        self.live.awareness.unobserve(self._subscription)
        self.live.awareness.set_local_state(None)


def someone_is_in(live, text) -> bool:
    """Whether another collaborator's cursor (JupyterLab's `cursors` awareness field, Yjs
    relative positions) rests in `text`, a cell's source."""
    positions = [
        position
        for client, state in live.awareness.states.items()
        if client != live.awareness.client_id and state
        for cursor in state.get("cursors") or []
        for position in (cursor.get("anchor"), cursor.get("head"))
        if isinstance(position, dict)
    ]
    if not positions:
        return False
    length = len(text)
    # A position inside a text names the character after it: compare with this text's own.
    chars = {
        (item["client"], item["clock"])
        for item in (text.sticky_index(i, Assoc.AFTER).to_json().get("item") for i in range(length))
        if item
    }
    for position in positions:
        item = position.get("item")
        if item:
            if (item.get("client"), item.get("clock")) in chars:
                return True
        elif position.get("type"):
            # At the end of a text Yjs names the text itself, whose id pycrdt 0.14 does not
            # expose: resolve it and compare the offset with this text's length. A match in
            # another cell of the same length only makes the agent more careful.
            known = {k: v for k, v in position.items() if v is not None}
            with contextlib.suppress(Exception):
                if StickyIndex.from_json(known, text).get_index() == length:
                    return True
    return False
