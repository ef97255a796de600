"""What an ACP agent's turn cost, from wherever the agent says it: ACP's `usage` in the prompt's
response (Claude Code), Gemini CLI's `_meta.quota` there, or else how far the session's context
grew over the turn by its `usage_update`s (Codex says nothing else): an estimate that counts the
turn's new tokens, not each model call's whole input."""

from __future__ import annotations

from typing import Any

from acp import schema

from ...events import TurnUsage


class UsageReadings:
    """One session's readings: the context's size as last said, and where the turn began."""

    def __init__(self) -> None:
        self.context_used: int | None = None
        self._at_start = 0

    def heard(self, update: schema.UsageUpdate) -> None:
        self.context_used = update.used

    def begin_turn(self) -> None:
        self._at_start = self.context_used or 0

    def booked(self, response: schema.PromptResponse, model: str) -> TurnUsage | None:
        """The turn's usage (None: the agent said nothing of it)."""
        if (usage := response.usage) is not None:
            return TurnUsage(
                model=model,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                model_calls=1,
            )
        if counted := _quota(response.field_meta):
            return TurnUsage(model=model, input_tokens=counted[0], output_tokens=counted[1])
        if self.context_used is not None and self.context_used > self._at_start:
            return TurnUsage(model=model, input_tokens=self.context_used - self._at_start)
        return None


def _quota(meta: dict[str, Any] | None) -> tuple[int, int] | None:
    """Gemini CLI's `{"quota": {"token_count": {"input_tokens", "output_tokens"}}}`."""
    quota = (meta or {}).get("quota")
    counts = quota.get("token_count") if isinstance(quota, dict) else None
    if not isinstance(counts, dict):
        return None
    said, made = counts.get("input_tokens"), counts.get("output_tokens")
    if not (isinstance(said, int) and isinstance(made, int) and said >= 0 and made >= 0):
        return None
    return (said, made) if said or made else None
