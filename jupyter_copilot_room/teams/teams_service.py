"""Teams through the Microsoft 365 Agents SDK: its Bot Connector client (`ConnectorClient`, at
the service URL Teams last called from) for what the bridge posts, and its `Activity` model for
what Teams delivers to the messaging endpoint. The only module that imports the SDK. A 429
becomes `ServiceWaiting` with its Retry-After; a refused token, `ServiceRefusal`.

Teams has no ephemeral messages in channels: what Slack whispers, Teams says in a one-to-one
chat with the person (in the thread, naming them, when the bot cannot open one)."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from microsoft_agents.activity import (
    Activity,
    Attachment,
    ConversationParameters,
    Mention,
)
from microsoft_agents.hosting.core import ConnectorClient

from ..bridges.chat_front import ChatFront
from ..bridges.chat_service import CardView, ServiceRefusal, ServiceWaiting
from .adaptive_cards import card_attachment, clicked
from .bot_token import BotToken

log = logging.getLogger(__name__)

#: Connector answers worth trying again (the service is busy or away).
PASSING = {408, 500, 502, 503, 504}


class TeamsService:
    name = "teams"
    max_text = 20000  # Teams takes about 28 KB of text in one message

    def __init__(self, tokens: BotToken, service_url: str, bot_id: str = ""):
        self.tokens = tokens
        self.service_url = service_url
        self.bot_id = bot_id  # "28:<app id>", learned from the first activity
        self.members: dict[str, str] = {}  # person's key (Entra object id) -> Teams id (29:...)
        self.tenant = ""
        self._client: tuple[str, str, ConnectorClient] | None = None  # (url, token, client)

    async def _call(self, method: Callable[[ConnectorClient], Awaitable[Any]]) -> Any:
        token = await self.tokens.get()
        try:
            return await method(await self._connector(token))
        except aiohttp.ClientResponseError as failed:
            if failed.status == 429:
                retry = float(failed.headers.get("Retry-After", 1) if failed.headers else 1)
                raise ServiceWaiting("rate limited", retry) from None
            if failed.status in PASSING:
                raise ServiceWaiting(f"the connector answered {failed.status}") from None
            raise ServiceRefusal(
                f"the connector answered {failed.status}", token=failed.status == 401
            ) from None
        except (aiohttp.ClientError, TimeoutError, OSError) as lost:
            raise ServiceWaiting(f"unreachable ({type(lost).__name__})") from None

    async def _connector(self, token: str) -> ConnectorClient:
        """One client while the token and the service URL stay (its session is reused)."""
        if self._client is None or self._client[:2] != (self.service_url, token):
            await self.close()
            self._client = (self.service_url, token, ConnectorClient(self.service_url, token))
        return self._client[2]

    async def close(self) -> None:
        if self._client is not None:
            await self._client[2].close()
            self._client = None

    async def post(self, channel: str, text: str, thread: str | None = None) -> str:
        return await self._send(_in_thread(channel, thread), _message(text=escaped(text)))

    async def update(self, channel: str, message: str, text: str) -> None:
        edited = _message(text=escaped(text), id=message)
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
        member = self.members.get(user)
        try:
            if member is None:
                raise ServiceRefusal("the person's Teams id is not known")
            chat = await self._call(
                lambda c: c.conversations.create_conversation(self._one_to_one(member))
            )
        except ServiceRefusal as refused:  # the app is not installed for them
            log.info("Teams: no one-to-one chat with %s (%s); said in the thread", user, refused)
            await self.post(channel, text, thread)
            return
        await self.post(chat.id, text)

    def _one_to_one(self, member: str) -> ConversationParameters:
        tenant = {"tenantId": self.tenant} if self.tenant else {}
        return ConversationParameters.model_validate(
            {
                "isGroup": False,
                "bot": {"id": self.bot_id},
                "members": [{"id": member}],
                **tenant,
                **({"channelData": {"tenant": {"id": self.tenant}}} if self.tenant else {}),
            }
        )

    async def _send(self, conversation: str, activity: Activity) -> str:
        sent = await self._call(
            lambda c: c.conversations.send_to_conversation(conversation, activity)
        )
        return str(sent.id)

    # -- what Teams delivers ------------------------------------------------------------------

    async def hear(self, front: ChatFront, body: dict) -> None:
        """One activity Teams delivered (its token already checked): a mention in a channel or
        a one-to-one chat, a reply in a turn's thread, or a click on a card's button."""
        activity = Activity.model_validate(body)
        if activity.type != "message" or not front.first_time(str(activity.id or "")):
            return  # a typing indicator, a member added; or Teams delivering it again
        self._learn(activity)
        sender = activity.from_property
        user = (sender.aad_object_id or sender.id) if sender else ""
        conversation = activity.conversation.id if activity.conversation else ""
        channel, _, root = conversation.partition(";messageid=")
        thread = root if root and root != activity.id else None
        if (named := clicked(activity.value)) is not None:
            return await front.click(
                user, conversation if _personal(channel) else channel, thread, *named
            )
        text = html.unescape(_without_mentions(activity.text or "", activity))
        if _personal(channel) or self._mentioned(activity):
            await front.mention(user, channel, text.strip(), thread)
        else:
            await front.message(user, channel, text.strip(), thread)

    def _learn(self, activity: Activity) -> None:
        """Where to post (the service URL Teams called from, checked with the call's token),
        who the bot is, and each person's Teams id (for a one-to-one chat)."""
        if activity.service_url:
            self.service_url = activity.service_url
        if activity.recipient and activity.recipient.id:
            self.bot_id = activity.recipient.id
        if activity.conversation and activity.conversation.tenant_id:
            self.tenant = activity.conversation.tenant_id
        sender = activity.from_property
        if sender and sender.id:
            self.members[sender.aad_object_id or sender.id] = sender.id

    def _mentioned(self, activity: Activity) -> bool:
        return any(
            isinstance(entity, Mention) and entity.mentioned.id == self.bot_id
            for entity in activity.entities or ()
        )


def _without_mentions(text: str, activity: Activity) -> str:
    """The text without the bot's `<at>name</at>`."""
    name = activity.recipient.name if activity.recipient else None
    if not name:
        return re.sub(r"<at>[^<]*</at>", "", text, count=1)
    return text.replace(f"<at>{name}</at>", "")


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
    return Activity(
        type="message", text=card.settled or card.title, attachments=[attachment], **fields
    )


def escaped(text: str) -> str:
    """Text as Teams shows it as written (`<at>`, tags and entities escaped)."""
    return html.escape(text, quote=False)
