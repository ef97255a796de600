"""A local fake of Slack, so the tests drive the room's Slack bridge through Slack's own Python SDK
(`AsyncWebClient`, the aiohttp `SocketModeClient`) as against Slack, with no network and no app:
the Web API methods the bridge calls (`/api/<method>`, form or JSON bodies, a bearer token, Slack's
`{"ok": false, "error": ...}` answers, a 429 with `Retry-After`), and Socket Mode's websocket (its
hello, events_api and interactive envelopes, their acknowledgements). It refuses what Slack
refuses: blocks that slack_sdk's own models (`slack_sdk.models.blocks`) reject or that repeat an
`action_id` or `block_id` (`invalid_blocks`), a text over Slack's 40,000 characters
(`msg_too_long`). Tests read what was posted (`messages`, `ephemerals`, `calls`, and `markup`:
the Slack markup that would be live in it), make users mention, message and click a button or
choose in a menu (`mention`, `message_event`, `click`), and inject faults (`rate_limit`, a wrong
token, `drop`)."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block
from tornado.web import RequestHandler
from tornado.websocket import WebSocketHandler

from .fake_service import FakeService

APP_ID = "A0TEST"
BOT_ID = "B0BOT"
UNKNOWN = {"ok": False, "error": "unknown_method"}
#: Slack's limits, as its docs publish them (not the room's constants: the fake checks those).
MAX_TEXT = 40_000  # chat.postMessage: "msg_too_long"
MAX_BLOCKS = 50  # a message's blocks
#: Slack's markup in a text: a mention (`<@U1>`), a channel (`<#C1>`), a special one
#: (`<!channel>`, `<!here>`), a link (`<https://x|words>`), which notify or disguise.
SLACK_MARKUP = re.compile(r"<[!@#][^>]*>|<[a-z][a-z0-9+.-]*:[^>]*>", re.I)


class FakeSlack(FakeService):
    """One workspace (`team`) with one app: its bot (`bot_user`, `bot_token`) and its Socket Mode
    (`app_token`). The SDK's `base_url` is `api_url`."""

    def __init__(
        self,
        bot_token: str = "xoxb-test",
        app_token: str = "xapp-test",
        team: str = "T0TEST",
        bot_user: str = "UBOT",
    ):
        super().__init__()
        self.bot_token = bot_token
        self.app_token = app_token
        self.team = team
        self.bot_user = bot_user
        self.messages: list[dict] = []
        self.ephemerals: list[dict] = []
        self.calls: list[tuple[str, dict]] = []  # (method, params) of every Web API call
        self.limited: list[str] = []  # the method of every call answered 429
        self.acks: list[str] = []  # every envelope_id the socket clients acknowledged
        self.connections: list[_Link] = []  # the open Socket Mode connections, oldest first
        self.connections_opened = 0
        self.tickets: set[str] = set()  # issued by apps.connections.open
        self.away = False  # while True, Socket Mode cannot be reached (see drop)
        self.refused = 0  # socket connections refused while away
        #: (method, error, what is wrong) of every message refused as Slack refuses it
        self.rejected: list[tuple[str, str, str]] = []
        self.outside: set[str] = set()  # channels the bot is not in: its posts there are refused
        #: user id -> display name, as `users.info` gives them (others: `user_not_found`)
        self.users: dict[str, str] = {}
        #: What the bot token was granted, as Slack says it in `x-oauth-scopes` (the manifest's)
        self.scopes = ["app_mentions:read", "chat:write", "channels:history", "groups:history"]
        self.scopes += ["im:history", "users:read"]
        self._limits: dict[str, list[int]] = {}  # method -> Retry-After of its next 429s
        self._clock = 0
        self._methods: dict[str, Callable[[dict], dict]] = {
            "auth.test": self._auth_test,
            "apps.connections.open": self._connections_open,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.postEphemeral": self._post_ephemeral,
            "users.info": self._users_info,
        }

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    def routes(self):
        return [(r"/api/([A-Za-z.]+)", _Api), (r"/link/", _Link)]

    def handlers(self):
        return [*self.routes(), (r".*", _Unknown)]  # Slack's answer, not the fakes' shared 404

    async def stop(self) -> None:
        await self.drop()
        await super().stop()

    # -- test state and faults

    def thread(self, ts: str) -> list[dict]:
        """The bot's replies in the thread of `ts`, in order."""
        return [m for m in self.messages if m["thread_ts"] == ts]

    def message(self, ts: str) -> dict:
        return next(m for m in self.messages if m["ts"] == ts)

    def rate_limit(self, method: str, seconds: float, times: int = 1) -> None:
        """The next `times` calls of `method` are answered 429, `Retry-After: seconds`."""
        self._limits.setdefault(method, []).extend([max(0, round(seconds))] * times)

    def ts(self) -> str:
        """A new timestamp, later than every one before (Slack's ids of messages)."""
        self._clock += 1
        micros = self._clock * 100
        return f"{1_700_000_000 + micros // 1_000_000}.{micros % 1_000_000:06d}"

    # -- Socket Mode

    async def connected(self, timeout: float = 10) -> None:
        """Until a socket client is connected (and has had its hello)."""
        await self._until(lambda: bool(self.connections), timeout, "no Socket Mode client")

    async def acked(self, envelope_id: str, timeout: float = 5) -> None:
        await self._until(lambda: envelope_id in self.acks, timeout, f"no ack of {envelope_id}")

    async def drop(self, stay_away: bool = False) -> None:
        """Every socket connection is lost (closed with no close frame), as a network drop.
        With `stay_away`, Socket Mode stays unreachable until `come_back`: the SDK reconnects
        within a second otherwise, quicker than anyone could see the outage."""
        self.away = stay_away
        for link in list(self.connections):
            link.abort()

    def come_back(self) -> None:
        self.away = False

    async def mention(
        self,
        user: str,
        channel: str,
        text: str,
        thread_ts: str | None = None,
        event_id: str | None = None,
        retry_attempt: int = 0,
    ) -> str:
        """`user` mentions the bot in `channel` (in the thread of `thread_ts`): an `app_mention`
        event, delivered again as Slack's retry if given the `event_id` and a `retry_attempt`.
        Returns the event_id."""
        event = self._event("app_mention", user, channel, f"<@{self.bot_user}> {text}", thread_ts)
        return await self._events_api(event, event_id, retry_attempt)

    async def message_event(
        self,
        user: str,
        channel: str,
        text: str,
        thread_ts: str | None = None,
        channel_type: str = "channel",
    ) -> str:
        """`user` writes in `channel` (a DM: channel_type "im", a "D..." channel): a `message`
        event. Returns the event_id."""
        event = self._event("message", user, channel, text, thread_ts)
        return await self._events_api(event | {"channel_type": channel_type})

    async def click(
        self, user: str, message_ts: str, action_id: str, value: str, channel: str
    ) -> str:
        """`user` clicks the button `action_id` (its `value`) on the message `message_ts`, or in
        the menu `action_id` chooses the option whose value is `value`, as Slack sends either
        (a menu's choice as its `selected_option`). Returns the envelope_id."""
        container: dict[str, Any] = {"type": "message", "message_ts": message_ts}
        container |= {"channel_id": channel, "is_ephemeral": False}
        payload: dict[str, Any] = {"type": "block_actions"}
        payload["user"] = {"id": user, "username": user, "name": user, "team_id": self.team}
        payload |= {"api_app_id": APP_ID, "token": "x", "container": container}
        payload["trigger_id"] = f"{self._clock}.{secrets.randbelow(10**12)}.{secrets.token_hex(16)}"
        payload |= {"team": {"id": self.team, "domain": "fake"}, "enterprise": None}
        payload |= {"is_enterprise_install": False, "channel": {"id": channel, "name": channel}}
        stored = [m for m in self.messages if m["ts"] == message_ts and m["channel"] == channel]
        if stored:
            payload["message"] = self._wire(stored[0])
        else:  # an ephemeral message: Slack sends no copy of it
            container["is_ephemeral"] = True
        payload["state"] = {"values": {}}
        block_id, element = _element(stored[0]["blocks"] if stored else None, action_id)
        action = {"type": element["type"], "action_id": action_id, "block_id": block_id}
        if element["type"] == "static_select":
            action["selected_option"] = _option(element, value)
            action["placeholder"] = element.get("placeholder")
        else:
            action |= {"value": value, "text": element.get("text")}
        action["action_ts"] = f"{time.time():.6f}"
        payload["actions"] = [action]
        return await self._send({"type": "interactive", "payload": payload})

    def markup(self) -> list[str]:
        """Every piece of Slack markup in what the bot posted, edits and whispers included, in
        any text field of its blocks too: each would notify people or disguise a link."""
        texts: list[str] = []
        for message in self.messages:
            for text, blocks in message["versions"]:
                texts += [text, *_texts(blocks)]
        for ephemeral in self.ephemerals:
            texts += [ephemeral["text"], *_texts(ephemeral["blocks"])]
        return [found for text in texts for found in SLACK_MARKUP.findall(text)]

    def _event(self, kind: str, user: str, channel: str, text: str, thread_ts: str | None) -> dict:
        ts = self.ts()
        event = {"type": kind, "user": user, "text": text, "ts": ts, "team": self.team}
        event |= {"client_msg_id": str(uuid.uuid4()), "channel": channel, "event_ts": ts}
        return event if thread_ts is None else event | {"thread_ts": thread_ts}

    async def _events_api(
        self, event: dict, event_id: str | None = None, retry_attempt: int = 0
    ) -> str:
        event_id = event_id or "Ev" + secrets.token_hex(5).upper()
        payload = {"token": "x", "team_id": self.team, "api_app_id": APP_ID, "event": event}
        payload |= {"type": "event_callback", "event_id": event_id, "event_time": int(time.time())}
        who = {"enterprise_id": None, "team_id": self.team, "user_id": self.bot_user}
        payload["authorizations"] = [who | {"is_bot": True, "is_enterprise_install": False}]
        payload |= {"is_ext_shared_channel": False, "event_context": "4-" + secrets.token_hex(8)}
        retry = {"retry_attempt": retry_attempt, "retry_reason": "timeout" if retry_attempt else ""}
        await self._send({"type": "events_api", "payload": payload, **retry})
        return event_id

    async def _send(self, envelope: dict) -> str:
        """Sends `envelope` to the newest connection (waiting for one); returns its envelope_id."""
        await self.connected()
        envelope_id = str(uuid.uuid4())
        envelope = {"envelope_id": envelope_id, "accepts_response_payload": False, **envelope}
        await self.connections[-1].write_message(json.dumps(envelope))
        return envelope_id

    async def _until(self, done: Callable[[], bool], timeout: float, failure: str) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not done():
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"fake Slack: {failure} after {timeout}s")
            await asyncio.sleep(0.01)

    # -- the Web API methods: each takes the call's params and answers its JSON

    def _auth_test(self, params: dict) -> dict:
        answer = {"ok": True, "url": "https://fake.slack.example/", "team": "Fake"}
        answer |= {"user": "room-bot", "team_id": self.team, "user_id": self.bot_user}
        return answer | {"bot_id": BOT_ID, "is_enterprise_install": False}

    def _users_info(self, params: dict) -> dict:
        user = params.get("user", "")
        if user not in self.users:
            return {"ok": False, "error": "user_not_found"}
        name = self.users[user]
        profile = {"display_name": name, "real_name": name.title()}
        return {"ok": True, "user": {"id": user, "name": name.lower(), "profile": profile}}

    def _connections_open(self, params: dict) -> dict:
        ticket = secrets.token_hex(16)
        self.tickets.add(ticket)
        return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link/?ticket={ticket}"}

    def _post_message(self, params: dict) -> dict:
        if not params.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        text, blocks = params.get("text"), _blocks(params.get("blocks"))
        if not text and not blocks:
            return {"ok": False, "error": "no_text"}
        if refusal := _refusal(text, blocks):
            return refusal
        message = {"channel": params["channel"], "ts": self.ts()}
        message |= {"thread_ts": params.get("thread_ts") or None, "text": text or ""}
        message |= {"blocks": blocks, "user": self.bot_user, "versions": [(text or "", blocks)]}
        self.messages.append(message)
        answer = {"ok": True, "channel": message["channel"], "ts": message["ts"]}
        return answer | {"message": self._wire(message)}

    def _update(self, params: dict) -> dict:
        channel, ts = params.get("channel"), params.get("ts")
        found = [m for m in self.messages if m["ts"] == ts and m["channel"] == channel]
        if not found:
            return {"ok": False, "error": "message_not_found"}
        message = found[0]
        if refusal := _refusal(params.get("text"), _blocks(params.get("blocks"))):
            return refusal
        if "text" in params:  # what is left out stays as it was (as Slack keeps it)
            message["text"] = params["text"] or ""
        if "blocks" in params:
            message["blocks"] = _blocks(params["blocks"])
        message["versions"].append((message["text"], message["blocks"]))
        answer = {"ok": True, "channel": channel, "ts": ts, "text": message["text"]}
        return answer | {"message": self._wire(message)}

    def _post_ephemeral(self, params: dict) -> dict:
        if not params.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        if not params.get("user"):
            return {"ok": False, "error": "user_not_in_channel"}
        if refusal := _refusal(params.get("text"), _blocks(params.get("blocks"))):
            return refusal
        ts = self.ts()
        ephemeral = {"channel": params["channel"], "user": params["user"], "ts": ts}
        ephemeral |= {"text": params.get("text") or "", "blocks": _blocks(params.get("blocks"))}
        self.ephemerals.append(ephemeral | {"thread_ts": params.get("thread_ts") or None})
        return {"ok": True, "message_ts": ts}

    def _wire(self, message: dict) -> dict:
        """`message` as Slack shows a bot's message."""
        wire = {"type": "message", "user": self.bot_user, "bot_id": BOT_ID, "app_id": APP_ID}
        wire |= {"text": message["text"], "ts": message["ts"], "team": self.team}
        if message["blocks"] is not None:
            wire["blocks"] = message["blocks"]
        if message["thread_ts"]:
            wire["thread_ts"] = message["thread_ts"]
        return wire


