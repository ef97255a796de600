"""The room's REST request bodies.

They reject unknown fields, so a typo is a clear 400 rather than a silently ignored option, and
none of them carries an author: the acting user is always `current_user`. Every text field is
`events.Text`: what cannot round-trip through UTF-8 JSON (a lone surrogate) is a 400, never a
record the transcript cannot hold. The partial settings
body (`SettingsPatch`) is derived from the settings' own declaration in `settings.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, tzinfo
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, ValidationError

from . import export
from .errors import InvalidRequest
from .events import (
    MAX_ATTACHMENTS,
    MAX_CHIPS,
    AdmissionChoice,
    Chip,
    Origin,
    ParticipantRole,
    Strict,
    Target,
    Text,
)

Body = TypeVar("Body", bound=BaseModel)


def validated(model: type[Body], data: Any) -> Body:
    """`data` as `model`, or a clear 400 naming the first field it gets wrong (REST's bodies
    and what a front passes the in-process API are checked alike)."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        raise InvalidRequest(f"{where}: {first['msg']}.", code="invalid_body") from None


class AttachmentRef(Strict):
    """One attachment of a prompt: an uploaded image by `id`, or a repository file by `path`
    (relative to the server's root, inside the repository); `name` is what people see."""

    id: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    path: Text | None = Field(None, min_length=1, max_length=1000)
    name: Text | None = Field(None, max_length=200)


class PromptBody(Strict):
    text: Text
    target: Target | None = None
    # "kernel": sent by the notebook kernel API (the author is still `current_user`); any other
    # value is a 400.
    origin: Origin | None = None
    # What the person points at (the active notebook, selected cells, a file, an output): the
    # room checks each (`notebooks/context.py`) and expands it when the turn starts.
    chips: list[Chip] | None = Field(None, max_length=MAX_CHIPS)
    # Images uploaded first (`POST attachments` -> id) and repository files (path).
    attachments: list[AttachmentRef] | None = Field(None, max_length=MAX_ATTACHMENTS)


class PullBody(Strict):
    """`POST github/pull`: the pull request of the server's repository the room goes on."""

    number: int = Field(ge=1, le=2**31)


class ChannelBody(Strict):
    """`PUT channels/{service}`: the room's channel there (Slack's `C0123ABCD`, Teams'
    `19:...@thread.tacv2`), as the service names it."""

    channel: str = Field(min_length=1, max_length=200, pattern=r"^[^\s/?#]+$")


class ChatBody(Strict):
    """`POST messages`: said to the room; its text is checked like a prompt's."""

    text: Text


class SteerBody(Strict):
    """`POST prompts/<id>/steer`: said into the running turn; checked like a prompt's text."""

    text: Text


class SignInReturnBody(Strict):
    """`POST signin/return`: the address the host's browser landed on after GitHub (a hub's
    browser cannot reach the runtime's listener on the server's 127.0.0.1; the room can)."""

    url: Text = Field(min_length=1, max_length=4000)


class ModelBody(Strict):
    """`PUT model`: the model for the next turns, one of those `GET model` lists."""

    model: Text = Field(min_length=1, max_length=200)


#: An answer to a permission card.
CardDecision = Literal["approve", "reject"]


class ApprovalBody(Strict):
    decision: CardDecision
    feedback: Text | None = Field(None, max_length=2000)


class LinkAnswerBody(Strict):
    """`POST chat-links/asks/{id}`: the code's owner lets the chat user act as them, or not."""

    decision: Literal["allow", "deny"]


class QuestionBody(Strict):
    answer: Text = Field(min_length=1, max_length=20_000)


class RevertBody(Strict):
    """`POST checkpoints/<commit>/revert`: `force` (hosts) reverts a notebook's cells even where
    someone edited them since (what they typed there goes)."""

    force: bool = False


class RoleBody(Strict):
    role: ParticipantRole


class AdmissionBody(Strict):
    decision: AdmissionChoice


class ClaimBody(Strict):
    secret: Text = Field(max_length=200)


class RoomBody(Strict):
    """`POST rooms`: a new room; `room_registry.py` checks the name and folder with clear codes."""

    name: Text = Field(max_length=200)
    repository: Text = Field("", max_length=1000)


# -- side threads (`threads/`) ------------------------------------------------------------


class ThreadBody(Strict):
    """`POST threads`: fork after the turn of the prompt `from` (the latest finished: none)."""

    from_: str | None = Field(None, alias="from", max_length=100)
    title: Text = Field("", max_length=200)


class PersonBody(Strict):
    """`POST threads/<id>/people`: a member of the room joins the thread."""

    username: str = Field(min_length=1, max_length=200)


class ThreadPromptBody(Strict):
    """`POST threads/<id>/prompts`."""

    text: Text


class PromoteBody(Strict):
    """`POST threads/<id>/promote`: as "diff" (a card) or "prompt" (`text`, the last reply)."""

    as_: Literal["diff", "prompt"] = Field(alias="as")
    text: Text = ""


# -- queries --------------------------------------------------------------------------------------

#: Paging (`?before=SEQ&limit=N`): how many records or entries a page holds by default, at most.
PAGE_LIMIT, MAX_PAGE_LIMIT = 100, 1000


@dataclass(frozen=True)
class PageQuery:
    """`?before=SEQ&limit=N`: the page ends just before `before` (default: after the last) and
    holds at most `limit` (default 100, at most 1000); anything else is 400 `invalid_page`."""

    before: int = 2**62
    limit: int = PAGE_LIMIT

    @classmethod
    def of(cls, arguments: Mapping[str, str]) -> PageQuery:
        before = _positive(arguments, "before", cls.before)
        limit = _positive(arguments, "limit", cls.limit)
        if limit > MAX_PAGE_LIMIT:
            raise InvalidRequest(
                f"limit is at most {MAX_PAGE_LIMIT}, not {limit}.", code="invalid_page"
            )
        return cls(before, limit)


def _positive(arguments: Mapping[str, str], name: str, default: int) -> int:
    raw = arguments.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or len(raw) > 18 or int(raw) < 1:
        raise InvalidRequest(
            f"{name} must be a whole number of at least 1, not {raw[:40]!r}.", code="invalid_page"
        )
    return int(raw)


@dataclass(frozen=True)
class TranscriptQuery:
    """`GET transcript`: the whole of it (no arguments), one page (`before`, `limit`), or an
    export (`format=ipynb|md|jsonl`, its times in the IANA zone `tz`, UTC without one)."""

    page: PageQuery | None = None
    format: export.Format | None = None
    tz: tzinfo = UTC

    @classmethod
    def of(cls, arguments: Mapping[str, str]) -> TranscriptQuery:
        fmt = arguments.get("format")
        if fmt is None:
            return cls(page=PageQuery.of(arguments) if arguments else None)
        if {"before", "limit"} & set(arguments):
            raise InvalidRequest(
                "An export is the whole transcript: format cannot go with before or limit.",
                code="invalid_format",
            )
        if fmt not in export.FORMATS:
            raise InvalidRequest(
                f"format is one of {', '.join(export.FORMATS)}, not {fmt[:40]!r}.",
                code="invalid_format",
            )
        try:  # the reader's zone, as the panel shows times (`Intl`'s IANA name)
            tz = export.zone(arguments.get("tz"))
        except ValueError as error:
            raise InvalidRequest(
                f"{error}: tz is an IANA name such as Europe/Paris.", code="invalid_time_zone"
            ) from None
        return cls(format=fmt, tz=tz)
