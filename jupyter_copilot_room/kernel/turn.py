"""A prompt sent from the kernel, followed to its end without ever blocking the kernel.

`KernelRoom.ask` returns a `Turn` at once; a task on the kernel's running event loop follows the
room's live document (the same entries the panel shows) and updates every display of the turn as
the reply streams. The agent may itself want this kernel during the turn (a notebook edit, a cell
run), so nothing here waits synchronously inside a running loop: `await turn` for the reply;
`turn.result()` gives it once the turn is over.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from functools import partial
from typing import TYPE_CHECKING, Any

from .live_document import LiveDocument, plain

if TYPE_CHECKING:
    from .client import KernelRoom

OUTCOMES = ("completed", "failed", "canceled")
#: Seconds between two updates of a streaming display (each is a message to every frontend).
DISPLAY_INTERVAL = 0.1


class Turn:
    """One prompt's turn: `id`, `position` (prompts ahead of it; 0 once next or running),
    `state` (submitted, working, input-required, then the outcome), `outcome`, `usage`,
    `entries` (the turn's transcript entries as the document shows them)."""

    def __init__(self, room: KernelRoom, prompt_id: str, position: int, text: str):
        self.room, self.id, self.position, self.text = room, prompt_id, position, text
        self.state = "submitted"
        self.outcome: str | None = None
        self.usage: dict[str, Any] | None = None
        self.error: str | None = None  # the live connection ended before the turn did
        self.entries: dict[str, dict[str, Any]] = {}
        self._log: list[dict[str, Any]] = []  # every change of an entry, in order
        self._version = 0
        self._changed: asyncio.Condition | None = None
        self._task: asyncio.Task | None = None
        self._displays: list[Any] = []
        self._shown_at = 0.0

    def __repr__(self) -> str:
        return f"<Turn {self.id} {self.state}, {self.position} ahead>"

    @property
    def done(self) -> bool:
        return self.outcome is not None or self.error is not None

    # -- following -----------------------------------------------------------------------------

    def start(self) -> None:
        """Follow the turn on the running loop (a kernel's); a script follows it when awaited."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._changed = asyncio.Condition()
        self._task = loop.create_task(self._follow())

    async def _follow(self) -> None:
        live = self.room.live()
        seen, was_queued = -1, False
        while not self.done:
            await live.changed(seen, timeout=5)
            seen = live.version
            was_queued = self._read(live, was_queued)
            if live.error is not None and not self.done:
                self.error = live.error
            await self._publish()
        self._show(final=True)

    def _read(self, live: LiveDocument, was_queued: bool) -> bool:
        """Take the turn's state from the document; returns whether it is (or was) queued."""
        queued = False
        for ahead, item in enumerate(live.queue):
            if item.get("id") == self.id:
                queued, self.position, self.state = True, ahead, item.get("state", self.state)
        changes = []
        for entry in live.transcript:
            if entry.get("id") != self.id and entry.get("prompt_id") != self.id:
                continue
            data = plain(entry)
            if self.entries.get(data["id"]) != data:
                self.entries[data["id"]] = data
                changes.append(data)
            if data["id"] == self.id:
                self.usage = data.get("usage") or self.usage
                if data.get("state") in OUTCOMES:
                    self.state = self.outcome = data["state"]
        if was_queued and not queued and self.id not in self.entries:
            self.state = self.outcome = "canceled"  # withdrawn before it started
        self._log.extend(changes)
        return was_queued or queued

    async def _publish(self) -> None:
        assert self._changed is not None
        async with self._changed:
            self._version += 1
            self._changed.notify_all()
        self._show()

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """The turn's entries as they stream: each entry (a dict, as the panel reads it) every
        time it is added or changes, until the turn ends."""
        self._require_loop()
        assert self._changed is not None
        sent = 0
        while True:
            while sent < len(self._log):
                sent += 1
                yield self._log[sent - 1]
            if self.done:
                return
            async with self._changed:
                await self._changed.wait_for(partial(self._moved_past, sent))

    def _moved_past(self, sent: int) -> bool:
        return len(self._log) > sent or self.done

    async def wait(self) -> str:
        """The final reply once the turn has ended."""
        if self._task is None:
            self.start()
        self._require_loop()
        assert self._task is not None
        await asyncio.shield(self._task)
        return self.result()

    def __await__(self):
        return self.wait().__await__()

    def result(self) -> str:
        """The reply's text (all of the turn's replies, in order) once the turn has ended.

        Inside a kernel (a running loop) it never waits: `await turn` does. In a plain script
        it runs the loop until the turn ends."""
        if not self.done:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(self.wait())
            raise RuntimeError(
                f"The turn is still {self.state}; `await turn` waits for its reply without "
                "blocking the kernel (the agent may need the kernel meanwhile)."
            )
        if self.error is not None and self.outcome is None:
            raise RuntimeError(self.error)
        return self.reply

    @property
    def reply(self) -> str:
        """What the agent has replied so far."""
        bodies = [e["body"] for e in self.entries.values() if e.get("kind") == "assistant"]
        return "\n\n".join(b for b in bodies if b)

    def _require_loop(self) -> None:
        if self._task is None or self._changed is None:
            raise RuntimeError("This turn is not followed: it was sent with no event loop running.")

    # -- display -------------------------------------------------------------------------------

    def _ipython_display_(self) -> None:
        from IPython.display import Markdown, display

        self._displays.append(display(Markdown(self.markdown()), display_id=True))

    def _show(self, final: bool = False) -> None:
        now = time.monotonic()
        if not self._displays or (not final and now - self._shown_at < DISPLAY_INTERVAL):
            return
        self._shown_at = now
        from IPython.display import Markdown

        for handle in self._displays:
            handle.update(Markdown(self.markdown()))

    def markdown(self) -> str:
        """The turn as the cell output shows it: where it is, the reply, tools, outcome."""
        lines = []
        if self.state == "submitted":
            ahead = "next" if self.position == 0 else f"{self.position} ahead"
            lines.append(f"*Queued in the Copilot room ({ahead}).*")
        elif self.state == "input-required":
            lines.append("*Waiting for an answer in the room (a permission or a question).*")
        for entry in self.entries.values():
            kind = entry.get("kind")
            if kind == "assistant" and entry.get("body"):
                lines.append(entry["body"])
            elif kind == "tool":
                lines.append(
                    f"> `{entry.get('tool')}` {entry.get('summary', '')} ({entry.get('state')})"
                )
            elif kind == "error":
                lines.append(f"> **Error:** {entry.get('body')}")
            elif kind in ("permission", "question"):
                lines.append(f"> **{kind.title()}:** {entry.get('body')} ({entry.get('state')})")
        if self.outcome is not None:
            lines.append(f"**{self.outcome.title()}**" + _usage(self.usage))
        elif self.error is not None:
            lines.append(f"**No longer followed:** {self.error}")
        elif self.state == "working" and not self.reply:
            lines.append("*The agent is working…*")
        return "\n\n".join(lines)


def _usage(usage: dict[str, Any] | None) -> str:
    if not usage:
        return ""
    tokens_in, tokens_out = _whole(usage.get("input_tokens")), _whole(usage.get("output_tokens"))
    calls = _whole(usage.get("model_calls"))
    return (
        f" · {usage.get('model')}: {tokens_in:,} tokens in, {tokens_out:,} out, "
        f"{calls:,} model call{'' if calls == 1 else 's'}"
    )


def _whole(value: Any) -> int:
    """A count as the document holds it (its numbers are floats: 7539.0) as a whole number."""
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