def _blocks(blocks: Any) -> list | None:
    """Blocks as given: a list, or its JSON (as a form sends it); None if none."""
    return json.loads(blocks) if isinstance(blocks, str) and blocks else blocks or None


def _refusal(text: str | None, blocks: list | None) -> dict | None:
    """Slack's answer to a message it will not take, or None."""
    if text and len(text) > MAX_TEXT:
        return {"ok": False, "error": "msg_too_long"}
    if blocks is not None and (wrong := _invalid(blocks)):
        return {"ok": False, "error": "invalid_blocks", "response_metadata": {"messages": [wrong]}}
    return None


def _invalid(blocks: list) -> str | None:
    """What is wrong with `blocks`, as Slack checks them: slack_sdk's models (a block's kind,
    its fields, every length and count they know), at most 50 blocks, every `block_id` and
    `action_id` once, no empty text."""
    if not isinstance(blocks, list) or len(blocks) > MAX_BLOCKS:
        return f"a message holds a list of at most {MAX_BLOCKS} blocks"
    ids: list[str] = []
    for n, given in enumerate(blocks):
        parsed = Block.parse(given) if isinstance(given, dict) else None
        if parsed is None:
            return f"[{n}] is no block Slack knows"
        try:
            parsed.validate_json()
            shown = parsed.to_dict()  # validates what the block holds too
        except SlackObjectFormationError as wrong:
            return f"[{n}] {wrong}"
        if shown != given:
            return f"[{n}] has fields Slack does not know: {given}"
        if any(not text.strip() for text in _texts([given])):
            return f"[{n}] has an empty text"
        ids += [given["block_id"]] if "block_id" in given else []
        ids += [e["action_id"] for e in given.get("elements", ()) if "action_id" in e]
    if repeated := sorted({i for i in ids if ids.count(i) > 1}):
        return f"ids used twice in one message: {repeated}"
    return None


