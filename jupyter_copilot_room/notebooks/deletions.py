"""The cells the agent deleted, by prompt: what tells its deletions from people's.

A deleted cell carries no mark (`metadata.copilot_room`) to say who took it away, so the
notebook tools note each deletion here as it is made, and the turn's checkpoint takes them when
the turn ends: a cell a person deleted during the turn is then not the turn's change, and
reverting the turn does not bring it back (`turn_share.py`). By cell id alone: a notebook's ids
are unique, and two notebooks sharing one (a copied notebook) within one turn's deletions is
not worth a path that differs between the server's and the repository's view.
"""

from __future__ import annotations


class AgentDeletions:
    def __init__(self) -> None:
        self._by_prompt: dict[str, set[str]] = {}

    def add(self, prompt_id: str, cell_id: str) -> None:
        self._by_prompt.setdefault(prompt_id, set()).add(cell_id)

    def take(self, prompt_id: str) -> frozenset[str]:
        """The cells the turn of `prompt_id` deleted, forgotten here once taken."""
        return frozenset(self._by_prompt.pop(prompt_id, ()))
