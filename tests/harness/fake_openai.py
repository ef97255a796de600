"""A local fake of OpenAI's Responses API (`POST /v1/responses`, streamed as server-sent events as
the real one streams: response.created, an output item with its text deltas, the item whole,
response.completed), for Codex under ACP in the tests (Codex speaks no other wire API). Each
request is answered by the test's `script(request)`: a text, or a function call (its arguments
streamed as the real API streams them). Anything else is a 404."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from .fake_service import EventStream, FakeService, streamed


@dataclass(frozen=True)
class FunctionCall:
    name: str
    arguments: dict


@dataclass
class ResponsesRequest:
    body: dict

    @property
    def texts(self) -> list[str]:
        """Every user text of the conversation, in order."""
        return [
            part.get("text", "")
            for item in self.body.get("input", [])
            if item.get("type") == "message" and item.get("role") == "user"
            for part in item.get("content", [])
            if part.get("type") == "input_text"
        ]

    @property
    def tool_results(self) -> list[str]:
        """The outputs of the function calls since the last user message."""
        outputs: list[str] = []
        for item in self.body.get("input", []):
            if item.get("type") == "message" and item.get("role") == "user":
                outputs = []
            elif item.get("type") == "function_call_output":
                output = item.get("output")
                outputs.append(output if isinstance(output, str) else json.dumps(output))
        return outputs


class FakeOpenAI(FakeService):
    """Its `base_url` is a provider's `base_url` for Codex (`/v1`; Codex adds /responses)."""

    def __init__(self, script: Callable[[ResponsesRequest], str | FunctionCall]):
        super().__init__()
        self.script = script
        self.requests: list[ResponsesRequest] = []

    @property
    def base_url(self) -> str:
        return f"{super().base_url}/v1"

    def routes(self):
        return [(r"/v1/responses", _Responses)]


class _Responses(EventStream):
    def initialize(self, owner: FakeOpenAI) -> None:
        self.owner = owner

    async def post(self) -> None:
        request = ResponsesRequest(json.loads(self.request.body))
        self.owner.requests.append(request)
        answer = self.owner.script(request)
        response = {"id": "resp_" + uuid.uuid4().hex[:12], "object": "response"}
        self.set_header("Content-Type", "text/event-stream")
        await self.event("response.created", {"response": {**response, "status": "in_progress"}})
        if isinstance(answer, FunctionCall):
            whole = await self.call(answer)
        else:
            whole = await self.message(answer)
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}}
        usage |= {"output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0}}
        usage["total_tokens"] = 110
        completed = {**response, "status": "completed", "output": [whole], "usage": usage}
        await self.event("response.completed", {"response": completed})
        self.finish()

    async def call(self, call: FunctionCall) -> dict:
        item = {"id": "fc_" + uuid.uuid4().hex[:12], "type": "function_call"}
        item |= {"call_id": "call_" + uuid.uuid4().hex[:12], "name": call.name}
        arguments = json.dumps(call.arguments)
        await self.event(
            "response.output_item.added",
            {"output_index": 0, "item": {**item, "arguments": "", "status": "in_progress"}},
        )
        at = {"item_id": item["id"], "output_index": 0}
        await self.event("response.function_call_arguments.delta", {**at, "delta": arguments})
        await self.event("response.function_call_arguments.done", {**at, "arguments": arguments})
        whole = {**item, "arguments": arguments, "status": "completed"}
        await self.event("response.output_item.done", {"output_index": 0, "item": whole})
        return whole

    async def message(self, text: str) -> dict:
        item = {"id": "msg_" + uuid.uuid4().hex[:12], "type": "message", "role": "assistant"}
        await self.event(
            "response.output_item.added",
            {"output_index": 0, "item": {**item, "status": "in_progress", "content": []}},
        )
        async for piece in streamed(text):
            delta = {"item_id": item["id"], "output_index": 0, "content_index": 0}
            await self.event("response.output_text.delta", {**delta, "delta": piece})
        whole = {**item, "status": "completed"}
        whole["content"] = [{"type": "output_text", "text": text, "annotations": []}]
        await self.event("response.output_item.done", {"output_index": 0, "item": whole})
        return whole