def _texts(found: Any) -> list[str]:
    """Every text field in blocks (sections, buttons, options, placeholders), at any depth."""
    if isinstance(found, dict):
        own = [found["text"]] if isinstance(found.get("text"), str) else []
        return own + [t for key, v in found.items() if key != "text" or not own for t in _texts(v)]
    if isinstance(found, list):
        return [t for item in found for t in _texts(item)]
    return []


def _element(blocks: list | None, action_id: str) -> tuple[str, dict]:
    """The block_id and the element a click on `action_id` is on (for an ephemeral message,
    which the fake does not keep, a button); one the message does not show cannot be clicked."""
    if blocks is None:
        return "b", {"type": "button"}
    for block in blocks:
        for element in block.get("elements", ()):
            if element.get("action_id") == action_id:
                return block.get("block_id", ""), element
    raise ValueError(f"the message shows no element {action_id!r} to click")


def _option(menu: dict, value: str) -> dict:
    """The option of `menu` whose value is `value` (a person can choose no other)."""
    groups = menu.get("option_groups", ())
    options = menu.get("options") or [o for g in groups for o in g["options"]]
    found = [o for o in options if o["value"] == value]
    if not found:
        raise ValueError(f"the menu {menu['action_id']!r} has no option of value {value!r}")
    return found[0]


