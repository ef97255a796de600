"""A local fake of Anthropic's Messages API (`POST /v1/messages`, streamed as server-sent events
as the real one streams: message_start, content blocks with their deltas, message_delta,
message_stop), for Claude Code under ACP in the tests. Each request is answered by the test's
`script(request)`: a text, and optionally one tool call (its input streamed as JSON deltas).
Anything else the client asks for is a 404."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from .fake_service import EventStream, FakeService, streamed


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: dict


@dataclass(frozen=True)
class Answer:
    text: str = ""
    tool: ToolUse | None = None


@dataclass
class MessagesRequest:
    body: dict
    texts: list[str] = field(default_factory=list)  # every text of the conversation, in order

    @property
    def tool_results(self) -> list[str]:
        """The results of the last message's tool calls (the turn goes on after a tool)."""
        content = self.body["messages"][-1]["content"]
        blocks = content if isinstance(content, list) else []
        return [_text(b.get("content")) for b in blocks if b.get("type") == "tool_result"]


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or () if isinstance(b, dict))


class FakeAnthropic(FakeService):
    """Its `base_url` is what `ANTHROPIC_BASE_URL` names (Claude Code adds /v1/messages)."""

    def __init__(self, script: Callable[[MessagesRequest], Answer]):
        super().__init__()
        self.script = script
        self.requests: list[MessagesRequest] = []

    def routes(self):
        return [(r"/v1/messages", _Messages)]


class _Messages(EventStream):
    def initialize(self, owner: FakeAnthropic) -> None:
        self.owner = owner

    async def post(self) -> None:
        body = json.loads(self.request.body)
        texts = [_text(m.get("content")) for m in body.get("messages", [])]
        request = MessagesRequest(body, texts)
        self.owner.requests.append(request)
        answer = self.owner.script(request)
        # As the real API says it: the cache's counts too (without them claude-agent-acp says
        # its context's size as null, which the ACP schema refuses).
        usage = {"input_tokens": 100, "output_tokens": 10}
        usage |= {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        stop = "tool_use" if answer.tool else "end_turn"
        if not body.get("stream"):
            content = [{"type": "text", "text": answer.text}] if answer.text else []
            self.finish(
                {
                    "id": "msg_" + uuid.uuid4().hex[:12],
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model"),
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                }
            )
            return
        self.set_header("Content-Type", "text/event-stream")
        message = {"id": "msg_" + uuid.uuid4().hex[:12], "type": "message", "role": "assistant"}
        message |= {"model": body.get("model"), "content": [], "stop_reason": None}
        await self.event("message_start", {"message": {**message, "usage": usage}})
        index = 0
        if answer.text:
            await self.block(index, {"type": "text", "text": ""}, "text_delta", "text", answer.text)
            index += 1
        if answer.tool:
            start = {"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:12]}
            start |= {"name": answer.tool.name, "input": {}}
            arguments = json.dumps(answer.tool.input)
            await self.block(index, start, "input_json_delta", "partial_json", arguments)
        await self.event(
            "message_delta",
            {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 10}},
        )
        await self.event("message_stop", {})
        self.finish()

    async def block(self, index: int, start: dict, kind: str, key: str, whole: str) -> None:
        await self.event("content_block_start", {"index": index, "content_block": start})
        async for piece in streamed(whole):
            delta = {"type": kind, key: piece}
            await self.event("content_block_delta", {"index": index, "delta": delta})
        await self.event("content_block_stop", {"index": index})
