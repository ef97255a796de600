"""`AgentChoice`: a room's agent among those the server offers (`c.CopilotRoom.agents` and the
room's own Copilot), the one its `agent` setting names. A host's change takes effect at the
agent's next restart, which the room asks for at once: the agent in place stops, the chosen one
starts a session of its own, and the room keeps everything else (its transcript, queue, people,
checkpoints). Every call of the seam goes to the agent in place."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .seam import Agent, AgentHost, AgentTurn, LoginFlow, SeatQuota


class AgentChoice(Agent):
    def __init__(
        self, make: Callable[[str], Agent], offered: Mapping[str, str], chosen: Callable[[], str]
    ):
        """`make(name)` makes the agent `name`; `offered`: each name's title; `chosen()`: the
        name the room's setting says now."""
        self.make, self._offered, self.chosen = make, dict(offered), chosen
        self.current = make(chosen())
        super().__init__(self.current.settings)
        self._host: AgentHost | None = None
        self._named()

    def _named(self) -> None:
        self.name, self.title = self.current.name, self.current.title

    def offered(self) -> dict[str, str]:
        return dict(self._offered)

    def switch_wanted(self) -> bool:
        return self.chosen() != self.current.name

    async def start(self, host: AgentHost) -> None:
        self._host = host
        await self._swap_if_chosen()
        await self.current.start(host)

    async def restart(self) -> None:
        if not self.switch_wanted():
            await self.current.restart()
            return
        await self._swap_if_chosen()
        if self._host is not None:
            await self.current.start(self._host)

    async def _swap_if_chosen(self) -> None:
        if self.switch_wanted():
            await self.current.stop()
            self.current = self.make(self.chosen())
            self._named()

    async def stop(self) -> None:
        await self.current.stop()

    async def send(self, turn: AgentTurn) -> None:
        await self.current.send(turn)

    async def steer(self, author: str, text: str) -> None:
        await self.current.steer(author, text)

    async def models(self) -> list[str]:
        return await self.current.models()

    async def use_model(self, model: str) -> None:
        await self.current.use_model(model)

    async def fork(self, later: Sequence[str], into: Path, name: str) -> None:
        await self.current.fork(later, into, name)

    async def abort(self) -> None:
        await self.current.abort()

    def login_flow(self) -> LoginFlow | None:
        return self.current.login_flow()

    async def use_login(self) -> None:
        await self.current.use_login()

    async def sign_out(self) -> bool:
        return await self.current.sign_out()

    async def seat_quota(self) -> SeatQuota | None:
        return await self.current.seat_quota()