class _Api(RequestHandler):
    def initialize(self, owner: FakeSlack) -> None:
        self.owner = owner

    async def post(self, method: str) -> None:
        self.finish(self._answer(method))

    async def get(self, method: str) -> None:
        self.finish(self._answer(method))

    def _answer(self, method: str) -> dict:
        fake = self.owner
        params = {k: v[-1].decode() for k, v in self.request.query_arguments.items()}
        if self.request.headers.get("Content-Type", "").startswith("application/json"):
            params |= json.loads(self.request.body or b"{}")
        else:
            params |= {k: v[-1].decode() for k, v in self.request.body_arguments.items()}
        bearer = self.request.headers.get("Authorization", "")
        token = bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else None
        token = params.pop("token", None) or token  # Slack also takes it as a parameter
        fake.calls.append((method, params))
        if method not in fake._methods:
            return UNKNOWN
        if fake._limits.get(method):
            fake.limited.append(method)
            self.set_status(429)
            self.set_header("Retry-After", str(fake._limits[method].pop(0)))
            return {"ok": False, "error": "ratelimited"}
        wanted = fake.app_token if method == "apps.connections.open" else fake.bot_token
        if token != wanted:
            return {"ok": False, "error": "invalid_auth"}
        granted = ["connections:write"] if token == fake.app_token else fake.scopes
        self.set_header("x-oauth-scopes", ",".join(granted))  # as Slack says it on each answer
        if method.startswith("chat.") and params.get("channel") in fake.outside:
            return {"ok": False, "error": "not_in_channel"}
        answer = fake._methods[method](params)
        if answer.get("error") in ("invalid_blocks", "msg_too_long"):
            why = answer.get("response_metadata", {}).get("messages", [""])[0]
            fake.rejected.append((method, answer["error"], why))
        return answer


