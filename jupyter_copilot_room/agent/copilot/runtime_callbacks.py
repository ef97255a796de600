"""What the runtime asks of the room during a turn, answered by the room and never by the
adapter: a permission request becomes an approval card (a notebook edit's or run's card shows
the notebook, the cells and the kernel), a question becomes a question card, and a notebook
tool call runs the room's notebook tools with the turn's provenance. The SDK's callback shapes
stay in this module; the room sees only `PermissionAsk`, `QuestionAsk` and plain results.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from copilot.generated.rpc import PermissionDecisionApproveOnce, PermissionDecisionReject
from copilot.tools import Tool, ToolInvocation, ToolResult

from ...notebooks import TOOL_NAMES, TOOLS
from ...notebooks.outputs import OutputImage
from ..notebook_calls import NotebookCalls
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
        editor = settings.notebooks
        self.notebook_calls = NotebookCalls(editor) if editor is not None else None

    def begin_turn(self, turn: AgentTurn) -> None:
        """The turn whose tool calls come next: their provenance names it."""
        if self.notebook_calls is not None:
            self.notebook_calls.begin_turn(turn)

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
        ask: PermissionAsk
        calls = self.notebook_calls
        if getattr(request, "kind", "") == "custom-tool" and request.tool_name in TOOL_NAMES:
            assert calls is not None
            ask = await calls.describe(request.tool_name, request.args)
        else:
            ask = describe_permission(request)
        answer = await self._host().request_permission(ask)
        if answer.approved:
            return PermissionDecisionApproveOnce()
        return PermissionDecisionReject(feedback=answer.text)

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
        assert self.notebook_calls is not None
        outcome = await self.notebook_calls.call(
            invocation.tool_name, invocation.arguments, invocation.tool_call_id
        )
        if outcome.failed:
            return ToolResult(
                text_result_for_llm=outcome.text, result_type="failure", error=outcome.text
            )
        if outcome.images:
            await self._show_images(outcome.images)
        return ToolResult(text_result_for_llm=outcome.text)
