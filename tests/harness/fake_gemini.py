"""A local fake of the Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`,
streamed as server-sent events as the real one streams: one GenerateContentResponse a `data:`
line, the text in pieces, the last one with the function call, the finish reason and the usage),
for Gemini CLI under ACP in the tests. Each request is answered by the test's `script(request)`:
a text, and optionally one function call. `:generateContent`, which the CLI uses for its own
side questions (routing when its model is "auto", fixing an edit, summaries), gets the same
answer whole: a test pins the model (`GEMINI_MODEL`) so that its turns ask nothing else.
Anything else is a 404 (`:countTokens`, asked only for images, falls back to an estimate)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from tornado.web import RequestHandler

from .fake_service import FakeService, streamed


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
        """Every text of the conversation, in order (the CLI's `<session_context>` first)."""
        contents = self.body.get("contents", [])
        return [p["text"] for c in contents for p in c.get("parts", []) if "text" in p]

    @property
    def tool_results(self) -> list[str]:
        """The results of the last content's function calls (the turn goes on after a tool):
        each one's `output`, or its `error` when the tool failed or was refused."""
        contents = self.body.get("contents") or [{}]
        parts = contents[-1].get("parts", [])
        return [_result(p["functionResponse"]) for p in parts if "functionResponse" in p]


def _result(function_response: dict) -> str:
    response = function_response.get("response") or {}
    found = response.get("output", response.get("error"))
    return found if isinstance(found, str) else json.dumps(response)


class FakeGemini(FakeService):
    """Its `base_url` is what `GOOGLE_GEMINI_BASE_URL` names (the CLI adds /v1beta/models/...)."""

    def __init__(self, script: Callable[[GenerateRequest], Answer]):
        super().__init__()
        self.script = script
        self.requests: list[GenerateRequest] = []

    def routes(self):
        return [(r"/v1beta/models/([^/:]+):(streamGenerateContent|generateContent)", _Generate)]


class _Generate(RequestHandler):
    def initialize(self, owner: FakeGemini) -> None:
        self.owner = owner

    async def post(self, model: str, method: str) -> None:
        request = GenerateRequest(model, json.loads(self.request.body))
        self.owner.requests.append(request)
        answer = self.owner.script(request)
        last = []
        if answer.call:
            last = [{"functionCall": {"name": answer.call.name, "args": answer.call.args}}]
        if method == "generateContent":
            self.finish(_response(model, ([{"text": answer.text}] if answer.text else []) + last))
            return
        self.set_header("Content-Type", "text/event-stream")
        async for piece in streamed(answer.text):
            await self.send(_response(model, [{"text": piece}], final=False))
        await self.send(_response(model, last))
        self.finish()

    async def send(self, response: dict) -> None:
        self.write(f"data: {json.dumps(response)}\r\n\r\n")
        await self.flush()


def _response(model: str, parts: list[dict], final: bool = True) -> dict:
    """A GenerateContentResponse; the final one has the finish reason and the usage."""
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    response = {"candidates": [candidate], "modelVersion": model, "responseId": uuid.uuid4().hex}
    if final:
        candidate["finishReason"] = "STOP"
        usage = {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
        response["usageMetadata"] = usage
    return response
