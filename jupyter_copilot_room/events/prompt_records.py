"""What a prompt is made of and what its life records: its target, context chips and
attachments with their bounds, its submission, start and end, a reply's start, the agent's
readiness."""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from .strict import MessageKind, Strict, Text


class Target(Strict):
    """A skill (`/name`) or a custom agent (`@name`) a prompt is addressed to."""

    kind: Literal["skill", "agent"]
    name: Text = Field(min_length=1, max_length=200)


#: Where a prompt came from when not from a person's panel: a notebook kernel acting with the
#: credentials it was started with (`jupyter_copilot_room.kernel`). The author is still the
#: authenticated user; this only says how they sent it.
Origin = Literal["kernel"]
#: Where a recorded prompt came from: `Origin`, or the front its author acted from (`slack`,
#: `teams`, `github`: the in-process API's `Person.source`), so the panel and an export say
#: "from Slack" as they say "from a notebook kernel". Absent: the author's own panel.
PromptOrigin = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,31}$")]


#: Bounds of what a prompt may carry as context (`Chip`): the room refuses more with a 400.
MAX_CHIPS = 8
MAX_CHIP_CELLS = 50
MAX_CHIP_TEXT = 100_000
MAX_IMAGE_BYTES = 10 * 1024 * 1024


class Chip(Strict):
    """Something a person pointed at, attached to their prompt (`notebooks/context.py`).

    `notebook`: a whole notebook; `cells`: cells of a notebook by id; `file`: a file;
    `selection`: lines `start_line`..`end_line` (1-based) of a file; `output`: one output of a
    notebook cell, captured as the person saw it (`text`, or an image as base64 `data`).
    Notebooks, cells, files and selections are read when the turn starts, the output now. The
    room stores an output's image like an uploaded one and records it by `id` (the sha256 of its
    bytes, in `state_dir/attachments/`) and `bytes`, never `data` (earlier records hold it).
    """

    kind: Literal["notebook", "cells", "file", "selection", "output"]
    path: Text = Field(min_length=1, max_length=1000)
    cell_ids: list[Annotated[str, Field(min_length=1, max_length=100)]] | None = Field(
        None, min_length=1, max_length=MAX_CHIP_CELLS
    )
    start_line: int | None = Field(None, ge=1, le=10_000_000)
    end_line: int | None = Field(None, ge=1, le=10_000_000)
    mime: Literal["text/plain", "image/png", "image/jpeg", "image/gif", "image/webp"] | None = None
    text: Text | None = Field(None, max_length=MAX_CHIP_TEXT)
    # An image's bytes, base64; at most MAX_IMAGE_BYTES once decoded (4/3 as many characters).
    data: str | None = Field(
        None, max_length=(MAX_IMAGE_BYTES + 2) // 3 * 4, pattern=r"^[A-Za-z0-9+/]*={0,2}$"
    )
    id: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    bytes: int | None = None  # set by the room with `id`


#: What a prompt may carry besides its text (`Attachment`, `attachments.py`).
MAX_IMAGES = 4
MAX_ATTACHMENTS = 8
MAX_FILE_BYTES = 1024 * 1024
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class Attachment(Strict):
    """An image or a repository file sent with a prompt, as its record holds it: what it is,
    never its bytes. `image`: `id` is the sha256 of the bytes stored under
    `state_dir/attachments/`; `file`: `path` is inside the repository, read by the agent."""

    kind: Literal["image", "file"]
    id: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    path: Text | None = Field(default=None, min_length=1, max_length=1000)
    name: Text = Field(default="", max_length=200)
    mime: str | None = None
    bytes: int = 0
    width: int | None = None
    height: int | None = None


class PromptSubmitted(Strict):
    id: str
    text: str
    target: Target | None = None
    origin: PromptOrigin | None = None  # absent from older records, and from a panel's prompts
    # Absent from older records and from prompts without any.
    chips: list[Chip] | None = Field(None, max_length=MAX_CHIPS)
    attachments: list[Attachment] | None = Field(None, max_length=MAX_ATTACHMENTS)
    thread: str | None = None  # the side thread it brings back (`threads/`); absent otherwise
    #: True: the turn applies the thread's changes (a card, then the files), no agent in it.
    applies: bool | None = None
    #: The page a front took it from (a pull request's comment), since 0.4; absent otherwise.
    link: str | None = Field(None, max_length=2000)


class PromptRef(Strict):
    id: str


class PromptFinished(Strict):
    id: str
    state: Literal["completed", "failed", "canceled"]
    reason: str | None = None

    def end_line(self, reported: Collection[str]) -> str | None:
        """The line a turn's end adds, in the room and in its exports alike: none for a
        completed turn, nor for a host's abort (its own `abort` line said so), nor for a reason
        the agent reported on the turn (`reported`: its error lines say it)."""
        if self.state == "completed" or self.reason in reported:
            return None
        if self.reason:
            return self.reason
        return None if self.state == "canceled" else f"The turn was {self.state}."


class AssistantStarted(Strict):
    """The first streamed piece of a message arrived: fixes the entry's place in the transcript.
    `agent`: the title of the agent that speaks, when it is not the room's own Copilot (an ACP
    agent a host chose), so the reply is labelled by who wrote it, also after another switch."""

    entry_id: str
    prompt_id: str
    kind: MessageKind = "assistant"
    agent: str | None = None


class AgentReady(Strict):
    """The agent can take turns, as `label` (a model, or the demo model); `detail` says more."""

    label: str
    detail: str = ""
