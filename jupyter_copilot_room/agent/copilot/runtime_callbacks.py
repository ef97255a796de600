"""What the runtime asks of the room during a turn, answered by the room and never by the
adapter: a permission request becomes an approval card (a notebook edit's or run's card shows
the notebook, the cells and the kernel), a question becomes a question card, and a notebook
tool call runs the room's notebook tools with the turn's provenance. The SDK's callback shapes
stay in this module; the room sees only `PermissionAsk`, `QuestionAsk` and plain results.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from copilot.generated.rpc import PermissionDecisionApproveOnce, PermissionDecisionReject
from copilot.tools import Tool, ToolInvocation, ToolResult

from ...notebooks import TOOL_NAMES, TOOLS, NotebookToolError, Provenance
from ...notebooks.outputs import MAX_IMAGES, OutputImage
from ..seam import AgentHost, AgentSettings, AgentTurn, PermissionAsk, QuestionAsk
from .describe import describe_permission


class RuntimeCallbacks:
    """The session's `on_permission_request`, `on_user_input_request` and notebook tools.
    `host()` is the room now, `show_images` sends a run's images into the running turn."""

    def __init__(
        self,
        settings: AgentSettings,
        host: Callable[[], AgentHost],
        show_images: Callable[[list[OutputImage]], Awaitable[None]],
    ):
        self.settings = settings
        self._host = host
        self._show_images = show_images
        self._turn: AgentTurn | None = None
        self._turn_count = 0

    def begin_turn(self, turn: AgentTurn) -> None:
        """The turn whose tool calls come next: their provenance names it."""
        self._turn = turn
        self._turn_count += 1

    def tools(self) -> list[Tool]:
        """The notebook tools as SDK tools; an edit asks permission first, a read does not."""
        return [
            Tool(
                spec.name,
                spec.description,
                self._run_notebook_tool,
                parameters=spec.parameters,
                skip_permission=spec.approval is None,
            )
            for spec in TOOLS
        ]

    async def on_permission(self, request: Any, invocation: Any) -> Any:
        if getattr(request, "kind", "") == "custom-tool" and request.tool_name in TOOL_NAMES:
            ask = await self._describe_notebook_call(request)
        else:
            ask = describe_permission(request)
        answer = await self._host().request_permission(ask)
        if answer.approved:
            return PermissionDecisionApproveOnce()
        return PermissionDecisionReject(feedback=answer.text)

    async def _describe_notebook_call(self, request: Any) -> PermissionAsk:
        """A notebook edit's card (the notebook, the cell, a before/after diff) or a run's (kind
        `execute`: the code of each cell and which kernel)."""
        assert self.settings.notebooks is not None
        kind = next(s.approval for s in TOOLS if s.name == request.tool_name) or "notebook"
        try:
            summary, details = await self.settings.notebooks.describe(
                request.tool_name, request.args
            )
        except NotebookToolError as err:
            summary, details = f"{request.tool_name} (it will fail: {err})", {}
        return PermissionAsk(kind, summary, details)

    async def on_user_input(self, request: Any, invocation: Any) -> dict[str, Any]:
        ask = QuestionAsk(
            question=request.get("question", ""),
            choices=tuple(request.get("choices") or ()),
            allow_freeform=request.get("allowFreeform", True),
        )
        answer = await self._host().ask_question(ask)
        return {"answer": answer.text, "wasFreeform": answer.text not in ask.choices}

    async def _run_notebook_tool(self, invocation: ToolInvocation) -> ToolResult:
        """A notebook tool call; edits reach here only after the room approved them."""
        assert self.settings.notebooks is not None
        turn = self._turn
        provenance = Provenance(
            prompt_id=turn.prompt_id if turn else "",
            author=turn.author if turn else "",
            turn=self._turn_count,
            tool_call_id=invocation.tool_call_id,
            time=time.time(),
            author_name=turn.author_name if turn else "",
        )
        try:
            if invocation.tool_name == "notebook_run_cells":
                ran = await self.settings.notebooks.run_cells(invocation.arguments, provenance)
                if ran.images:
                    await self._show_images(ran.images[:MAX_IMAGES])
                return ToolResult(text_result_for_llm=ran.text)
            text = await self.settings.notebooks.call(
                invocation.tool_name, invocation.arguments, provenance
            )
        except NotebookToolError as err:
            return ToolResult(text_result_for_llm=str(err), result_type="failure", error=str(err))
        return ToolResult(text_result_for_llm=text)
