"""A room's cards as fronts read them: each open card with the words a front shows for it, so no
front asks `access/rules.py` itself: who the card waits on (for a channel) and who may answer it
(the asker noted: the words the room's own refusal uses), each in the front's names for people
(the room's display names, or GitHub's `@login`s); and the agent's own card, which a front shows
others of it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..access import rules
from ..access.roles import Role
from ..agent.acp.agent_spec import COPILOT

if TYPE_CHECKING:
    from ..room.room import Room


def card_view(
    card_id: str, card: dict, username: str | None, role: Role, name: Callable[[str], str]
) -> dict:
    """One open card for the reader `username` (None: a front reading as itself, who may
    answer nothing) with the role `role`; `name` is the room's name for a username."""
    answerers = card.get("answerers") or {}
    return {
        "id": card_id,
        "kind": card.get("kind"),
        "prompt": card.get("prompt_id"),
        "summary": card.get("summary"),
        "choices": list(card.get("choices") or ()),
        "answerers": answerers,
        "may_answer": username is not None and rules.may_approve(answerers, username, role),
        "waiting_on": rules.who_answers(answerers, name, asker=""),
        "who_answers": rules.who_answers(answerers, name),
    }


def agent_card(room: Room) -> dict:
    """The name people mention the room's agent by, and its repository's skills."""
    agent = room.agent
    title = agent.title if agent is not None and agent.name != COPILOT else "Copilot"
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "agent"
    catalog = room.catalog.refresh().to_json() if room.catalog else {"skills": []}
    skills = [{"name": s["name"], "description": s["description"]} for s in catalog["skills"]]
    return {"name": f"{slug}-room", "skills": skills}