class _Unknown(RequestHandler):
    def initialize(self, owner: FakeSlack) -> None:
        pass

    def prepare(self) -> None:
        self.finish(UNKNOWN)


class _Link(WebSocketHandler):
    """One Socket Mode connection: hello on open; what the client sends back are acks."""

    def initialize(self, owner: FakeSlack) -> None:
        self.owner = owner

    def check_origin(self, origin: str) -> bool:
        return True

    async def get(self, *args: Any, **kwargs: Any) -> None:
        if self.owner.away:
            self.owner.refused += 1
            self.set_status(503)
            self.finish()
            return
        if self.get_query_argument("ticket", "") not in self.owner.tickets:
            self.set_status(401)
            self.finish({"ok": False, "error": "invalid_ticket"})
            return
        await super().get(*args, **kwargs)

    def open(self, *args: str, **kwargs: str) -> None:
        hello = {"type": "hello", "num_connections": len(self.owner.connections) + 1}
        hello["debug_info"] = {"host": "fake", "approximate_connection_time": 3600}
        hello["connection_info"] = {"app_id": APP_ID}
        self.write_message(json.dumps(hello))
        self.owner.connections.append(self)
        self.owner.connections_opened += 1

    def on_message(self, message: str | bytes) -> None:
        try:
            data = json.loads(message)
        except ValueError:
            return
        if isinstance(data, dict) and data.get("envelope_id"):
            self.owner.acks.append(data["envelope_id"])

    def on_close(self) -> None:
        if self in self.owner.connections:
            self.owner.connections.remove(self)

    def abort(self) -> None:
        """The connection is cut: no close frame, the socket just goes. It is gone for the fake
        at once: waiting for Tornado's close callback timed out once on a loaded CI machine."""
        self.on_close()
        if self.ws_connection is not None and self.ws_connection.stream is not None:
            self.ws_connection.stream.close()
