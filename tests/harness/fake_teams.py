"""A local fake of Microsoft Teams' side of a bot, so the tests drive the room's Teams bridge over
the real wire protocols, with no network and no Azure app registration: the Bot Connector's REST
API (v3, what the Agents SDK's `ConnectorClient` calls: send, reply, update, create a 1:1), Bot
Framework's OpenID metadata and JWKS (the keys of the JWTs Teams sends with each activity), and
Entra ID's token endpoint, where MSAL gets the bot's client-credentials token (over HTTPS, with
a throwaway self-signed certificate, since MSAL takes only https authorities). Tests read what
the bot posted (`sent`, `message`, `thread`, `personal`), make people mention, message and click
a card (`mention`, `personal_message`, `submit`, or any `deliver`ed activity with a right or
wrong `token_for`), and inject faults (`fail_next`, `rate_limit`).

Like the connector, it refuses what Teams refuses (`refused` keeps each): a card not valid under
the Adaptive Cards 1.5 schema or with more actions than the renderer shows (400, checked in
Python by `teams_cards.refusal`, quick enough for every card), and a message over the
published size (413 `MessageSizeTooBig`)."""

from __future__ import annotations

import json
import secrets
import shutil
import ssl
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from tornado.httpclient import AsyncHTTPClient
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets
from tornado.web import Application, RequestHandler

from jupyter_copilot_room.agent.scripted_model import LocalService
from jupyter_copilot_room.fronts.teams import limits

from . import teams_cards
from .certificates import self_signed
from .fake_service import FakeService

ISSUER = "https://api.botframework.com"
CONNECTOR_SCOPE = "https://api.botframework.com/.default"
KEY_ID = "fake-key-1"
TEAM_ID = "19:team@thread.tacv2"
DELIVERED = {200, 201, 202}  # the room's endpoint took the activity


