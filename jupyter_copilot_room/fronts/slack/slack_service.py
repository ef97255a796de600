"""Slack through its own SDK: the Web API (`AsyncWebClient`, at `api_url`) for what the bridge
posts, and Socket Mode (outbound only, so a JupyterHub behind a firewall works) for what people
do, each envelope acknowledged by its `envelope_id` before it is handled. The only module that
imports slack_sdk. A 429 becomes `ServiceWaiting` with its Retry-After; a refused token,
`ServiceRefusal`."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.async_client import AsyncBaseSocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from ..chat.chat_front import ChatFront
from ..chat.chat_service import CardView
from ..reach import ServiceRefusal, ServiceWaiting, retry_seconds
from .block_kit import MESSAGE_TEXT, card_blocks, clicked, fallback_text
from .mrkdwn import fitted, mrkdwn, unescaped

log = logging.getLogger(__name__)


def _one_line(record: logging.LogRecord) -> bool:
    """The SDK logs each failed reconnect with a traceback (every few seconds while Slack is
    away); its message already names the error, so the log gets that line alone."""
    record.exc_info = record.exc_text = None
    return True


#: Socket Mode's own log: what it says while it reconnects, one line each.
socket_log = logging.getLogger(f"{__name__}.socket")
socket_log.addFilter(_one_line)

#: Errors that mean the token is no good: said once, not retried.
BAD_TOKEN = {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
#: Errors that mean the bot cannot post in the channel until someone acts (invites it).
NO_CHANNEL = {"not_in_channel", "channel_not_found", "is_archived"}


class SlackService:
    name = "slack"
    max_text = 3000

    def __init__(self, bot_token: str, app_token: str, api_url: str):
        self.web = AsyncWebClient(token=bot_token, base_url=api_url, timeout=20)
        self._app_token = app_token
        self.socket: SocketModeClient | None = None  # made on the loop that runs it
        self.bot_user = ""

    async def _call(self, method: Callable[..., Awaitable[Any]], **params: Any) -> Any:
        try:
            return await method(**{k: v for k, v in params.items() if v is not None})
        except SlackApiError as failed:
            if failed.response.status_code == 429:
                retry = retry_seconds(failed.response.headers.get("Retry-After"))
                raise ServiceWaiting("rate limited", retry) from None
            error = str(failed.response.get("error", ""))
            raise ServiceRefusal(
                error, token=error in BAD_TOKEN, channel=error in NO_CHANNEL
            ) from None
        except (aiohttp.ClientError, TimeoutError, OSError) as lost:
            raise ServiceWaiting(f"unreachable ({type(lost).__name__})") from None

    async def post(self, channel: str, text: str, thread: str | None = None) -> str:
        sent = await self._call(
            self.web.chat_postMessage, channel=channel, text=shown(text), thread_ts=thread
        )
        return sent["ts"]

    async def update(self, channel: str, message: str, text: str) -> None:
        await self._call(self.web.chat_update, channel=channel, ts=message, text=shown(text))

    async def post_card(self, channel: str, card: CardView, thread: str | None) -> str:
        sent = await self._call(
            self.web.chat_postMessage,
            channel=channel,
            text=fallback_text(card),
            blocks=card_blocks(card),
            thread_ts=thread,
        )
        return sent["ts"]

    async def update_card(self, channel: str, message: str, card: CardView) -> None:
        await self._call(
            self.web.chat_update,
            channel=channel,
            ts=message,
            text=fallback_text(card),
            blocks=card_blocks(card),
        )

    async def whisper(self, channel: str, user: str, text: str, thread: str | None) -> None:
        await self._call(
            self.web.chat_postEphemeral,
            channel=channel,
            user=user,
            text=shown(text),
            thread_ts=thread,
        )

    async def name_of(self, user: str) -> str:
        """`@` and the user's display name in the workspace (`users.info`), else their id."""
        try:
            found = (await self._call(self.web.users_info, user=user))["user"]
        except (ServiceWaiting, ServiceRefusal, KeyError, TypeError):
            return user
        profile = found.get("profile") or {}
        name = profile.get("display_name") or found.get("name") or profile.get("real_name")
        return f"@{name}" if name else user

    async def granted(self) -> tuple[str, frozenset[str]]:
        """Whose the bot token is (`auth.test`) and the scopes Slack granted it, which Slack
        says in every answer's `x-oauth-scopes` header (for `jupyter copilot-room doctor`)."""
        who = await self._call(self.web.auth_test)
        headers = {name.lower(): value for name, value in (who.headers or {}).items()}
        scopes = str(headers.get("x-oauth-scopes", ""))
        bot = str(who.get("user") or who.get("user_id") or "")
        return bot, frozenset(s.strip() for s in scopes.split(",") if s.strip())

    async def socket_opens(self) -> None:
        """Socket Mode takes the app token (`apps.connections.open`), without connecting."""
        await self._call(self.web.apps_connections_open, app_token=self._app_token)

    def channel_id(self, given: str) -> str | None:
        """A public or private channel's id (`C0123ABCD`, `G0123ABCD`), as its details show it."""
        channel = given.strip().upper()
        return channel if re.fullmatch(r"[CG][A-Z0-9]{2,}", channel) else None

    # -- Socket Mode ----------------------------------------------------------------------------

    async def connect(self, front: ChatFront) -> None:
        """Who the bot is (a bad token refuses here), then Socket Mode, which the SDK keeps
        connected (it reconnects by itself)."""
        who = await self._call(self.web.auth_test)
        self.bot_user = who["user_id"]
        # The app token, asked once here: the SDK's own connect retries a refused one forever.
        await self._call(self.web.apps_connections_open, app_token=self._app_token)

        async def heard(client: AsyncBaseSocketModeClient, request: SocketModeRequest) -> None:
            await client.send_socket_mode_response(SocketModeResponse(request.envelope_id))
            front.take(request.type, self._handle(front, request))

        self.socket = SocketModeClient(
            app_token=self._app_token, web_client=self.web, logger=socket_log
        )
        self.socket.socket_mode_request_listeners.append(heard)
        await self.socket.connect()

    async def connected(self) -> bool:
        return self.socket is not None and await self.socket.is_connected()

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()

    async def _handle(self, front: ChatFront, request: SocketModeRequest) -> None:
        if request.type == "events_api":
            await self._event(front, request.payload)
        elif request.type == "interactive" and request.payload.get("type") == "block_actions":
            await self._clicks(front, request.payload)

    async def _event(self, front: ChatFront, payload: dict) -> None:
        event = payload.get("event") or {}
        user, channel = event.get("user", ""), event.get("channel", "")
        text, thread = event.get("text") or "", event.get("thread_ts")
        mention = f"<@{self.bot_user}>"
        if event.get("type") == "app_mention":
            hear, text = front.mention, unescaped(text.replace(mention, "")).strip()
        elif event.get("type") == "message" and _from_a_person(event) and mention not in text:
            hear, text = front.message, unescaped(text)
        else:
            return  # the bot's own posts and edits, joins: nothing to do, nothing to remember
        if front.first_time(str(payload.get("event_id") or "")):  # else Slack delivered it again
            await hear(user, channel, text, thread)

    async def _clicks(self, front: ChatFront, payload: dict) -> None:
        """A button's click or a menu's choice (its `selected_option`): the card and answer."""
        user = (payload.get("user") or {}).get("id", "")
        channel = (payload.get("channel") or {}).get("id", "")
        thread = (payload.get("message") or {}).get("thread_ts")
        for action in payload.get("actions") or ():
            if (named := clicked(action)) is not None:
                await front.click(user, channel, thread, *named)


def _from_a_person(event: dict) -> bool:
    """A person's own message (not an edit, a join or a bot's, the room's own among them)."""
    return bool(event.get("user")) and not event.get("subtype") and not event.get("bot_id")


def shown(text: str) -> str:
    """A message's text (the room's words, a person's, the agent's) as mrkdwn, within Slack's
    limit: the mirror splits a long reply at `max_text`, far below it, and escaping at most
    quintuples a character, so this cut is only a guard."""
    return fitted(mrkdwn, text, MESSAGE_TEXT)
