"""GitHub, through the bridge's own client (`fronts/github/github_rest.py`) at the configured
`api_url`: the token (`GET /user`), the repository's permission for its login (the room comments,
so it needs write), the seat check's token reading the org's Copilot seats, and how the room
hears comments (webhooks with their secret, or polling)."""

from __future__ import annotations

import os

from ..fronts.github.github_rest import GitHubRest
from ..fronts.github.github_settings import GitHubSettings
from ..fronts.reach import ServiceRefusal, ServiceWaiting
from .finding import Check

#: The repository roles that may comment and edit the room's comments.
WRITES = ("write", "maintain", "admin")
TOKEN_RIGHTS = (
    "a fine-grained token with Pull requests and Issues: read and write, and Metadata: read "
    "(a classic token: repo)"
)


async def checks(settings: GitHubSettings) -> list[Check]:
    found: list[Check] = []
    if settings.repository:
        found += await _repository(settings)
        found.append(_hearing(settings))
    if settings.seat_check is not None:
        found.append(await _seats(settings))
    return found


async def _repository(settings: GitHubSettings) -> list[Check]:
    token = settings.token()
    if token is None:
        return [
            Check(
                "GitHub token",
                False,
                f"{settings.token_env} is not set",
                f"put {TOKEN_RIGHTS} in {settings.token_env}",
            )
        ]
    rest = GitHubRest(token, settings.api_url, settings.repository)
    try:
        login = await rest.login()
    except (ServiceRefusal, ServiceWaiting) as no:
        return [
            _failed(
                "GitHub token",
                no,
                f"GitHub refuses the token in {settings.token_env}",
                f"put {TOKEN_RIGHTS} in {settings.token_env}",
            )
        ]
    found = [Check("GitHub token", True, f"the token in {settings.token_env} is {login}'s")]
    try:
        role = await rest.permission(login)
    except (ServiceRefusal, ServiceWaiting) as no:
        return [
            *found,
            _failed(
                "GitHub repository",
                no,
                f"{settings.repository} did not answer",
                f"give {login} write access to {settings.repository}",
            ),
        ]
    if role in WRITES:
        found.append(
            Check("GitHub repository", True, f"{login} has {role} on {settings.repository}")
        )
    else:
        found.append(
            Check(
                "GitHub repository",
                False,
                f"{login} has {role} on {settings.repository}; the room needs write to comment",
                f"give {login} write access to {settings.repository} ({TOKEN_RIGHTS})",
            )
        )
    return found


def _hearing(settings: GitHubSettings) -> Check:
    every = f"polling every {settings.poll_interval:g} s"
    variable = settings.webhook_secret_env
    if variable is None:
        return Check("GitHub comments", True, f"{every} (no webhook secret: no webhooks)")
    if settings.webhook_secret() is None:
        return Check(
            "GitHub comments",
            False,
            f"webhook_secret_env names {variable}, which is not set",
            f"put the webhook's secret in {variable} (or remove webhook_secret_env to poll only)",
        )
    return Check(
        "GitHub comments", True, f"webhooks signed with the secret in {variable}, and {every}"
    )


async def _seats(settings: GitHubSettings) -> Check:
    seat = settings.seat_check
    assert seat is not None
    name = "GitHub seat check"
    rights = (
        f"a token with Administration: read on {seat.org} (a classic token: manage_billing:copilot)"
    )
    token = os.environ.get(seat.token_env) or None
    if token is None:
        return Check(
            name, False, f"{seat.token_env} is not set", f"put {rights} in {seat.token_env}"
        )
    try:
        seats = await GitHubRest(token, settings.api_url).copilot_seats(seat.org)
    except (ServiceRefusal, ServiceWaiting) as no:
        return _failed(
            name,
            no,
            f"the token in {seat.token_env} cannot read {seat.org}'s Copilot seats",
            f"put {rights} in {seat.token_env}",
        )
    return Check(
        name, True, f"the token in {seat.token_env} reads {seat.org}'s Copilot seats ({seats})"
    )


def _failed(name: str, no: ServiceRefusal | ServiceWaiting, said: str, todo: str) -> Check:
    if isinstance(no, ServiceWaiting):
        return Check(name, False, f"GitHub cannot be reached ({no})", "see the server's network")
    return Check(name, False, f"{said} ({no.status}: {no})", todo)
