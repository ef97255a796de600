"""The room's notebook tools as any agent calls them: the card a call asks for (a notebook edit's
shows the notebook, the cell and a before/after diff; a run's, kind `execute`, each cell's code
and the kernel), and the call itself, with the provenance of the turn it belongs to. The Copilot
adapter offers them as SDK tools (`copilot/runtime_callbacks.py`), every other agent as an MCP
server (`notebook_mcp.py`); both go through this one object.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..notebooks import TOOLS, NotebookEditor, NotebookToolError, Provenance
from ..notebooks.outputs import MAX_IMAGES, OutputImage
from .seam import AgentTurn, PermissionAsk


@dataclass(frozen=True)
class ToolOutcome:
    """What a call gave the model: its text, the images a run output, whether it failed."""

    text: str
    images: list[OutputImage] = field(default_factory=list)
    failed: bool = False


def approval_of(tool: str) -> str | None:
    """The room's approval kind a tool needs (None: a read, which asks nobody)."""
    return next((spec.approval for spec in TOOLS if spec.name == tool), None)


class NotebookCalls:
    """One agent's notebook tool calls: `begin_turn` names the turn the next calls belong to."""

    def __init__(self, editor: NotebookEditor):
        self.editor = editor
        self._turn: AgentTurn | None = None
        self._turn_count = 0

    def begin_turn(self, turn: AgentTurn) -> None:
        self._turn = turn
        self._turn_count += 1

    async def describe(self, tool: str, arguments: Any) -> PermissionAsk:
        """The card a call asks for; a call that will fail says so on its card."""
        try:
            summary, details = await self.editor.describe(tool, arguments)
        except NotebookToolError as err:
            summary, details = f"{tool} (it will fail: {err})", {}
        return PermissionAsk(approval_of(tool) or "notebook", summary, details)

    async def call(self, tool: str, arguments: Any, call_id: str) -> ToolOutcome:
        """Run a call; an edit reaches here only once the room approved it."""
        turn = self._turn
        provenance = Provenance(
            prompt_id=turn.prompt_id if turn else "",
            author=turn.author if turn else "",
            turn=self._turn_count,
            tool_call_id=call_id,
            time=time.time(),
            author_name=turn.author_name if turn else "",
        )
        try:
            if tool == "notebook_run_cells":
                ran = await self.editor.run_cells(arguments, provenance)
                return ToolOutcome(ran.text, ran.images[:MAX_IMAGES])
            return ToolOutcome(await self.editor.call(tool, arguments, provenance))
        except NotebookToolError as err:
            return ToolOutcome(str(err), failed=True)
