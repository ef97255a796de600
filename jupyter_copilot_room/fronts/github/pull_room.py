"""One room on one pull request: the comments that mention the room's agent become its tasks,
each task's Message follows its prompt through the room, and `/approve` or `/reject` answer its
cards. A client of the in-process API (`api/`) and nothing else: who may prompt or answer is the
room's to say (`access/rules.py`), as for every front; GitHub only says who may write.

It hears by polling the pull request's comments (no public URL needed) and by the webhooks
`pull_requests.py` verifies; either way each version of a comment is heard once, in this object's
one loop, across restarts too (`pull_link.py`): an edit is read like a new comment unless the
comment was acted on already, and deleting the comment that asked for a queued task withdraws it.
GitHub's faults (unreachable, a rate limit, a 5xx) wait and say "GitHub: waiting" in the room's
header; nothing already handled is handled again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from ...api import Front, Person, Refused, RoomAPI
from ...background_tasks import started
from ...request_bodies import CardDecision
from ..reach import ServiceRefusal, ServiceWaiting, reach
from ..room_follower import RoomFollower
from .comment_commands import CardAnswer, Mention, read_comment
from .github_rest import GitHubRest
from .github_settings import GitHubSettings
from .markers import marker_of
from .pull_link import PullLink
from .pull_posts import PullPosts
from .pull_tasks import ROOM, Task, card_of, prompt_of

if TYPE_CHECKING:
    from ...api import RoomsAPI

log = logging.getLogger(__name__)

FRONT = Front("github")  # the room's header and its reading: the front itself
#: The longest wait between tries while GitHub is unreachable or failing (seconds).
MAX_BACKOFF = 300.0


class PullRoom:
    def __init__(
        self,
        name: str,
        link: PullLink,
        settings: GitHubSettings,
        rest: GitHubRest,
        rooms: RoomsAPI,
    ):
        self.name = name
        self.link = link
        self.settings = settings
        self.rest = rest
        self.rooms = rooms
        self.posts = PullPosts(name, link, settings, rest)
        self._own_login: str | None = None
        self._heard: list[dict] = []  # comments a webhook brought
        self._wake = asyncio.Event()
        self._lock = asyncio.Lock()
        self._loop: asyncio.Task | None = None
        self._room: RoomAPI | None = None  # as the loop last opened it
        self.reading = RoomFollower(
            rooms, name, FRONT, lambda: self.link.seq, self._read, loaded=self._loaded
        )
        self._last_poll = 0.0
        self._status: str | None = None
        self._not_before = 0.0  # time.time() before which GitHub is not asked (its rate limit)

    def start(self) -> None:
        self._loop = started(self._run(), f"The pull request loop of {self.name}")
        self.reading.start()

    async def stop(self) -> None:
        await self.reading.stop()
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._loop

    def heard(self, comment: dict) -> None:
        """A comment a webhook brought (`deleted` set when it is gone): handled in the loop,
        once, like a polled one."""
        self._heard.append(comment)
        self._wake.set()

    # -- the loop ----------------------------------------------------------------------------------

    async def _run(self) -> None:
        """Hear the pull request every `poll_interval` (sooner when a webhook brings a comment),
        through `reach`: while GitHub cannot answer, "GitHub: waiting" and a longer wait."""
        poll = self.settings.poll_interval
        while True:
            try:
                await reach(self._cycle, self._waiting, first=poll, cap=MAX_BACKOFF, floor=poll)
                self._say_status(None)
            except ServiceRefusal as refusal:
                self._say_status(_refusal_status(refusal), refusal.reason)
            except Refused as refused:
                log.warning("The room %s could not open: %s", self.name, refused)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), poll)
            self._wake.clear()

    def _waiting(self, waiting: ServiceWaiting, wait: float) -> None:
        """GitHub is not asked for `wait` seconds (its rate limit lifts, or it comes back)."""
        self._not_before = time.time() + wait
        self._say_status("waiting", f"{waiting.reason}; retrying in {wait:.0f} s")

    async def _cycle(self) -> None:
        self._room = room = await self.rooms.open(self.name)
        self.posts.agent = room.agent_card()["name"]
        if self._own_login is None:
            self._own_login = await self.rest.login()
        await self.posts.card(room)
        comments, self._heard = self._heard, []
        if time.monotonic() - self._last_poll >= self.settings.poll_interval:
            comments = comments + await self.rest.comments(self.link.number)
            self._last_poll = time.monotonic()
        async with self._lock:
            for comment in sorted(comments, key=lambda c: (c["id"], bool(c.get("deleted")))):
                await self._hear(room, comment)
            await self.posts.flush()

    def _say_status(self, status: str | None, detail: str = "") -> None:
        """The header's "GitHub: ..." (nothing while all is well); a change is logged once."""
        if status != self._status:
            if status is not None:
                log.warning("GitHub for the room %s: %s (%s)", self.name, status, detail)
            self._status = status
        if self._room is not None:
            self._room.set_front_status(FRONT, status)

    # -- comments ----------------------------------------------------------------------------------

    async def _hear(self, room: RoomAPI, comment: dict) -> None:
        if comment.get("deleted"):
            return await self._gone(room, comment)
        if not self.link.is_new(comment):
            return
        login = comment["user"]["login"]
        asked = read_comment(comment.get("body") or "", self.posts.agent)
        task = self._task_named(comment, asked)
        if login == self._own_login or marker_of(comment.get("body")) is not None:
            return self._handled(comment)  # the room's own comments, and other rooms' (no loop)
        if asked is None and task is not None and comment.get("review") and task.card:
            asked = Mention(comment.get("body") or "", task.id)  # may answer its question
        if asked is None:
            if self.link.pass_over(comment):  # an edit may yet ask something
                self.link.save()
            return
        if task is not None and task.capped:
            return self._handled(comment)  # past its cap the room says nothing more on it
        writer = await self._writes(room, login)  # ServiceWaiting: heard again next time
        self._handled(comment)  # before acting: a crash now loses it rather than acts twice
        username = self.settings.username_of(login)  # None: acts as nobody, only told why
        person = None if username is None else Person(username, source=FRONT.name)
        if isinstance(asked, CardAnswer):
            await self._answer(room, comment, person, writer, asked, task)
        elif task is None:
            await self._open(room, comment, person, writer, asked)
        else:
            await self._more(room, comment, person, writer, asked, task)
        self.link.save()

    async def _writes(self, room: RoomAPI, login: str) -> bool:
        """Whether `login` may act here: it is mapped to a room username, and the room lets its
        permission on the repository act (GitHub's refusal to say counts as no)."""
        if self.settings.username_of(login) is None:
            return False
        try:
            return room.may_act_from_repository(await self.rest.permission(login))
        except ServiceRefusal as refusal:
            log.warning("GitHub would not say what %s may do: %s", login, refusal.reason)
            return False

    def _handled(self, comment: dict) -> None:
        self.link.handle(comment)
        self.link.save()

    async def _gone(self, room: RoomAPI, comment: dict) -> None:
        """A comment deleted: the task it asked for is withdrawn while queued, as its author
        would; a task whose turn started goes on, and its Message says so."""
        self._handled(comment)  # a poll that listed it before it went acts on nothing
        task = self.link.task_asked_by(comment["id"])
        if task is None or task.terminal:
            return
        username = self.settings.username_of(task.owner)  # None: no longer mapped
        if task.state == "submitted" and task.prompt_id is not None and username is not None:
            author = Person(username, source=FRONT.name)
            try:
                await room.withdraw(author, task.prompt_id)  # the room records it: canceled
                task.comment = None
                return self.link.save()
            except Refused as refused:  # it started meanwhile
                log.info("Task %s was not withdrawn: %s", task.id, refused.message)
        task.left_running()
        self.posts.say(task)
        self.link.save()

    def _task_named(self, comment: dict, asked: Mention | CardAnswer | None) -> Task | None:
        """The task a comment is on: named on its first line, or the review thread it is in."""
        if asked is not None and asked.task is not None:
            return self.link.tasks.get(asked.task)
        root = comment.get("in_reply_to_id") if comment.get("review") else None
        return self.link.task_in_review(root)

    async def _open(
        self, room: RoomAPI, comment: dict, person: Person | None, writer: bool, asked: Mention
    ) -> None:
        login = comment["user"]["login"]
        task = self.link.new_task(login, comment["id"])
        if comment.get("review"):
            task.review_root = comment.get("in_reply_to_id") or comment["id"]
        if asked.task is not None:
            self._end(task, "rejected", f"There is no task {asked.task} on this pull request.")
        elif person is None or not writer:
            self._end(task, "rejected", self._not_a_writer(login))
        else:
            try:
                task.prompt_id = await room.submit(person, asked.text, link=comment["html_url"])
            except Refused as refused:
                self._end(task, "rejected", f"The room did not take it: {refused.message}")
                return
            task.prose = f"Queued in the room `{self.name}` for @{login}."
            self.posts.say(task)

    async def _more(
        self,
        room: RoomAPI,
        comment: dict,
        person: Person | None,
        writer: bool,
        asked: Mention,
        task: Task,
    ) -> None:
        """A comment on a task: the answer to the question its card asks. A task takes one
        prompt: more work is a new mention (a new task)."""
        login = comment["user"]["login"]
        if not task.posts(login, self.settings.max_rounds):
            return self._capped(task, login)
        if person is None:
            return await self._reply_on(comment, task, self._not_a_writer(login))
        card = self._card(room, person, task)
        if card is None or card["kind"] != "question":
            said = f"Task {task.id} is {task.state} and asks nothing; mention @{self.posts.agent} "
            return await self._reply_on(comment, task, said + "without a task id for a new task.")
        if not writer:
            return await self._reply_on(comment, task, self._not_a_writer(login))
        try:
            await room.reply(person, card["id"], asked.text)
        except Refused as refused:
            await self._reply_on(comment, task, refused.message)

    async def _answer(
        self,
        room: RoomAPI,
        comment: dict,
        person: Person | None,
        writer: bool,
        asked: CardAnswer,
        task: Task | None,
    ) -> None:
        waiting = self.link.waiting()
        if task is None and len(waiting) == 1:
            task = waiting[0]
        if task is None and not waiting:
            return await self.posts.reply(comment, None, "No task waits.")
        if task is None:
            ids = ", ".join(t.id for t in waiting)
            said = f"Several tasks wait ({ids}): name one, e.g. `/approve {waiting[0].id}`."
            return await self.posts.reply(comment, None, said)
        if not task.posts(comment["user"]["login"], self.settings.max_rounds):
            return self._capped(task, comment["user"]["login"])
        if person is None:
            return await self._reply_on(comment, task, self._not_a_writer(comment["user"]["login"]))
        card = self._card(room, person, task)
        if card is None:
            return await self._reply_on(comment, task, f"Task {task.id} waits on no request.")
        if not (writer and card["may_answer"]):
            who = card["who_answers"]
            said = f"Only {who} may answer this request, with write access to the repository."
            return await self._reply_on(comment, task, said)
        try:
            decision: CardDecision = "approve" if asked.approve else "reject"
            await room.answer(person, card["id"], decision, feedback=asked.reason)
        except Refused as refused:
            await self._reply_on(comment, task, refused.message)

    async def _reply_on(self, comment: dict, task: Task, prose: str) -> None:
        """A reply on a task is the room's post on it: a round like anyone's, so two agents
        answering each other through the room spend the task; at the cap, none."""
        if not task.posts(ROOM, self.settings.max_rounds):
            return self._capped(task)
        await self.posts.reply(comment, task, prose)

    def _card(self, room: RoomAPI, reader: Person | Front, task: Task) -> dict | None:
        def name(username: str) -> str:
            """`@login` where a login acts as them, else the room's name: never a bare hex
            username."""
            login = self.settings.login_of(username)
            return f"@{login}" if login else room.display_name(username)

        return next((c for c in room.cards_for(reader, name) if c["id"] == task.card), None)

    def _not_a_writer(self, login: str) -> str:
        """Why the room takes nothing from `login`, and what would change that."""
        return self.posts.unmapped(login) or (
            f"@{login} cannot write to {self.settings.repository}, so the room takes no task "
            "or answer from them."
        )

    def _capped(self, task: Task, by: str | None = None) -> None:
        """The task fails at its cap, its last word; `by` posted the comment that would have
        passed it, after the room's last post, so the failure is a new comment below theirs."""
        cap = self.settings.max_rounds
        task.capped = True
        if by is not None:
            task.last_author = by
        self._end(task, "failed", f"This task reached its cap of {cap} rounds; the room stops.")

    def _end(self, task: Task, state: str, prose: str) -> None:
        task.state, task.prose = state, prose
        self.posts.say(task)

    # -- the room's transcript ---------------------------------------------------------------------

    def _loaded(self, room: RoomAPI) -> None:
        """The room loaded anew: its reading starts again (`RoomFollower`), with the agent's
        name its Messages mention."""
        self.posts.agent = room.agent_card()["name"]

    async def _read(self, room: RoomAPI, record: dict) -> None:
        """One record of the room: the task it moves says so on the pull request."""
        async with self._lock:
            task = self.link.task_of_prompt(prompt_of(record)) or self.link.task_of_card(
                card_of(record)
            )
            if task is None or task.terminal:
                return
            waited_on = task.card
            if task.moved_by(record):
                opened = task.card not in (None, waited_on)  # a new card: say how to answer it
                if opened and (card := self._card(room, FRONT, task)):
                    task.how_to_answer(card["who_answers"])
                self.posts.say(task)
            self.link.seq = record["seq"]
            self.link.save()
            if time.time() < self._not_before:
                return  # GitHub's rate limit: the loop posts once it lifts
            try:
                await self.posts.flush()
            except (ServiceWaiting, ServiceRefusal):
                self._wake.set()  # the loop says so in the header and tries again


def _refusal_status(refusal: ServiceRefusal) -> str:
    return "bad token" if refusal.status == 401 else f"error {refusal.status}"
