"""The server's pull request front (`c.CopilotRoom.github`): which room is linked to which pull
request (`<state_dir>/github/<room>.json`), linking and unlinking, and GitHub's webhooks,
verified by `X-Hub-Signature-256` and handed to the room whose pull request they are about.

A webhook comes in either content type GitHub offers: `application/json`, or its default
`application/x-www-form-urlencoded` with the JSON in the `payload` field (signed as sent, over
the form's raw bytes). A comment's `created`, `edited` and `deleted` all go to the room, which
hears each version of a comment once, so a redelivery (`X-GitHub-Delivery` sent again, across a
restart too) acts on nothing twice."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

from ...errors import InvalidRequest, NotFound, Unauthorized, Unavailable
from ..reach import ServiceRefusal, ServiceWaiting
from .github_rest import GitHubRest
from .github_settings import GitHubSettings
from .pull_link import PullLink
from .pull_room import FRONT, PullRoom

if TYPE_CHECKING:
    from ...api import RoomAPI, RoomsAPI

log = logging.getLogger(__name__)

#: The webhook events that carry a comment on a pull request, and the actions the room hears.
COMMENT_EVENTS = {"issue_comment", "pull_request_review_comment"}
ACTIONS = {"created", "edited", "deleted"}
JSON, FORM = "application/json", "application/x-www-form-urlencoded"


class PullRequests:
    def __init__(self, settings: GitHubSettings, rooms: RoomsAPI, state_dir: Path):
        self.settings = settings
        self.rooms = rooms
        self.folder = state_dir / "github"
        token = settings.token()
        if token is None:
            log.warning(
                "GitHub: $%s is not set; pull requests cannot be linked.", settings.token_env
            )
        self.rest = GitHubRest(token or "", settings.api_url, settings.repository)
        self.linked: dict[str, PullRoom] = {}

    def start(self) -> None:
        """Every link kept from before the restart goes on where it was."""
        for file in sorted(self.folder.glob("*.json")):
            link = PullLink.load(file)
            if link is not None:
                self._watch(file.stem, link)

    async def stop(self) -> None:
        for pull in self.linked.values():
            await pull.stop()

    def _watch(self, name: str, link: PullLink) -> PullRoom:
        pull = PullRoom(name, link, self.settings, self.rest, self.rooms)
        self.linked[name] = pull
        pull.start()
        return pull

    def number_of(self, room: str) -> int | None:
        return None if (pull := self.linked.get(room)) is None else pull.link.number

    async def link(self, room: RoomAPI, number: int, recorded: Callable[[], None]) -> dict:
        """Link `room` to the pull request `number` (the caller's right to was checked);
        `recorded()` (the transcript's line) once GitHub answered, before anything changes."""
        try:
            pull = await self.rest.pull(number)
        except ServiceWaiting as waiting:
            raise Unavailable(f"GitHub cannot answer now ({waiting.reason}).") from None
        except ServiceRefusal as refusal:
            if refusal.status == 404:
                raise NotFound(
                    f"{self.settings.repository} has no pull request #{number}.", code="no_pull"
                ) from None
            raise Unavailable(f"GitHub refused: {refusal.reason}", code="github_refused") from None
        current = self.linked.get(room.name)
        if current is not None and current.link.number == number:
            return pull
        link = PullLink(self.folder / f"{room.name}.json", number, url=pull["url"])
        try:  # what was said before the link is not a task (a link made again, too)
            link.handled = {comment["id"] for comment in await self.rest.comments(number)}
        except ServiceWaiting as waiting:
            raise Unavailable(f"GitHub cannot answer now ({waiting.reason}).") from None
        recorded()
        await self.unlink(room)
        link.save()
        self._watch(room.name, link)
        return pull

    async def unlink(self, room: RoomAPI) -> None:
        pull = self.linked.pop(room.name, None)
        if pull is not None:
            await pull.stop()
            pull.link.file.unlink(missing_ok=True)
            room.set_front_status(FRONT, None)

    def hear(self, event: str, signature: str, body: bytes, content_type: str) -> None:
        """A webhook delivery: verified, then each comment to the room linked to its pull
        request (anything else is acknowledged and left)."""
        secret = self.settings.webhook_secret()
        if secret is None:
            raise NotFound("This server takes no GitHub webhooks.", code="no_webhooks")
        expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, signature or ""):
            raise Unauthorized("The webhook's X-Hub-Signature-256 does not match.")
        if event not in COMMENT_EVENTS:
            return
        payload = _payload(body, content_type)
        number, comment = _comment_of(payload)
        repository = (payload.get("repository") or {}).get("full_name", "")
        action = payload.get("action")
        if action not in ACTIONS or repository.lower() != self.settings.repository.lower():
            return  # another repository's pull request of the same number
        if event == "pull_request_review_comment":
            comment["review"] = True
        if action == "deleted":
            comment["deleted"] = True
        for pull in self.linked.values():
            if pull.link.number == number:
                pull.heard(comment)


def _payload(body: bytes, content_type: str) -> dict:
    """The delivery's JSON, from either content type GitHub sends (the hook's setting). The body
    says which it is (a form's starts with `payload=`, JSON with `{`), not only the header: HTTP
    clients label a POST without one as a form (tornado's does), and the two cannot be mistaken
    for each other. Any other declared type is refused."""
    media = content_type.partition(";")[0].strip().lower()
    if media not in (JSON, FORM, ""):
        raise InvalidRequest(
            f"A webhook's content type is {JSON} or {FORM}, not {media}.",
            code="unsupported_content_type",
        )
    form = body.startswith(b"payload=")
    try:
        if form:
            fields = parse_qs(body.decode("ascii"), strict_parsing=True, max_num_fields=10)
            (text,) = fields["payload"]
        else:
            text = body.decode("utf-8")
        payload = json.loads(text)
    except (ValueError, KeyError):  # UnicodeDecodeError is a ValueError
        what = "form's payload field" if form else "body"
        raise InvalidRequest(f"The webhook's {what} holds no JSON object.") from None
    if not isinstance(payload, dict):
        raise InvalidRequest("The webhook's payload is not a JSON object.")
    return payload


def _comment_of(payload: dict) -> tuple[int, dict]:
    """The pull request's number and the comment, with what the room reads of it first."""
    try:
        number = (payload.get("issue") or payload.get("pull_request") or {})["number"]
        comment = dict(payload["comment"])
        ids = (number, comment["id"], comment["user"]["login"])
    except (KeyError, TypeError, ValueError):
        ids = None
    if ids is None or [type(i) for i in ids] != [int, int, str]:
        raise InvalidRequest("The webhook's payload is not a comment's.")
    return number, comment
