"""A local fake of GitHub's REST API, so the tests drive the room's pull-request bridge through
githubkit as against GitHub, with no network and no token: one repository's pull requests, their
issue and review comments, who may do what (collaborator permissions, Copilot seats), answered on
the wire as GitHub answers (`Link` pages, an `ETag` per page and its 304, rate-limit headers, its
error bodies). Tests read and set its state, inject faults (`fail_next`, `rate_limit`, a wrong
token), and make the webhooks GitHub would send (`webhook_payload`, `delivery`, `sign`): a
comment's creation, its author's edit (`edit`) or its deletion (`delete`)."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import time
import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from http.client import responses
from typing import Any
from urllib.parse import urlencode

from tornado.web import Finish, HTTPError, RequestHandler

from .fake_service import FakeService
from .helpers import eventually

API = "https://api.github.example"  # what the `url` fields name (the fake answers at base_url)
WEB = "https://github.example"
DOCS = "https://docs.github.com/rest"
RATE_DOCS = DOCS + "/using-the-rest-api/rate-limits-for-the-rest-api"
#: A role's `permission` field (the older scale: no maintain, no triage); `role_name` is the role.
PERMISSION = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read"}
PERMISSION |= {"read": "read", "none": "none"}
ROLES = ["read", "triage", "write", "maintain", "admin"]  # each can do what those before it can
#: A user's API links: `<name>_url` is the user's url and this.
USER_LINKS = {k: f"/{k}" for k in ("followers", "subscriptions", "repos", "received_events")}
USER_LINKS |= {"organizations": "/orgs", "following": "/following{/other_user}"}
USER_LINKS |= {"gists": "/gists{/gist_id}", "starred": "/starred{/owner}{/repo}"}
USER_LINKS["events"] = "/events{/privacy}"
NOT_FOUND = "Not Found"
#: The longest comment body GitHub takes (issue and review comments, created or edited).
BODY_LIMIT = 65_536


def sign(secret: str, body: bytes) -> str:
    """GitHub's `X-Hub-Signature-256` of a webhook's body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def delivery(
    event: str, payload: dict, secret: str, form: bool = False, guid: str | None = None
) -> tuple[dict[str, str], bytes]:
    """A webhook delivery as GitHub sends it: `(headers, body)`, the body JSON or, a hook's
    default content type, a form whose `payload` field holds the JSON; signed over the bytes
    sent. `guid` is its `X-GitHub-Delivery` (a redelivery sends the same)."""
    text = json.dumps(payload)
    body = urlencode({"payload": text}) if form else text
    kind = "application/x-www-form-urlencoded" if form else "application/json"
    headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": guid or str(uuid.uuid4())}
    headers |= {"Content-Type": kind, "User-Agent": "GitHub-Hookshot/4c1a2b3"}
    headers["X-Hub-Signature-256"] = sign(secret, body.encode())
    return headers, body.encode()


