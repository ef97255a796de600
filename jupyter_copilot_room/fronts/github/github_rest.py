"""GitHub's REST API as the room uses it, through githubkit (typed, async, a `base_url` for GitHub
Enterprise or a local fake): the only module that imports it.

Every failure is one of the two kinds every front's service raises (`fronts/reach.py`):
`ServiceWaiting` (unreachable, a rate limit, a 5xx: try again after `retry_after`) and
`ServiceRefusal` (a bad token, a 404, with its `status`: say so once).
Comment listings are conditional (ETag per page), so a quiet pull request costs 304s, which
GitHub does not count against the rate limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from githubkit import GitHub
from githubkit.exception import RateLimitExceeded, RequestError, RequestFailed

from ..reach import ServiceRefusal, ServiceWaiting
from .comment_text import CommentBody

PER_PAGE = 100
#: GitHub's repository roles (`role_name`); a custom role is given as the base it builds on.
ROLES = frozenset({"admin", "maintain", "write", "triage", "read"})


@dataclass
class _Page:
    etag: str
    items: list[dict]


class GitHubRest:
    """One token's client for one repository (`owner/name`)."""

    def __init__(self, token: str, api_url: str, repository: str = ""):
        self._github = GitHub(
            token, base_url=api_url + "/", http_cache=False, auto_retry=False, timeout=20.0
        )
        self.owner, _, self.repo = repository.partition("/")
        self._pages: dict[tuple[str, int, int], _Page] = {}

    async def _call(self, method: str, url: str, **kwargs: Any) -> Any:
        """The answer's JSON (None for an empty body), or one of the two errors."""
        response = await self._send(method, url, **kwargs)
        return response.json() if response.content else None

    async def _send(self, method: str, url: str, **kwargs: Any) -> Any:
        """GitHub's response (a 304 too), or one of the two errors."""
        try:
            return await self._github.arequest(method, url, **kwargs)
        except RateLimitExceeded as limited:
            wait = max(1.0, limited.retry_after.total_seconds())
            raise ServiceWaiting("rate limited", wait) from None
        except RequestFailed as failed:
            status = failed.response.status_code
            if status >= 500:
                raise ServiceWaiting(f"HTTP {status}") from None
            message = _message(failed.response.raw_response)
            raise ServiceRefusal(message, status=status, token=status == 401) from None
        except RequestError as lost:
            raise ServiceWaiting(_unreachable(lost)) from None

    async def login(self) -> str:
        """Whose token it is (the room never acts on its own comments)."""
        return (await self._call("GET", "/user"))["login"]

    async def pull(self, number: int) -> dict:
        pull = await self._call("GET", f"/repos/{self.owner}/{self.repo}/pulls/{number}")
        return {"number": pull["number"], "url": pull["html_url"], "state": pull["state"]}

    async def comments(self, number: int) -> list[dict]:
        """Every issue comment and review comment on the pull request, each with `review`
        true for a comment on a line of the diff; unchanged pages come from their 304."""
        issue = await self._listing("issues", number)
        review = await self._listing("pulls", number)
        return [*issue, *({**c, "review": True} for c in review)]

    async def _listing(self, where: str, number: int) -> list[dict]:
        items: list[dict] = []
        page = 1
        while True:
            key = (where, number, page)
            cached = self._pages.get(key)
            headers = {"If-None-Match": cached.etag} if cached else {}
            url = f"/repos/{self.owner}/{self.repo}/{where}/{number}/comments"
            response = await self._send(
                "GET", url, params={"per_page": PER_PAGE, "page": page}, headers=headers
            )
            if response.status_code == 304 and cached is not None:
                got = cached.items
            else:
                got = response.json()
                self._pages[key] = _Page(response.headers.get("etag", ""), got)
            items.extend(got)
            if len(got) < PER_PAGE:
                return items
            page += 1

    async def post_comment(self, number: int, body: CommentBody) -> dict:
        url = f"/repos/{self.owner}/{self.repo}/issues/{number}/comments"
        return _comment(await self._call("POST", url, json={"body": body}))

    async def edit_comment(self, comment_id: int, body: CommentBody, review: bool = False) -> None:
        where = "pulls" if review else "issues"
        url = f"/repos/{self.owner}/{self.repo}/{where}/comments/{comment_id}"
        await self._call("PATCH", url, json={"body": body})

    async def reply_in_review(self, number: int, comment_id: int, body: CommentBody) -> dict:
        """A reply in the review thread of `comment_id` (a comment on a line of the diff)."""
        url = f"/repos/{self.owner}/{self.repo}/pulls/{number}/comments/{comment_id}/replies"
        return {**_comment(await self._call("POST", url, json={"body": body})), "review": True}

    async def permission(self, login: str) -> str:
        """`login`'s role on the repository: `admin`, `maintain`, `write`, `triage`, `read`,
        or `none`; a custom role the base it builds on (`permission`, the older scale)."""
        url = f"/repos/{self.owner}/{self.repo}/collaborators/{login}/permission"
        try:
            answer = await self._call("GET", url)
        except ServiceRefusal as no:
            if no.status == 404:
                return "none"
            raise
        role = answer.get("role_name")
        return role if role in ROLES else answer.get("permission") or "none"

    async def has_copilot_seat(self, org: str, login: str) -> bool:
        try:
            await self._call("GET", f"/orgs/{org}/members/{login}/copilot")
        except ServiceRefusal as no:
            if no.status in (404, 422):  # no seat; Copilot Business off in the org
                return False
            raise
        return True

    async def copilot_seats(self, org: str) -> int:
        """How many Copilot seats `org` has: it answers only a token that may read them, which
        the seat check needs (`jupyter copilot-room doctor`)."""
        answer = await self._call(
            "GET", f"/orgs/{org}/copilot/billing/seats", params={"per_page": 1}
        )
        return int(answer.get("total_seats", 0))


def _comment(data: dict) -> dict:
    return {"id": data["id"], "url": data.get("html_url", "")}


def _message(response: Any) -> str:
    try:
        return str(response.json().get("message", ""))
    except ValueError:
        return response.text[:200]


def _unreachable(lost: RequestError) -> str:
    return f"unreachable ({type(lost.exc).__name__})"
