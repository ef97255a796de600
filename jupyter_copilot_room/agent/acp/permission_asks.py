"""An ACP agent's `session/request_permission` as the room's ask, and the room's answer as the
option the agent offered: the card's kind comes from the tool call's `kind`, its summary is the
command, the path or the URL, and an answer picks an option by its `kind`, never by its id
(agents name them differently: `allow_once`, `allow`). `allow_always` is never chosen: the room's
policies are its memory.

The agent asks too before it calls one of the room's own notebook tools (`notebook_mcp.py`); that
call asks the room's card itself, with the notebook's diff, so the agent's ask is let through
rather than asked twice, but only when it is verifiably that call (`room_tool`): its title is
the agent's text and proves nothing."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from acp import schema

from ..seam import Answer, FileChange, PermissionAsk
from .session_updates import RoomCall

#: ACP's tool kinds as the room's permission kinds (`access/approval_policy.py`).
KINDS = {
    "execute": "shell",
    "edit": "write",
    "delete": "write",
    "move": "write",
    "fetch": "url",
    "read": "read",
    "search": "read",
}


def permission_ask(call: schema.ToolCallUpdate, repository: Path) -> PermissionAsk:
    """The card for `call`, its paths named from the repository as the room names them."""
    kind = KINDS.get(call.kind or "", "custom-tool")
    raw = call.raw_input if isinstance(call.raw_input, dict) else {}
    title = call.title or ""
    diffs = [
        item for item in call.content or () if isinstance(item, schema.FileEditToolCallContent)
    ]
    changes = tuple(FileChange(_shown(d.path, repository), d.old_text, d.new_text) for d in diffs)
    match kind:
        case "shell":
            summary = str(raw.get("command") or title)
            details = {"intention": title if title != summary else ""}
        case "write":
            paths = [c.path for c in changes] or [
                _shown(loc.path, repository) for loc in call.locations or ()
            ]
            summary = ", ".join(paths) or str(raw.get("fileName") or raw.get("path") or title)
            diff = "".join(_unified(change) for change in changes) or str(raw.get("diff") or "")
            details = {"intention": title, "diff": diff}
        case "url":
            summary = str(raw.get("url") or title)
            details = {"intention": title if title != summary else ""}
        case "read":
            paths = [_shown(loc.path, repository) for loc in call.locations or ()]
            summary = ", ".join(paths) or str(raw.get("path") or title)
            details = {"intention": title}
        case _:
            summary = title or call.kind or "a tool"
            details = {"arguments": json.dumps(raw, indent=2, default=str)[:20_000]}
    return PermissionAsk(kind, summary, details, changes, call.tool_call_id)


def room_tool(call: schema.ToolCallUpdate, announced: RoomCall | None) -> bool:
    """Whether the agent asks for `announced`, the call of the room's notebook tool it
    announced in this turn under the session's own server name (which asks the room's card
    itself when called): the same call id, of no kind that acts by itself, the same
    arguments."""
    return (
        announced is not None
        and call.kind in (None, "other")
        and call.title in (None, announced.tool, announced.title)
        and call.raw_input in (None, announced.arguments)
    )


def chosen_option(
    answer: Answer, options: list[schema.PermissionOption]
) -> schema.RequestPermissionResponse:
    """The option of `options` that says the room's answer: allow once, or reject once (an
    agent that offers no reject option, or no allow-once option for an approval, is answered
    `cancelled`: nothing runs)."""
    wanted = ("allow_once",) if answer.approved else ("reject_once", "reject_always")
    option = next((o for kind in wanted for o in options if o.kind == kind), None)
    if option is None:
        return cancelled()
    return schema.RequestPermissionResponse(
        outcome=schema.AllowedOutcome(outcome="selected", option_id=option.option_id)
    )


def cancelled() -> schema.RequestPermissionResponse:
    return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))


def _shown(path: str, repository: Path) -> str:
    """`path` from the repository when it is inside it (as every card names files)."""
    try:
        return Path(path).resolve().relative_to(repository.resolve()).as_posix()
    except ValueError:
        return path


def _unified(change: FileChange) -> str:
    before = (change.before or "").splitlines(keepends=True)
    after = (change.after or "").splitlines(keepends=True)
    old = "/dev/null" if change.before is None else f"a/{change.path}"
    return "".join(difflib.unified_diff(before, after, old, f"b/{change.path}"))