class FakeTeams(FakeService):
    """One tenant with one bot (`app_id`, its `secret`; in conversations `bot_id`, `bot_name`).
    The connector and Bot Framework's metadata are served over http on `base_url`; Entra ID's
    login over https on its own port (`login_url`), trusted through `ca_file`."""

    def __init__(
        self,
        app_id: str = "00000000-0000-0000-0000-00000000b0e7",
        tenant: str = "11111111-2222-3333-4444-555555555555",
        secret: str = "teams-secret",
        bot_id: str = "28:bot",
        bot_name: str = "Copilot room",
    ):
        super().__init__()
        self.app_id = app_id
        self.tenant = tenant
        self.secret = secret
        self.bot_id = bot_id
        self.bot_name = bot_name
        self.sent: list[dict] = []  # every connector call that succeeded, in order
        self.refused: list[dict] = []  # each message it refused: its body, `status` and `why`
        self.delivered: list[dict] = []  # every activity delivered to the room, in order
        self.access_tokens: set[str] = set()  # those the login issued: the connector takes them
        self.tokens_issued = 0
        self.limited = 0  # connector calls answered 429
        self.ca_file = ""
        self._messages: dict[str, dict] = {}  # id -> the bot's message (its current version)
        self._threads: dict[str, str] = {}  # id of any activity seen -> its conversation id
        self._faults: list[tuple[int, float | None]] = []  # (status, Retry-After) of next calls
        self._clock = 1_700_000_000_000  # Teams' message ids are epoch milliseconds
        self._key: rsa.RSAPrivateKey | None = None
        self._forger: rsa.RSAPrivateKey | None = None
        self._login = _Login(self)
        self._ca_dir: str | None = None

    def start(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._ca_dir = tempfile.mkdtemp(prefix="fake-teams-")
        certificate, context = self_signed(Path(self._ca_dir), "login")
        self.ca_file = str(certificate)
        super().start()
        self._login.start_tls(context)

    async def stop(self) -> None:
        await self._login.stop()
        await super().stop()
        if self._ca_dir is not None:
            shutil.rmtree(self._ca_dir, ignore_errors=True)
            self._ca_dir = None

    @property
    def service_url(self) -> str:
        """The connector's base URL: the `serviceUrl` of every activity."""
        return f"{self.base_url}/teams/"

    @property
    def openid_url(self) -> str:
        return f"{self.base_url}/botframework/v1/.well-known/openidconfiguration"

    @property
    def jwks_url(self) -> str:
        return f"{self.base_url}/botframework/v1/.well-known/keys"

    @property
    def login_url(self) -> str:
        """Entra ID's instance: MSAL's authority is `login_url + tenant`."""
        return f"https://127.0.0.1:{self._login.port}/"

    def routes(self) -> list[tuple[str, type[RequestHandler]]]:
        return [
            (r"/botframework/v1/\.well-known/openidconfiguration", _OpenId),
            (r"/botframework/v1/\.well-known/keys", _Keys),
            (r"/teams/v3/conversations/?", _Conversations),
            (r"/teams/v3/conversations/([^/]+)/activities/?", _Activities),
            (r"/teams/v3/conversations/([^/]+)/activities/([^/]+)/?", _Activity),
        ]

    def handlers(self) -> list[tuple[str, type[RequestHandler]]]:
        return [*self.routes(), (r".*", _NotFound)]  # the connector's answer, not the shared 404

    # -- what the bot did

    def message(self, activity_id: str) -> dict:
        """The current version (after updates) of the bot's message `activity_id`."""
        return self._messages[activity_id]

    def thread(self, channel: str, root: str) -> list[dict]:
        """The bot's messages in the thread of `root` in `channel`, in order (the root too, if
        the bot posted it)."""
        return self._in(f"{channel};messageid={root}")

    def personal(self, member_id: str) -> list[dict]:
        """The bot's messages in its 1:1 conversation with `member_id` ("29:...")."""
        return self._in(_personal(member_id))

    def _in(self, conversation: str) -> list[dict]:
        return [m for m in self._messages.values() if m["conversation_id"] == conversation]

    # -- faults

    def fail_next(self, times: int = 1, status: int = 502) -> None:
        """The next `times` connector calls are answered `status`."""
        self._faults.extend([(status, None)] * times)

    def rate_limit(self, seconds: float, times: int = 1) -> None:
        """The next `times` connector calls are answered 429, `Retry-After: seconds` (written as
        given: "2", or "0.5" for a fraction, which real Teams never sends)."""
        self._faults.extend([(429, seconds)] * times)

    # -- Bot Framework's tokens

    def token_for(
        self,
        service_url: str | None = None,
        audience: str | None = None,
        forged: bool = False,
        expired: bool = False,
    ) -> str:
        """A JWT as Bot Framework signs one for a call to this bot from `service_url`; `forged`:
        signed by a key the JWKS does not hold (under the same kid); `expired`: 2 hours ago."""
        assert self._key is not None and self._forger is not None, "FakeTeams is not started"
        now = int(time.time())
        issued, expires = (now - 3 * 3600, now - 2 * 3600) if expired else (now, now + 3600)
        claims = {"iss": ISSUER, "aud": audience or self.app_id}
        claims |= {"serviceurl": service_url or self.service_url}
        claims |= {"nbf": issued, "iat": issued, "exp": expires}
        key = self._forger if forged else self._key
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": KEY_ID})

    def jwk(self) -> dict:
        """The public key of the tokens, as Bot Framework's JWKS lists it."""
        assert self._key is not None, "FakeTeams is not started"
        jwk = RSAAlgorithm.to_jwk(self._key.public_key(), as_dict=True)
        jwk |= {"kid": KEY_ID, "kty": "RSA", "use": "sig", "alg": "RS256"}
        return jwk | {"endorsements": ["msteams"]}

    # -- people acting in Teams

    async def mention(
        self,
        endpoint: str,
        user: str,
        channel: str,
        text: str,
        reply_to: str | None = None,
        activity_id: str | None = None,
    ) -> dict:
        """`user` @mentions the bot in `channel`: a new post, or a reply in the thread of
        `reply_to`. `activity_id` delivers an id again (as a duplicate). Returns the activity."""
        activity = self._activity(user, activity_id)
        at = f"<at>{self.bot_name}</at>"
        activity |= {"text": f"{at} {text}", "textFormat": "plain"}
        mentioned = {"id": self.bot_id, "name": self.bot_name}
        activity["entities"] = [{"type": "mention", "mentioned": mentioned, "text": at}]
        activity["conversation"] = self._channel(channel, reply_to or activity["id"])
        activity["channelData"] |= {"channel": {"id": channel}, "team": {"id": TEAM_ID}}
        if reply_to is not None:
            activity["replyToId"] = reply_to
        return await self._delivered(endpoint, activity)

    async def reply(self, endpoint: str, user: str, channel: str, root: str, text: str) -> dict:
        """`user` replies in the thread of `root` without mentioning the bot (Teams delivers
        it to a bot with the ChannelMessage.Read.Group permission). Returns the activity."""
        activity = self._activity(user) | {"text": text, "textFormat": "plain", "replyToId": root}
        activity["conversation"] = self._channel(channel, root)
        activity["channelData"] |= {"channel": {"id": channel}, "team": {"id": TEAM_ID}}
        return await self._delivered(endpoint, activity)

    async def personal_message(self, endpoint: str, user: str, text: str) -> dict:
        """`user` writes to the bot in their 1:1 chat. Returns the activity."""
        activity = self._activity(user) | {"text": text, "textFormat": "plain"}
        conversation = {"id": _personal(f"29:{user}"), "conversationType": "personal"}
        activity["conversation"] = conversation | {"tenantId": self.tenant}
        return await self._delivered(endpoint, activity)

    async def submit(
        self, endpoint: str, user: str, channel: str, card_message: str, root: str, value: dict
    ) -> dict:
        """`user` clicks an Action.Submit of the card in the bot's message `card_message`, in the
        thread of `root` in `channel`: the action's data (and the card's inputs) are `value`.
        Returns the activity."""
        activity = self._activity(user) | {"value": value, "replyToId": card_message}
        activity["conversation"] = self._channel(channel, root)
        activity["channelData"] |= {"channel": {"id": channel}, "team": {"id": TEAM_ID}}
        activity["channelData"]["source"] = {"name": "message"}
        return await self._delivered(endpoint, activity)

    async def deliver(
        self, endpoint: str, activity: dict, token: str | None = None, body: bytes | None = None
    ) -> int:
        """POSTs `activity` to the room's messaging `endpoint` as Teams does, with `token` (by
        default a valid one for the activity's serviceUrl), or `body` instead of its JSON.
        Returns the HTTP status."""
        bearer = token if token is not None else self.token_for(activity.get("serviceUrl"))
        headers = {"Authorization": f"Bearer {bearer}", "Content-Type": "application/json"}
        self.delivered.append(activity)
        if activity.get("id") and activity.get("conversation"):
            self._threads.setdefault(activity["id"], activity["conversation"].get("id", ""))
        answer = await AsyncHTTPClient().fetch(
            endpoint,  # as written: a base URL's `%40` stays, as Teams sends it
            method="POST",
            body=json.dumps(activity) if body is None else body,
            headers=headers,
            raise_error=False,
            request_timeout=30,
        )
        return answer.code

    async def _delivered(self, endpoint: str, activity: dict) -> dict:
        status = await self.deliver(endpoint, activity)
        if status not in DELIVERED:
            raise AssertionError(f"fake Teams: the room's endpoint answered {status}")
        return activity

    def _activity(self, user: str, activity_id: str | None = None) -> dict:
        """What every message activity from `user` has."""
        now = datetime.now(UTC)
        activity: dict[str, Any] = {"type": "message", "id": activity_id or self.next_id()}
        activity["timestamp"] = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond:06d}Z"
        activity |= {"serviceUrl": self.service_url, "channelId": "msteams", "locale": "en-US"}
        activity["from"] = {"id": f"29:{user}", "name": user.title(), "aadObjectId": f"aad-{user}"}
        activity["recipient"] = {"id": self.bot_id, "name": self.bot_name}
        activity["channelData"] = {"tenant": {"id": self.tenant}}
        return activity

    def _channel(self, channel: str, root: str) -> dict:
        conversation = {"id": f"{channel};messageid={root}", "conversationType": "channel"}
        return conversation | {"tenantId": self.tenant, "isGroup": True}

    def next_id(self) -> str:
        """A new message id, later than every one before."""
        self._clock += 1
        return str(self._clock)

    # -- the connector's operations: each records the call and answers (status, JSON)

    def _post(
        self, verb: str, conversation: str, activity_id: str | None, body: dict
    ) -> tuple[int, dict]:
        """send (into `conversation`) or reply (to `activity_id`, in its thread)."""
        if not _known_conversation(conversation):
            return 404, _error("ConversationNotFound", "Conversation not found.")
        if (refused := self._refused(body)) is not None:
            return refused
        thread = conversation
        if conversation.startswith("19:") and ";messageid=" not in conversation:
            if activity_id is None:  # a new post: the root of its own thread
                thread = None
            else:
                thread = self._threads.get(activity_id, f"{conversation};messageid={activity_id}")
        new_id = self.next_id()
        self._record(verb, conversation, activity_id, body, made=new_id)
        self._store(new_id, thread or f"{conversation};messageid={new_id}", body)
        return 201, {"id": new_id}

    def _update(self, conversation: str, activity_id: str, body: dict) -> tuple[int, dict]:
        if activity_id not in self._messages:
            return 404, _error("NotFound", f"The activity {activity_id} was not found.")
        if (refused := self._refused(body)) is not None:
            return refused
        self._record("update", conversation, activity_id, body)
        where = self._messages[activity_id]["conversation_id"]
        self._messages[activity_id] = {**body, "id": activity_id, "conversation_id": where}
        return 200, {"id": activity_id}

    def _refused(self, body: dict) -> tuple[int, dict] | None:
        """The connector's answer to a message Teams would not take, or None."""
        if (why := teams_cards.refusal(body)) is not None:
            answer = (400, _error("BadArgument", why))
        elif limits.size(body) > limits.MESSAGE_BYTES:
            said = f"The message is over {limits.MESSAGE_BYTES} bytes (UTF-16)."
            answer = (413, _error("MessageSizeTooBig", said))
        else:
            return None
        self.refused.append({"status": answer[0], "why": answer[1]["error"]["message"]} | body)
        return answer

    def _create(self, body: dict) -> tuple[int, dict]:
        """A 1:1 with one member ("29:..."), as the connector creates one for a bot."""
        members = body.get("members") or []
        if len(members) != 1 or not str(members[0].get("id", "")).startswith("29:"):
            return 400, _error("BadArgument", "Incorrect conversation creation parameters.")
        if body.get("isGroup"):
            return 400, _error("BadArgument", "A 1:1 conversation is not a group.")
        conversation = _personal(members[0]["id"])
        self._record("create", conversation, None, body)
        return 201, {"id": conversation}

    def _record(
        self,
        verb: str,
        conversation: str,
        activity_id: str | None,
        body: dict,
        made: str | None = None,
    ) -> None:
        """`made`: the id of the message a send or a reply made."""
        call = {"verb": verb, "conversation": conversation, "activity_id": activity_id}
        call |= {"made": made} if made else {}
        self.sent.append(call | {"body": body})

    def _store(self, new_id: str, conversation_id: str, body: dict) -> None:
        self._threads[new_id] = conversation_id
        if body.get("type", "message") == "message":  # not typing indicators and the like
            self._messages[new_id] = {**body, "id": new_id, "conversation_id": conversation_id}


