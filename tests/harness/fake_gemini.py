"""A local fake of the Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`,
streamed as server-sent events as the real one streams: one GenerateContentResponse a `data:`
line, the text in pieces, then the function call and the finish reason with the usage), for
Gemini CLI under ACP in the tests. Each request is answered by the test's `script(request)`: a
text, and optionally one function call. `:generateContent` (the CLI's side questions, such as
a session's title) gets the same answer whole; `:countTokens` an estimate. Anything else is a
404."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from tornado.web import RequestHandler

from .fake_service import FakeService


@dataclass(frozen=True)
class FunctionCall:
    name: str
    args: dict


@dataclass(frozen=True)
class Answer:
    text: str = ""
    call: FunctionCall | None = None


@dataclass
class GenerateRequest:
    model: str
    body: dict

    @property
    def texts(self) -> list[str]:
        """Every text of the conversation, in order (the CLI's own context ones too)."""
        contents = self.body.get("contents", [])
        return [p["text"] for c in contents for p in c.get("parts", []) if "text" in p]

    @property
    def tool_results(self) -> list[str]:
        """The results of the last content's function calls (the turn goes on after a tool):
        each response's `output`, or its `error` when the tool failed or was refused."""
        contents = self.body.get("contents") or [{}]
        responses = [p["functionResponse"] for p in contents[-1].get("parts", [])
                     if "functionResponse" in p]  # fmt: skip
        return [_output(r.get("response") or {}) for r in responses]


def _output(response: dict) -> str:
    found = response.get("output", response.get("error"))
    return found if isinstance(found, str) else json.dumps(response)


class FakeGemini(FakeService):
    """Its `base_url` is what `GOOGLE_GEMINI_BASE_URL` names (the CLI adds /v1beta/models/...)."""

    def __init__(self, script: Callable[[GenerateRequest], Answer]):
        super().__init__()
        self.script = script
        self.requests: list[GenerateRequest] = []

    def routes(self):
        return [(r"/v1beta/models/([^/:]+):(\w+)", _Models)]


class _Models(RequestHandler):
    def initialize(self, owner: FakeGemini) -> None:
        self.owner = owner

    async def post(self, model: str, method: str) -> None:
        body = json.loads(self.request.body or b"{}")
        if method == "countTokens":
            self.finish({"totalTokens": len(json.dumps(body)) // 4})
            return
        if method not in ("streamGenerateContent", "generateContent"):
            self.send_error(404)
            return
        request = GenerateRequest(model, body)
        self.owner.requests.append(request)
        answer = self.owner.script(request)
        parts = [{"text": answer.text}] if answer.text else []
        if answer.call:
            parts.append({"functionCall": {"name": answer.call.name, "args": answer.call.args}})
        if method == "generateContent":
            self.finish(self.response(model, parts))
            return
        self.set_header("Content-Type", "text/event-stream")
        text, rest = (answer.text, parts[1:]) if answer.text else ("", parts)
        for at in range(0, len(text), 12):
            await self.send(self.response(model, [{"text": text[at : at + 12]}], last=False))
            await asyncio.sleep(0.005)
        await self.send(self.response(model, rest))
        self.finish()

    def response(self, model: str, parts: list[dict], last: bool = True) -> dict:
        """A GenerateContentResponse; only the last one has the finish reason and the usage."""
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
        response = {"candidates": [candidate], "modelVersion": model}
        response["responseId"] = uuid.uuid4().hex[:16]
        if last:
            candidate["finishReason"] = "STOP"
            usage = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
            response["usageMetadata"] = usage
        return response

    async def send(self, response: dict) -> None:
        self.write(f"data: {json.dumps(response)}\r\n\r\n")
        await self.flush()
