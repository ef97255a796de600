"""Teams through the Microsoft 365 Agents SDK: its Bot Connector client (`ConnectorClient`, at
the service URL Teams last called from) for what the bridge posts, and its `Activity` model for
what Teams delivers to the messaging endpoint. The only module that imports the SDK. A 429
becomes `ServiceWaiting` with its Retry-After; a refused token, `ServiceRefusal`.

Teams has no ephemeral messages in channels: what Slack whispers, Teams says in a one-to-one
chat with the person (in the thread, naming them, when the bot cannot open one).

Every text it posts goes through `plain_text` here, at the edge: the bridge hands it raw text."""

from __future__ import annotations

import asyncio
import html
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote

import aiohttp
from microsoft_agents.activity import (
    Activity,
    Attachment,
    ConversationParameters,
)
from microsoft_agents.hosting.core import ConnectorClient

from ..chat.chat_front import ChatFront
from ..chat.chat_service import CardView
from ..reach import ServiceRefusal, ServiceWaiting, retry_seconds
from . import limits, plain_text
from .adaptive_cards import card_attachment, clicked
from .bot_token import BotToken

log = logging.getLogger(__name__)

#: Connector answers worth trying again (the service is busy or away).
PASSING = {408, 500, 502, 503, 504}


class TeamsService:
    name = "teams"
    max_text = limits.MAX_TEXT

    def __init__(self, tokens: BotToken):
        settings = tokens.settings
        self.tokens = tokens
        self.service_url = settings.service_url  # then the one Teams last called from
        self.bot_id = f"28:{settings.app_id}"  # the bot's id in Teams' conversations
        self.tenant = settings.tenant_id
        self.members: dict[str, tuple[str, str]] = {}  # Entra object id -> (29:... id, name)
        self._session: tuple[str, aiohttp.ClientSession] | None = None  # (its URL, session)
        self._closing: set[asyncio.Task] = set()

    async def _call(self, method: Callable[[ConnectorClient], Awaitable[Any]]) -> Any:
        token = await self.tokens.get()
        try:
            return await method(ConnectorClient(self.service_url, token, session=self._open()))
        except aiohttp.ClientResponseError as failed:
            if failed.status == 429:
                retry = retry_seconds(failed.headers.get("Retry-After") if failed.headers else None)
                raise ServiceWaiting("rate limited", retry) from None
            if failed.status in PASSING:
                raise ServiceWaiting(f"the connector answered {failed.status}") from None
            raise ServiceRefusal(
                f"the connector answered {failed.status}",
                token=failed.status == 401,
                channel=failed.status == 403,  # the bot is not in the team (any more)
                status=failed.status,
            ) from None
        except (aiohttp.ClientError, TimeoutError, OSError) as lost:
            raise ServiceWaiting(f"unreachable ({type(lost).__name__})") from None
        except ValueError as odd:  # an answer the SDK could not read
            raise ServiceRefusal(f"the connector's answer was not understood ({odd})") from None

    def _open(self) -> aiohttp.ClientSession:
        """One session for the service URL, shared by every call (each client sets the token
        it was given on it); a new service URL gets a new one, the old one closed after."""
        if self._session is None or self._session[0] != self.service_url:
            if self._session is not None:  # calls on it may still run: closed once they ended
                closing = asyncio.create_task(_close_later(self._session[1]))
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
            timeout = aiohttp.ClientTimeout(total=30)
            session = aiohttp.ClientSession(self.service_url, timeout=timeout, trust_env=True)
            self._session = (self.service_url, session)
        return self._session[1]

    async def close(self) -> None:
        if self._session is not None:
            await self._session[1].close()
            self._session = None
        for closing in list(self._closing):
            closing.cancel()

    async def post(self, channel: str, text: str, thread: str | None = None) -> str:
        return await self._send(_in_thread(channel, thread), _message(text=shown(text)))

    async def update(self, channel: str, message: str, text: str) -> None:
        edited = _message(text=shown(text), id=message)
        await self._call(lambda c: c.conversations.update_activity(channel, message, edited))

    async def post_card(self, channel: str, card: CardView, thread: str | None) -> str:
        return await self._send(_in_thread(channel, thread), _card_message(card))

    async def update_card(self, channel: str, message: str, card: CardView) -> None:
        edited = _card_message(card, id=message)
        await self._call(lambda c: c.conversations.update_activity(channel, message, edited))

    async def whisper(self, channel: str, user: str, text: str, thread: str | None) -> None:
        if _personal(channel):
            await self.post(channel, text)
            return
        member, name = self.members.get(user, ("", "you"))
        try:
            if not member:
                raise ServiceRefusal("the person's Teams id is not known")
            chat = await self._call(
                lambda c: c.conversations.create_conversation(self._one_to_one(member))
            )
        except ServiceRefusal as refused:  # the app is not installed for them
            log.info("Teams: no one-to-one chat with %s (%s); said in the thread", user, refused)
            await self.post(channel, f"{name}: {text}", thread)
            return
        await self.post(chat.id, text)

    async def name_of(self, user: str) -> str:
        """The name Teams gave with the person's last activity, else their Entra id."""
        return self.members.get(user, ("", user))[1]

    def channel_id(self, given: str) -> str | None:
        """A channel's id as the connector knows it (`19:...@thread.tacv2`), also from the
        percent-encoded form of "Get link to channel"; None for anything else."""
        channel = unquote(given.strip()).partition(";messageid=")[0]
        return channel if re.fullmatch(r"19:[^\s;/?#]+@thread\.[a-z0-9]+", channel) else None

    def _one_to_one(self, member: str) -> ConversationParameters:
        return ConversationParameters.model_validate(
            {
                "isGroup": False,
                "bot": {"id": self.bot_id},
                "members": [{"id": member}],
                "tenantId": self.tenant,
                "channelData": {"tenant": {"id": self.tenant}},
            }
        )

    async def _send(self, conversation: str, activity: Activity) -> str:
        sent = await self._call(
            lambda c: c.conversations.send_to_conversation(conversation, activity)
        )
        return str(sent.id)

    # -- what Teams delivers ------------------------------------------------------------------

    async def hear(self, front: ChatFront, activity: Activity) -> None:
        """One activity Teams delivered (its token, channel and tenant already checked): a
        mention in a channel or a one-to-one chat, a reply in a turn's thread, or a click on a
        card's button."""
        conversation = activity.conversation.id if activity.conversation else ""
        sender = activity.from_property
        user = sender.aad_object_id if sender else None
        if activity.type != "message" or not user:
            return  # a typing indicator, a member added; a bot, which has no Entra user
        if activity.id and not front.first_time(f"{conversation}|{activity.id}"):
            return  # Teams delivered it again
        self._learn(activity)
        channel, _, root = conversation.partition(";messageid=")
        thread = root if root and root != activity.id else None
        if (named := clicked(activity.value)) is not None:
            return await front.click(user, channel, thread, *named)
        mentioned = activity.is_recipient_mentioned()
        text = html.unescape(activity.remove_recipient_mention()).strip()
        if _personal(channel) or mentioned:
            await front.mention(user, channel, text, thread)
        else:
            await front.message(user, channel, text, thread)

    def _learn(self, activity: Activity) -> None:
        """Where to post (the service URL Teams called from, checked with the call's token),
        who the bot is, and each person's Teams id (for a one-to-one chat)."""
        if activity.service_url:
            self.service_url = activity.service_url
        if activity.recipient and activity.recipient.id:
            self.bot_id = activity.recipient.id
        sender = activity.from_property
        if sender and sender.id and sender.aad_object_id:
            self.members[sender.aad_object_id] = (sender.id, sender.name or "you")


async def _close_later(session: aiohttp.ClientSession) -> None:
    try:
        await asyncio.sleep(60)
    finally:
        await session.close()


def _in_thread(channel: str, thread: str | None) -> str:
    """A channel's conversation id for a reply in `thread` (a new post when None)."""
    return channel if thread is None or _personal(channel) else f"{channel};messageid={thread}"


def _personal(conversation: str) -> bool:
    """A one-to-one chat's id (a channel's starts with `19:`)."""
    return conversation.startswith("a:")


def _message(**fields: Any) -> Activity:
    return Activity(type="message", text_format="markdown", **fields)


def _card_message(card: CardView, **fields: Any) -> Activity:
    attachment = Attachment.model_validate(card_attachment(card))
    return _message(text=shown(card.settled or card.title), attachments=[attachment], **fields)


def shown(text: str) -> str:
    """`text` as a message shows it as written, cut (with "…") to what a message may hold."""
    said = plain_text.message(text)
    kept = len(text)
    while limits.utf16(said) > limits.TEXT_BYTES:  # escapes grow it: keep less of the text
        kept = kept * limits.TEXT_BYTES // limits.utf16(said) - 1
        said = plain_text.message(text[:kept]) + "…"
    return said