def _personal(member_id: str) -> str:
    """The id of the bot's 1:1 conversation with `member_id`."""
    return f"a:personal-{member_id}"


def _known_conversation(conversation: str) -> bool:
    """A channel ("19:...", with or without a thread) or a 1:1 with a member."""
    return conversation.startswith(("19:", "a:personal-29:"))


def _error(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


# -- Bot Framework's metadata and keys


class _OpenId(RequestHandler):
    def initialize(self, owner: FakeTeams) -> None:
        self.owner = owner

    def get(self) -> None:
        metadata = {"issuer": ISSUER, "jwks_uri": self.owner.jwks_url}
        metadata["id_token_signing_alg_values_supported"] = ["RS256"]
        metadata["token_endpoint_auth_signing_alg_values_supported"] = ["RS256"]
        self.finish(metadata)


class _Keys(RequestHandler):
    def initialize(self, owner: FakeTeams) -> None:
        self.owner = owner

    def get(self) -> None:
        self.finish({"keys": [self.owner.jwk()]})


# -- the connector


class _Connector(RequestHandler):
    """A connector call: its faults first, then it needs a token the login issued."""

    def initialize(self, owner: FakeTeams) -> None:
        self.owner = owner

    def prepare(self) -> None:
        fake = self.owner
        if fake._faults:
            status, retry_after = fake._faults.pop(0)
            if status == 429:
                fake.limited += 1
                self.set_header("Retry-After", f"{retry_after:g}")
                self._answer(429, _error("TooManyRequests", "Too many requests."))
            else:
                self._answer(status, _error("ServiceError", f"Fake Teams answered {status}."))
            return
        scheme, _, token = self.request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or token not in fake.access_tokens:
            self._answer(401, _error("Unauthorized", "Authorization has been denied."))

    def body(self) -> dict | None:
        """The call's JSON object, or None (having answered 400)."""
        try:
            body = json.loads(self.request.body or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._answer(400, _error("BadSyntax", "The body is not a JSON object."))
            return None
        return body

    def _answer(self, status: int, answer: dict) -> None:
        self.set_status(status)
        self.finish(answer)


class _Conversations(_Connector):
    def post(self) -> None:
        body = self.body()
        if body is not None:
            self._answer(*self.owner._create(body))


class _Activities(_Connector):
    def post(self, conversation: str) -> None:  # tornado has unquoted the path's parts
        body = self.body()
        if body is not None:
            self._answer(*self.owner._post("send", conversation, None, body))


class _Activity(_Connector):
    def post(self, conversation: str, activity_id: str) -> None:
        body = self.body()
        if body is not None:
            self._answer(*self.owner._post("reply", conversation, activity_id, body))

    def put(self, conversation: str, activity_id: str) -> None:
        body = self.body()
        if body is not None:
            self._answer(*self.owner._update(conversation, activity_id, body))


class _NotFound(RequestHandler):
    def initialize(self, owner: FakeTeams) -> None:
        pass

    def prepare(self) -> None:
        self.set_status(404)
        self.finish(_error("NotFound", "Fake Teams has no such resource."))


# -- Entra ID's login (over TLS)


class _Login(LocalService):
    """Entra ID's OpenID metadata and token endpoint for the bot's tenant, on its own port,
    over TLS; each handler's `owner` is the FakeTeams."""

    def __init__(self, teams: FakeTeams):
        super().__init__()
        self.teams = teams

    def handlers(self) -> list[tuple[str, type[RequestHandler]]]:
        return [
            (r"/([^/]+)/v2\.0/\.well-known/openid-configuration", _LoginMetadata),
            (r"/([^/]+)/oauth2/v2\.0/token", _LoginToken),
            (r".*", _LoginNotFound),
        ]

    def start_tls(self, context: ssl.SSLContext) -> None:
        """As `LocalService.start`, serving TLS with `context`."""
        app = Application([(pattern, h, {"owner": self.teams}) for pattern, h in self.handlers()])
        sockets = bind_sockets(0, "127.0.0.1")
        self.port = sockets[0].getsockname()[1]
        self._server = HTTPServer(app, ssl_options=context)
        self._server.add_sockets(sockets)


class _LoginHandler(RequestHandler):
    def initialize(self, owner: FakeTeams) -> None:
        self.owner = owner

    def refuse(self, status: int, error: str, description: str) -> None:
        self.set_status(status)
        self.finish({"error": error, "error_description": description})

    def known(self, tenant: str) -> bool:
        """Whether `tenant` is the fake's (having answered 400 if not)."""
        if tenant != self.owner.tenant:
            self.refuse(400, "invalid_tenant", f"AADSTS90002: Tenant '{tenant}' not found.")
        return tenant == self.owner.tenant


class _LoginMetadata(_LoginHandler):
    def get(self, tenant: str) -> None:
        if not self.known(tenant):
            return
        base = f"{self.owner.login_url}{tenant}"
        metadata = {"issuer": f"{base}/v2.0", "jwks_uri": f"{base}/discovery/v2.0/keys"}
        metadata["token_endpoint"] = f"{base}/oauth2/v2.0/token"
        metadata["authorization_endpoint"] = f"{base}/oauth2/v2.0/authorize"
        metadata["device_authorization_endpoint"] = f"{base}/oauth2/v2.0/devicecode"
        metadata["end_session_endpoint"] = f"{base}/oauth2/v2.0/logout"
        metadata["token_endpoint_auth_methods_supported"] = ["client_secret_post"]
        metadata["response_types_supported"] = ["code", "id_token", "code id_token"]
        metadata["subject_types_supported"] = ["pairwise"]
        metadata["id_token_signing_alg_values_supported"] = ["RS256"]
        metadata["scopes_supported"] = ["openid", "profile", "email", "offline_access"]
        metadata["tenant_region_scope"] = None
        self.finish(metadata)


class _LoginToken(_LoginHandler):
    def post(self, tenant: str) -> None:
        if not self.known(tenant):
            return
        fake = self.owner
        grant = self.get_body_argument("grant_type", "")
        if grant != "client_credentials":
            self.refuse(400, "unsupported_grant_type", f"AADSTS70003: '{grant}' unsupported.")
            return
        app_id = self.get_body_argument("client_id", "")
        secret = self.get_body_argument("client_secret", "")
        if app_id != fake.app_id:
            message = f"AADSTS700016: Application with identifier '{app_id}' was not found."
            self.refuse(400, "unauthorized_client", message)
            return
        if secret != fake.secret:
            message = "AADSTS7000215: Invalid client secret provided."
            self.refuse(401, "invalid_client", message)
            return
        if CONNECTOR_SCOPE not in self.get_body_argument("scope", "").split():
            message = "AADSTS70011: The provided value for the input parameter 'scope' is invalid."
            self.refuse(400, "invalid_scope", message)
            return
        token = secrets.token_urlsafe(32)
        fake.access_tokens.add(token)
        fake.tokens_issued += 1
        answer = {"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600}
        self.finish(answer | {"access_token": token})


class _LoginNotFound(_LoginHandler):
    def prepare(self) -> None:
        self.refuse(404, "not_found", "Fake Entra ID has no such endpoint.")
