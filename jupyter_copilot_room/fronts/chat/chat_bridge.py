"""What every chat bridge is (Slack's, Teams'): its service, each room's channel and mirror
(`ChannelLinks`), the front that hears people (`ChatFront`), and one task, the bridge's own
`_run`: the first contact with the service, then the mirrors."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from ...background_tasks import started
from .channel_links import ChannelLinks
from .chat_front import ChatFront
from .chat_service import ChatService
from .linked_people import LinkedPeople

if TYPE_CHECKING:
    from ...api import RoomsAPI

Service = TypeVar("Service", bound=ChatService)


class ChatBridge(Generic[Service]):
    def __init__(
        self,
        service: Service,
        rooms: RoomsAPI,
        people: LinkedPeople,
        configured: Mapping[str, str],
        state: Path,
    ):
        self.service = service
        self.links = ChannelLinks(service, rooms, configured, state)
        deliveries = state / f"{service.name}-deliveries.json"
        self.front = ChatFront(service, rooms, people, self.links, deliveries)
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = started(self._run(), f"The {self.links.name} bridge")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.front.stop()
        await self.links.stop()
        await self.service.close()

    async def _run(self) -> None:
        raise NotImplementedError
