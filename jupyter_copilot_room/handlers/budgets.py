"""The daily budgets as resources: today's usage against the caps (what a prompt may
still cost), and a host's lift of one person's cap for the rest of the day. The caps themselves
are server configuration (`c.CopilotRoom.budgets`), so nothing here changes them.
"""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from .room_handler import RoomAPIHandler


class BudgetsHandler(RoomAPIHandler):
    """`GET budgets`: today's usage per person and for the room, the daily caps, their reset."""

    @web.authenticated
    @authorized
    async def get(self) -> None:
        await self.reply(self.room.describe_usage(self.identity))


class BudgetLiftHandler(RoomAPIHandler):
    """`POST budgets/<username>/lift`: a host lifts one person's daily cap for today."""

    @web.authenticated
    @authorized
    async def post(self, username: str) -> None:
        await self.reply(self.room.lift_budget(self.identity, username))
