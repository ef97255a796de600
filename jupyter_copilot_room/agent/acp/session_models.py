"""The models an ACP session offers, and the one a host chose: the session's config option of
category `model` (Claude Code offers one; Copilot over ACP, none), set with
`session/set_config_option` before the next prompt, never in the middle of a turn. A model the
session does not offer is never asked for."""

from __future__ import annotations

from typing import Any

from acp import schema


class SessionModels:
    def __init__(self, wanted: str = ""):
        self.wanted = wanted  # the host's choice ("": the agent's own)
        self.option_id = ""  # the session's model option ("": it offers none)
        self.offered: tuple[str, ...] = ()
        self.current = ""

    def read(self, options: list[Any] | None) -> None:
        """A session's config options, as `session/new`, `session/load` or a set answered them."""
        for option in options or ():
            if isinstance(option, schema.SessionConfigOptionSelect) and option.category == "model":
                self.option_id, self.current = option.id, option.current_value
                self.offered = tuple(
                    choice.value
                    for choice in option.options
                    if isinstance(choice, schema.SessionConfigSelectOption)
                )
                return
        self.option_id, self.offered, self.current = "", (), ""

    def choices(self) -> list[str]:
        """The models a host may choose between (fewer than two: no choice)."""
        return list(self.offered) if len(self.offered) > 1 else []

    async def apply(self, conn: Any, session_id: str) -> None:
        """Ask the session for the host's choice, when it offers that model and uses another."""
        if self.wanted in self.offered and self.wanted != self.current:
            answer = await conn.set_config_option(
                config_id=self.option_id, session_id=session_id, value=self.wanted
            )
            if answer is not None and answer.config_options:
                self.read(answer.config_options)
            else:
                self.current = self.wanted
