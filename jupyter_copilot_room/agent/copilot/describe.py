"""What a person must see to decide: the exact command, path or URL, and why.

Whole: the room cuts what a card shows and says how much it hid (`room/cards/card_content.py`).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..seam import FileChange, PermissionAsk


def describe_permission(request: Any) -> PermissionAsk:
    """A runtime permission request (the SDK's `PermissionRequest*` types) as the room's ask,
    with the tool call it is for (so a refused call reads as refused, not as failed)."""
    return replace(_described(request), call_id=getattr(request, "tool_call_id", None))


def _described(request: Any) -> PermissionAsk:
    kind = getattr(request, "kind", "unknown")
    intention = getattr(request, "intention", "") or ""
    match kind:
        case "shell":
            return PermissionAsk(
                "shell",
                request.full_command_text,
                {"intention": intention, "warning": request.warning or ""},
            )
        case "write":
            return PermissionAsk(
                "write",
                request.file_name,
                {"intention": intention, "diff": request.diff or ""},
                tuple(_change(edit) for edit in getattr(request, "file_edits", None) or ()),
            )
        case "url":
            return PermissionAsk("url", request.url, {"intention": intention})
        case "read":
            return PermissionAsk("read", request.path, {"intention": intention})
        case "mcp":
            return PermissionAsk(
                "mcp",
                f"{request.server_name}: {request.tool_title}",
                {"tool": request.tool_name, "arguments": _json(request.args)},
            )
        case "custom-tool":
            return PermissionAsk(
                "custom-tool", request.tool_name, {"arguments": _json(request.args)}
            )
        case _:
            return PermissionAsk(kind, intention or kind, {})


def _change(edit: Any) -> FileChange:
    """A `PermissionWriteFileEdit`: at least one side is there (a move has two paths; the room
    shows it under the new one)."""
    before, after = edit.before, edit.after
    path = (after or before).path
    return FileChange(
        path, None if before is None else before.content, None if after is None else after.content
    )


def _json(value: Any) -> str:
    try:
        return json.dumps(value)
    except TypeError:
        return str(value)