class FakeGitHub(FakeService):
    """One repository (`owner/name`) whose API takes `token`; the token is `bot_login`'s."""

    def __init__(
        self,
        repository: str = "acme/lab",
        token: str = "gh-test-token",
        bot_login: str = "copilot-room-bot",
    ):
        super().__init__()
        self.repository = repository
        self.repo_owner, _, self.name = repository.partition("/")
        self.token = token
        self.bot_login = bot_login
        self.pulls: dict[int, dict] = {}
        self.issue_comments: list[dict] = []
        self.review_comments: list[dict] = []
        self.permissions: dict[str, str] = {}  # login -> role; "none" if absent
        self.seats: dict[str, set[str]] = {}  # org -> logins with an active Copilot seat
        #: orgs whose seats the token may not list (no manage_billing:copilot): 403
        self.billing_refused: set[str] = set()
        self.requests: list[tuple[str, str, dict]] = []  # (method, path, headers)
        #: Every body posted or edited in, in order, by comment id: what a reader saw over time.
        self.written: list[tuple[int, str]] = []
        self.failures: list[int] = []  # the statuses the next requests get
        self.limited_until = 0.0  # time.time() until which every request is rate limited
        self._last_id = 1000
        self._user_ids: dict[str, int] = {}
        self._clock = 0

    def routes(self):
        repo = "(?i)/repos/" + re.escape(self.repository)  # GitHub's names ignore case
        return [
            (r"/user", _User),
            (repo + r"/pulls/(\d+)", _Pull),
            (repo + r"/issues/(\d+)/comments", _IssueComments),
            (repo + r"/issues/comments/(\d+)", _IssueComment),
            (repo + r"/pulls/(\d+)/comments", _ReviewComments),
            (repo + r"/pulls/(\d+)/comments/(\d+)/replies", _Replies),
            (repo + r"/pulls/comments/(\d+)", _ReviewComment),
            (repo + r"/collaborators/([^/]+)/permission", _Permission),
            (r"/orgs/([^/]+)/members/([^/]+)/copilot", _Seat),
            (r"/orgs/([^/]+)/copilot/billing/seats", _Seats),
        ]

    def handlers(self):
        return [*self.routes(), (r".*", _NotFound)]  # GitHub's 404, not the fakes' shared one

    def listings(self) -> int:
        """How many times a client listed a pull request's issue comments: one each poll."""
        listing = re.compile(r"/issues/\d+/comments$")
        return sum(
            1 for method, path, _ in self.requests if method == "GET" and listing.search(path)
        )

    async def polled(self, times: int = 2, timeout: float = 10) -> None:
        """Until the room has polled `times` more times: each poll handles what the one before
        brought, so whatever a comment or a delivery would do, it has done (an observed later
        marker, where a sleep would pass whenever the room is slower than the sleep)."""
        start = self.listings()
        await eventually(lambda: self.listings() >= start + times, timeout, f"{times} polls")

    def fail_next(self, count: int, status: int = 502) -> None:
        """The next `count` requests get `status` (before their credentials are looked at)."""
        self.failures += [status] * count

    def rate_limit(self, seconds: float) -> None:
        """Every request for the next `seconds` gets GitHub's primary rate limit's 403."""
        self.limited_until = time.time() + seconds

    def user(self, login: str) -> dict:
        """`login` as GitHub shows a user in a comment; `bot_login`'s type is "Bot"."""
        uid = self._user_ids.setdefault(login, 5001 + len(self._user_ids))
        url = f"{API}/users/{login}"
        user = {"login": login, "id": uid, "node_id": f"U_kgDO{uid}", "gravatar_id": ""}
        user |= {"avatar_url": f"https://avatars.github.example/u/{uid}?v=4"}
        user |= {"url": url, "html_url": f"{WEB}/{login}", "site_admin": False}
        user |= {f"{name}_url": url + tail for name, tail in USER_LINKS.items()}
        user["type"] = "Bot" if login == self.bot_login else "User"
        return user | {"user_view_type": "public"}

    def add_pull(self, number: int, title: str = "A change", author: str = "octo-author") -> dict:
        """An open pull request `number` by `author`."""
        at = self._now()
        url = f"{API}/repos/{self.repository}/pulls/{number}"
        issue_url = f"{API}/repos/{self.repository}/issues/{number}"
        html_url = f"{WEB}/{self.repository}/pull/{number}"
        pull = {"url": url, "id": 700000 + number, "node_id": f"PR_kwDO{number}"}
        pull |= {"html_url": html_url, "diff_url": html_url + ".diff"}
        pull |= {"patch_url": html_url + ".patch", "issue_url": issue_url}
        pull |= {"comments_url": issue_url + "/comments", "review_comments_url": url + "/comments"}
        pull |= {"number": number, "state": "open", "locked": False, "title": title}
        pull |= {"user": self.user(author), "body": "", "draft": False, "merged": False}
        pull |= {"created_at": at, "updated_at": at, "closed_at": None, "merged_at": None}
        self.pulls[number] = pull
        return pull

    def comment(self, login: str, body: str, pull: int = 7) -> dict:
        """`login` comments on pull request `pull`'s conversation (added if it is not there)."""
        cid, at = self._next_id(), self._now()
        comment = {"id": cid, "node_id": f"IC_kwDO{cid}", "body": body, "user": self.user(login)}
        comment["url"] = f"{API}/repos/{self.repository}/issues/comments/{cid}"
        comment["html_url"] = f"{self._pull(pull)['html_url']}#issuecomment-{cid}"
        comment |= {"created_at": at, "updated_at": at}
        comment["issue_url"] = f"{API}/repos/{self.repository}/issues/{pull}"
        comment["author_association"] = self._association(login)
        comment["performed_via_github_app"] = None
        self.issue_comments.append(comment)
        return comment

    def review_comment(
        self,
        login: str,
        body: str,
        pull: int = 7,
        path: str = "README.md",
        line: int = 1,
        in_reply_to: int | None = None,
    ) -> dict:
        """`login` comments on `line` of `path` in pull request `pull`'s diff, or replies in
        the thread of `in_reply_to` (then on its line)."""
        first = None if in_reply_to is None else self._thread(in_reply_to)
        if first is not None:
            path, line = first["path"], first.get("line")
        cid, at = self._next_id(), self._now()
        url = f"{API}/repos/{self.repository}/pulls/comments/{cid}"
        html_url = f"{self._pull(pull)['html_url']}#discussion_r{cid}"
        pull_url = f"{API}/repos/{self.repository}/pulls/{pull}"
        commit = hashlib.sha1(f"{self.repository}#{pull}".encode()).hexdigest()
        comment = {"url": url, "pull_request_review_id": 9_000_000 + cid, "id": cid}
        comment |= {"node_id": f"PRRC_kwDO{cid}", "path": path, "line": line, "side": "RIGHT"}
        comment["diff_hunk"] = f"@@ -{line},2 +{line},3 @@\n context\n+added"
        comment |= {"position": line, "original_position": line, "original_line": line}
        comment |= {"commit_id": commit, "original_commit_id": commit}
        if first is not None:
            comment["in_reply_to_id"] = first["id"]
        comment |= {"user": self.user(login), "body": body, "created_at": at, "updated_at": at}
        comment |= {"html_url": html_url, "pull_request_url": pull_url}
        comment["author_association"] = self._association(login)
        links = {"self": url, "html": html_url, "pull_request": pull_url}
        comment["_links"] = {name: {"href": href} for name, href in links.items()}
        comment |= dict.fromkeys(("start_line", "original_start_line", "start_side"))
        comment["subject_type"] = "line"
        self.review_comments.append(comment)
        return comment

    def edit(self, comment: dict, body: str) -> dict:
        """Its author edits `comment` (a later `updated_at`); the webhook's `changes` for it."""
        changes = {"body": {"from": comment["body"]}}
        comment |= {"body": body, "updated_at": self._now()}
        return changes

    def delete(self, comment: dict) -> None:
        """`comment` is deleted: gone from its listing and its address."""
        for kind in (self.issue_comments, self.review_comments):
            if comment in kind:
                kind.remove(comment)

    def comments_by(self, login: str) -> list[dict]:
        """`login`'s issue and review comments, in the order they were made."""
        both = [*self.issue_comments, *self.review_comments]
        return sorted((c for c in both if c["user"]["login"] == login), key=lambda c: c["id"])

    def webhook_payload(
        self, comment: dict, action: str = "created", changes: dict | None = None
    ) -> tuple[str, dict]:
        """The event GitHub sends when `comment` is `created`, `edited` (with the `changes`
        that `edit` returned) or `deleted`: `(event name, payload)`."""
        repository = {"id": 424242, "node_id": "R_kgDO424242", "private": True}
        repository |= {"name": self.name, "full_name": self.repository}
        repository |= {"owner": self.user(self.repo_owner), "html_url": f"{WEB}/{self.repository}"}
        repository["url"] = f"{API}/repos/{self.repository}"
        common = {"action": action, "comment": dict(comment), "repository": repository}
        common["sender"] = comment["user"]
        if action == "edited":
            common["changes"] = changes or {}
        if "pull_request_review_id" in comment:
            pull = self._pull(int(comment["pull_request_url"].rsplit("/", 1)[1]))
            return "pull_request_review_comment", {**common, "pull_request": pull}
        pull = self._pull(int(comment["issue_url"].rsplit("/", 1)[1]))
        keys = ("url", "html_url", "diff_url", "patch_url")
        issue = {"url": pull["issue_url"], "html_url": pull["html_url"], "id": pull["id"]}
        issue |= {k: pull[k] for k in ("number", "title", "state", "user", "body")}
        issue["pull_request"] = {k: pull[k] for k in keys}
        return "issue_comment", {**common, "issue": issue}

    def _pull(self, number: int) -> dict:
        return self.pulls.get(number) or self.add_pull(number)

    def _thread(self, comment_id: int) -> dict:
        """The first review comment of `comment_id`'s thread (KeyError if there is none)."""
        by_id = {c["id"]: c for c in self.review_comments}
        return by_id[by_id[comment_id].get("in_reply_to_id") or comment_id]

    def _association(self, login: str) -> str:
        if login.lower() == self.repo_owner.lower():
            return "OWNER"
        return "NONE" if self.permissions.get(login, "none") == "none" else "COLLABORATOR"

    def _next_id(self) -> int:
        self._last_id += 1
        return self._last_id

    def _now(self) -> str:
        """Now, in GitHub's format; each later than the one before (an edit shows)."""
        self._clock = max(int(time.time()), self._clock + 1)
        return datetime.fromtimestamp(self._clock, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _find(items: Iterable[dict], value: str, key: str = "id") -> dict:
    """The item whose `key` is `value`, or GitHub's 404."""
    for item in items:
        if item[key] == int(value):
            return item
    raise HTTPError(404, reason=NOT_FOUND)


class _Api(RequestHandler):
    """GitHub's manners for every request: faults, then credentials, then the rate limit;
    JSON bodies, and rate-limit headers on every answer."""

    def initialize(self, owner: FakeGitHub) -> None:
        self.owner = owner
        self.set_default_headers()

    def set_default_headers(self) -> None:
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.set_header("X-GitHub-Media-Type", "github.v3; format=json")
        fake: FakeGitHub | None = getattr(self, "owner", None)
        used = min(len(fake.requests), 4999) if fake else 0
        self._rate_headers(5000 - used, int(time.time()) + 3600)

    def _rate_headers(self, remaining: int, reset: int) -> None:
        values = {"limit": 5000, "remaining": remaining, "used": 5000 - remaining, "reset": reset}
        for name, value in {**values, "resource": "core"}.items():
            self.set_header(f"x-ratelimit-{name}", str(value))

    def prepare(self) -> None:
        fake, request = self.owner, self.request
        fake.requests.append((request.method or "", request.path, dict(request.headers)))
        credentials = (f"Bearer {fake.token}", f"token {fake.token}")
        if fake.failures:
            status = fake.failures.pop(0)
            self.answer({"message": responses.get(status, "Error")}, status)
        elif request.headers.get("Authorization") not in credentials:
            self.answer({"message": "Bad credentials", "documentation_url": DOCS}, 401)
        elif time.time() < fake.limited_until:
            self._rate_headers(0, math.ceil(fake.limited_until))
            message = "API rate limit exceeded for user ID 1."
            self.answer({"message": message, "documentation_url": RATE_DOCS}, 403)

    def answer(self, body: Any, status: int = 200) -> None:
        self.set_status(status)
        self.finish(json.dumps(body))

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.finish(json.dumps({"message": self._reason, "documentation_url": DOCS}))

    def pull(self, number: str) -> dict:
        return _find(self.owner.pulls.values(), number, "number")

    def posted_body(self) -> str:
        """The request's comment body, or GitHub's 422 (none, or longer than it takes)."""
        try:
            body = json.loads(self.request.body or b"{}").get("body")
        except (ValueError, AttributeError):
            body = None
        if not isinstance(body, str):
            raise HTTPError(422, reason="Validation Failed")
        if len(body) > BODY_LIMIT:
            message = f"body is too long (maximum is {BODY_LIMIT} characters)"
            error = {"resource": "IssueComment", "code": "custom", "field": "body"}
            errors = [error | {"message": message}]
            self.answer({"message": "Validation Failed", "errors": errors}, 422)
            raise Finish()
        return body

    def page(self, items: list[dict]) -> None:
        """`items` a page at a time as GitHub pages a list: `Link`, `ETag` and 304."""
        per_page = min(max(self._int("per_page", 30), 1), 100)
        number = max(self._int("page", 1), 1)
        query: dict[str, Any] = {"per_page": per_page}
        if since := self.get_argument("since", None):
            query["since"] = since
            after = datetime.fromisoformat(since)
            items = [c for c in items if datetime.fromisoformat(c["updated_at"]) >= after]
        last = max(math.ceil(len(items) / per_page), 1)
        text = json.dumps(items[(number - 1) * per_page : number * per_page])
        rels = {"prev": number - 1, "first": 1} if number > 1 else {}
        rels |= {"next": number + 1, "last": last} if number < last else {}
        base = f"{self.request.protocol}://{self.request.host}{self.request.path}"
        links = [f'<{base}?{urlencode({**query, "page": p})}>; rel="{r}"' for r, p in rels.items()]
        if links:
            self.set_header("Link", ", ".join(links))
        etag = f'"{hashlib.sha256(text.encode()).hexdigest()}"'
        self.set_header("ETag", etag)
        asked = self.request.headers.get("If-None-Match", "")
        if etag in (tag.strip().removeprefix("W/") for tag in asked.split(",")):
            self.set_status(304)
            self.finish()
        else:
            self.finish(text)

    def _int(self, name: str, default: int) -> int:
        value = self.get_argument(name, "")
        return int(value) if value.isdigit() else default


class _NotFound(_Api):
    def prepare(self) -> None:
        super().prepare()
        if not self._finished:
            raise HTTPError(404, reason=NOT_FOUND)


class _User(_Api):
    def get(self) -> None:
        fake = self.owner
        at = "2024-01-02T03:04:05Z"
        about = dict.fromkeys(("name", "company", "blog", "location", "email", "bio"))
        counts = dict.fromkeys(("public_repos", "public_gists", "followers", "following"), 0)
        user = {**fake.user(fake.bot_login), **about, **counts, "hireable": None}
        self.answer({**user, "created_at": at, "updated_at": at})


class _Pull(_Api):
    def get(self, number: str) -> None:
        self.answer(self.pull(number))


class _IssueComments(_Api):
    def get(self, number: str) -> None:
        pull = self.pull(number)
        self.page([c for c in self.owner.issue_comments if c["issue_url"] == pull["issue_url"]])

    def post(self, number: str) -> None:
        self.pull(number)
        body = self.posted_body()
        comment = self.owner.comment(self.owner.bot_login, body, int(number))
        self.owner.written.append((comment["id"], body))
        self.answer(comment, 201)


class _IssueComment(_Api):
    kind = "issue_comments"  # the fake's list of them

    def find(self, comment_id: str) -> dict:
        return _find(getattr(self.owner, self.kind), comment_id)

    def get(self, comment_id: str) -> None:
        self.answer(self.find(comment_id))

    def patch(self, comment_id: str) -> None:
        comment = self.find(comment_id)
        comment["body"] = self.posted_body()
        comment["updated_at"] = self.owner._now()
        self.owner.written.append((comment["id"], comment["body"]))
        self.answer(comment)


class _ReviewComments(_Api):
    def get(self, number: str) -> None:
        pull = self.pull(number)
        self.page([c for c in self.owner.review_comments if c["pull_request_url"] == pull["url"]])


class _Replies(_Api):
    def post(self, number: str, comment_id: str) -> None:
        pull = self.pull(number)
        to = _find(self.owner.review_comments, comment_id)
        if to["pull_request_url"] != pull["url"]:
            raise HTTPError(404, reason=NOT_FOUND)
        body, bot = self.posted_body(), self.owner.bot_login
        reply = self.owner.review_comment(bot, body, int(number), in_reply_to=to["id"])
        self.owner.written.append((reply["id"], body))
        self.answer(reply, 201)


class _ReviewComment(_IssueComment):
    kind = "review_comments"


class _Permission(_Api):
    def get(self, login: str) -> None:
        role = self.owner.permissions.get(login, "none")
        level = ROLES.index(role) if role in ROLES else -1
        can = ("pull", "triage", "push", "maintain", "admin")
        user = {**self.owner.user(login), "role_name": role}
        user["permissions"] = {name: level >= at for at, name in enumerate(can)}
        self.answer({"permission": PERMISSION.get(role, role), "role_name": role, "user": user})


class _Seat(_Api):
    def get(self, org: str, login: str) -> None:
        if login not in self.owner.seats.get(org, set()):
            raise HTTPError(404, reason=NOT_FOUND)
        at = "2024-01-02T03:04:05Z"
        seat = {"created_at": at, "updated_at": at, "pending_cancellation_date": None}
        seat |= {"last_activity_at": None, "last_activity_editor": None, "plan_type": "business"}
        self.answer({**seat, "assignee": self.owner.user(login)})


class _Seats(_Api):
    """An org's Copilot seats, for a token that may read its billing (GitHub's 403 otherwise)."""

    def get(self, org: str) -> None:
        if org in self.owner.billing_refused:
            message = "Resource not accessible by personal access token"
            self.answer({"message": message, "documentation_url": DOCS, "status": "403"}, 403)
            return
        logins = sorted(self.owner.seats.get(org, set()))
        seats = [{"assignee": self.owner.user(login), "plan_type": "business"} for login in logins]
        self.answer({"total_seats": len(seats), "seats": seats})
