"""What the room posts on its pull request, every body through `comment_body` (the one
neutralizer of what crosses into GitHub): the room's Agent Card, each task's Message (queued,
then posted in order: a new comment when someone posted on the task since the room's last, a
new round; else an edit of it), and replies to comments the room does not act on, saying why.
`pull_room.py` hears and decides; this posts."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..reach import ServiceRefusal
from .comment_text import comment_body
from .github_rest import GitHubRest
from .github_settings import GitHubSettings
from .pull_link import Outgoing, PullLink
from .pull_tasks import ROOM, Task

if TYPE_CHECKING:
    from ...api import RoomAPI

log = logging.getLogger(__name__)


class PullPosts:
    def __init__(self, name: str, link: PullLink, settings: GitHubSettings, rest: GitHubRest):
        self.name = name
        self.link = link
        self.settings = settings
        self.rest = rest
        self.agent = ""  # the name the card gives the agent, which comments mention
        self._card_posted = False

    async def card(self, room: RoomAPI) -> None:
        """The room's Agent Card: posted once, edited after a restart (or posted again if
        someone deleted it); nothing once it is there."""
        if self._card_posted:
            return
        card = room.agent_card()
        self.agent = card["name"]
        skills = ", ".join(f"`{s['name']}`" for s in card["skills"]) or "none yet"
        body = comment_body(
            {"card": card},
            f"**{card['name']}** is the agent of the Copilot room `{self.name}` on this pull "
            f"request. Mention `@{card['name']}` to give it a task; answer its requests with "
            f"`/approve` or `/reject [reason]` (with the task's id when several wait).\n\n"
            f"Skills: {skills}.",
            self.name,
        )
        if self.link.card is not None:
            try:
                await self.rest.edit_comment(self.link.card, body)
            except ServiceRefusal as gone:
                if gone.status != 404:
                    raise
                self.link.card = None
        if self.link.card is None:
            self.link.card = (await self.rest.post_comment(self.link.number, body))["id"]
            self.link.save()
        self._card_posted = True

    def unmapped(self, login: str) -> str:
        """For a login that acts as nobody: how to be mapped (else "")."""
        if self.settings.username_of(login) is not None:
            return ""
        return (
            f"@{login} is not mapped to a username of this room, so the room takes no task or "
            f'answer from them. A host maps them with `"people": {{"{login}": "<username>"}}` '
            "in `c.CopilotRoom.github`."
        )

    def say(self, task: Task) -> None:
        """Queue the task's Message as it is now (posted in order by `flush`)."""
        outbox = self.link.outbox
        last = next((o for o in reversed(outbox) if o.task == task.id), None)
        if last is not None and (last.state, last.prose) == (task.state, task.prose):
            return
        outbox.append(Outgoing(task.id, task.state, task.prose))

    async def flush(self) -> None:
        """Post the Messages queued, in order: a new comment when someone posted on the task
        since the room's last (a new round), else an edit of it. Kept on failure."""
        while self.link.outbox:
            out = self.link.outbox[0]
            task = self.link.tasks[out.task]
            if task.takes(out.state):
                try:
                    await self._post(task, out)
                except ServiceRefusal as refusal:  # its comment deleted, or not ours to edit
                    if refusal.status != 404 or task.message is None:
                        log.warning("GitHub refused task %s's Message: %s", task.id, refusal)
                    else:
                        task.message, task.last_author = None, task.owner
                        continue  # posted anew
            self.link.outbox.pop(0)
            self.link.save()

    async def _post(self, task: Task, out: Outgoing) -> None:
        """Someone posted on the task since the room's last Message (or it has none): a new
        comment, the next round (never past the cap); else an edit of the last."""
        new = task.needs_new_message()
        rounds = min(task.round + 1, self.settings.max_rounds) if new else task.round
        marker = task.marker(self.agent) | {"state": out.state, "round": rounds}
        body = comment_body(marker, out.prose, self.name)
        root = task.review_root
        if task.message is None or new:
            if root is not None:
                posted = await self.rest.reply_in_review(self.link.number, root, body)
            else:
                posted = await self.rest.post_comment(self.link.number, body)
            task.message, task.round, task.last_author = posted["id"], rounds, ROOM
        else:
            await self.rest.edit_comment(task.message, body, review=root is not None)
        task.posted = marker

    async def reply(self, comment: dict, task: Task | None, prose: str) -> None:
        """A reply to a comment the room does not act on, saying why (not a task's Message);
        to a login mapped to nobody, also how to be mapped."""
        unmapped = self.unmapped(comment["user"]["login"])
        if unmapped not in prose:
            prose = f"{prose}\n\n{unmapped}"
        marker = {"agent": self.agent, "reply_to": comment["id"]}
        body = comment_body(marker | ({"task": task.id} if task else {}), prose, self.name)
        if comment.get("review"):
            root = comment.get("in_reply_to_id") or comment["id"]
            await self.rest.reply_in_review(self.link.number, root, body)
        else:
            await self.rest.post_comment(self.link.number, body)
