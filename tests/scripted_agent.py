"""A scripted stand-in for the Copilot agent, for tests of the room only.

Each prompt is a tiny script: `say TEXT` streams TEXT; `shell CMD` asks permission to run CMD;
`ask QUESTION` asks the room a question with choices yes/no; `wait` holds the turn until the test
releases it (steering messages sent meanwhile are kept in `steered`); `fail` ends the turn with
an error. The real Copilot adapter replaces this in product use; this class exists so the room's
contract can be tested without a runtime.
"""

from __future__ import annotations

import asyncio

from jupyter_copilot_room.agent.seam import Agent, AgentTurn, Answer, PermissionAsk, QuestionAsk
from jupyter_copilot_room.events import (
    AgentStatus,
    AssistantMessage,
    MessageDelta,
    ToolCompleted,
    ToolStarted,
    TurnEnded,
)


class ScriptedAgent(Agent):
    label = "scripted"

    def __init__(self, settings):
        super().__init__(settings)
        self.turns: list[AgentTurn] = []
        self.answers: list[Answer] = []
        self.release = asyncio.Event()
        self.ignore_abort = False
        self.restarts = 0
        self.steered: list[tuple[str, str]] = []
        self.model = ""
        self._playing: asyncio.Task | None = None

    async def start(self, host) -> None:
        self.host = host
        await host.publish(AgentStatus(state="ready", label=self.label))

    async def send(self, turn: AgentTurn) -> None:
        self.turns.append(turn)
        self._playing = asyncio.create_task(self._play(turn))

    async def _play(self, turn: AgentTurn) -> None:
        verb, _, rest = turn.text.partition(" ")
        entry = f"msg-{turn.prompt_id}"
        if verb == "say":
            for start in range(0, len(rest), 3):
                await self.host.publish(MessageDelta(entry_id=entry, text=rest[start : start + 3]))
                await asyncio.sleep(0)
            await self.host.publish(AssistantMessage(entry_id=entry, text=rest))
        elif verb == "shell":
            answer = await self.host.request_permission(PermissionAsk("shell", rest))
            self.answers.append(answer)
            if answer.approved:
                await self.host.publish(
                    ToolStarted(call_id=f"call-{turn.prompt_id}", tool="bash", summary=rest)
                )
                await self.host.publish(
                    ToolCompleted(
                        call_id=f"call-{turn.prompt_id}", success=True, result="ok", duration=0.01
                    )
                )
            await self.host.publish(AssistantMessage(entry_id=entry, text=answer.text))
        elif verb == "ask":
            question = QuestionAsk(rest, ("yes", "no"), allow_freeform=False)
            answer = await self.host.ask_question(question)
            self.answers.append(answer)
            await self.host.publish(
                AssistantMessage(entry_id=entry, text=f"You said {answer.text}")
            )
        elif verb == "wait":
            await self.host.publish(MessageDelta(entry_id=entry, text="working"))
            await self.release.wait()
            self.release.clear()
        elif verb == "fail":
            await self.host.publish(TurnEnded(error="scripted failure"))
            return
        await self.host.publish(TurnEnded())

    async def steer(self, author: str, text: str) -> None:
        self.steered.append((author, text))

    async def models(self) -> list[str]:
        return []

    async def use_model(self, model: str) -> None:
        self.model = model

    async def abort(self) -> None:
        # A finished turn has nothing to end: the real adapter publishes no second TurnEnded.
        if self.ignore_abort or self._playing is None or self._playing.done():
            return
        self._playing.cancel()
        await self.host.publish(TurnEnded())

    async def restart(self) -> None:
        self.restarts += 1
        if self._playing is not None:
            self._playing.cancel()
        await self.host.publish(AgentStatus(state="ready", label=self.label))

    async def stop(self) -> None:
        if self._playing is not None:
            self._playing.cancel()
