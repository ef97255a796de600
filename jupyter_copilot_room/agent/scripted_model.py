"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1.

The Copilot runtime accepts a bring-your-own-key provider and then speaks plain chat completions
(`POST /v1/chat/completions`, streamed as server-sent events). Pointing it at this server drives
the REAL runtime without any account: demo mode uses it with the demo script below, and tests use
it with scripts of their own. A script is a function from the request the runtime sent to the
reply the "model" gives: text to stream and/or tool calls.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict
    id: str = field(default_factory=lambda: "call_" + uuid.uuid4().hex[:12])


@dataclass(frozen=True)
class Reply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    chunk_size: int = 6
    delay: float = 0.02  # seconds between streamed chunks
    # A model endpoint having a bad day, for the fault tests: an HTTP error status instead of a
    # reply, the connection closed after this many streamed text chunks, or no byte at all.
    status: int = 200
    cut_after: int | None = None
    hang: bool = False


@dataclass
class ModelRequest:
    """One chat-completions request as the runtime sent it."""

    body: dict

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", {}).get("name", "") for t in self.body.get("tools", [])]

    @property
    def system(self) -> str:
        return "\n".join(text_of(m) for m in self.messages if m.get("role") == "system")

    @property
    def last_user(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return text_of(users[-1]) if users else ""

    @property
    def prompt(self) -> str:
        """The latest user message without the tags the runtime wraps it in (date, context)."""
        return strip_runtime_tags(self.last_user)

    @property
    def tool_results(self) -> list[str]:
        """Results of the tool calls answered since the model last spoke. Messages said into
        the running turn (steering, a run's images) may follow them; a new prompt, which the
        runtime stamps with `<current_datetime>`, ends them."""
        results = []
        for message in reversed(self.messages):
            role = message.get("role")
            if role == "assistant" or (role == "user" and NEW_PROMPT in text_of(message)):
                break
            if role == "tool":
                results.append(text_of(message))
        return results[::-1]

    @property
    def last_tool_calls(self) -> list[str]:
        """Names of the tools the model called in its latest turn."""
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                return [
                    c.get("function", {}).get("name", "") for c in message.get("tool_calls") or []
                ]
        return []

    def user_texts(self) -> list[str]:
        return [text_of(m) for m in self.messages if m.get("role") == "user"]


#: The tag the runtime opens each new prompt's message with.
NEW_PROMPT = "<current_datetime>"


def strip_runtime_tags(text: str) -> str:
    return re.sub(r"<([a-z_]+)>.*?</\1>", "", text, flags=re.DOTALL).strip()


def text_of(message: dict) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


Script = Callable[[ModelRequest], Reply]


class LocalService:
    """An HTTP service on a free port of 127.0.0.1, on the running or current event loop:
    `handlers()` are its `(pattern, handler)`s, each handler given `owner=self` (the tests' fakes
    of other providers are ones too)."""

    def __init__(self) -> None:
        self._server: HTTPServer | None = None
        self.port: int | None = None

    def handlers(self) -> list[tuple[str, type[RequestHandler]]]:
        raise NotImplementedError

    def start(self) -> None:
        app = Application([(pattern, h, {"owner": self}) for pattern, h in self.handlers()])
        sockets = bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self._server = HTTPServer(app)
        self._server.add_sockets(sockets)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            await self._server.close_all_connections()
            self._server = None


class ScriptedModelServer(LocalService):
    def __init__(self, script: Script, model: str = "scripted-model"):
        super().__init__()
        self.script = script
        self.model = model
        self.requests: list[ModelRequest] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def handlers(self) -> list[tuple[str, type[RequestHandler]]]:
        return [(r"/v1/chat/completions", _Completions), (r"/v1/models", _Models)]


class _Models(RequestHandler):
    def initialize(self, owner: ScriptedModelServer) -> None:
        self.owner = owner

    def get(self) -> None:
        self.finish({"object": "list", "data": [{"id": self.owner.model, "object": "model"}]})


class _Completions(RequestHandler):
    def initialize(self, owner: ScriptedModelServer) -> None:
        self.owner = owner
        self._closed = asyncio.Event()

    def on_connection_close(self) -> None:
        self._closed.set()

    async def post(self) -> None:
        request = ModelRequest(json.loads(self.request.body or b"{}"))
        self.owner.requests.append(request)
        # It answers as the model asked for, as an OpenAI endpoint does (usage names it).
        self._model = request.body.get("model") or self.owner.model
        reply = self.owner.script(request)
        if reply.hang:
            await self._closed.wait()  # until the client gives up, or the server stops
            return
        if reply.status != 200:
            self.set_status(reply.status)
            self.finish({"error": {"message": f"scripted failure {reply.status}"}})
            return
        if request.body.get("stream"):
            await self._stream(reply, request)
        else:
            self.finish(self._whole(reply))

    def _chunk(self, delta: dict, finish: str | None = None, **extra) -> dict:
        return {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": self._model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }

    async def _stream(self, reply: Reply, request: ModelRequest) -> None:
        self._id = "chatcmpl-" + uuid.uuid4().hex[:12]
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("Cache-Control", "no-cache")
        await self._send(self._chunk({"role": "assistant", "content": ""}))
        for n, start in enumerate(range(0, len(reply.text), reply.chunk_size)):
            if n == reply.cut_after:
                self.request.connection.close()  # type: ignore[union-attr]
                return
            await asyncio.sleep(reply.delay)
            await self._send(self._chunk({"content": reply.text[start : start + reply.chunk_size]}))
        for index, call in enumerate(reply.tool_calls):
            await self._send(
                self._chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call.id,
                                "type": "function",
                                "function": {
                                    "name": call.name,
                                    "arguments": json.dumps(call.arguments),
                                },
                            }
                        ]
                    }
                )
            )
        finish = "tool_calls" if reply.tool_calls else "stop"
        await self._send(self._chunk({}, finish, usage=_usage(request, reply)))
        self.write("data: [DONE]\n\n")
        self.finish()

    async def _send(self, chunk: dict) -> None:
        self.write(f"data: {json.dumps(chunk)}\n\n")
        await self.flush()

    def _whole(self, reply: Reply) -> dict:
        message: dict = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in reply.tool_calls
            ]
        return {
            "id": "chatcmpl-" + uuid.uuid4().hex[:12],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self._model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
        }


def _usage(request: ModelRequest, reply: Reply) -> dict:
    """A rough token count (characters / 4), so usage accounting has numbers to carry."""
    prompt = sum(len(text_of(m)) for m in request.messages) // 4 + 1
    completion = len(reply.text) // 4 + len(reply.tool_calls) * 10 + 1
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
