"""Usage per person and per room for each UTC day, and the optional daily caps on it.

What a turn cost arrives once per turn as a `usage` record, booked to the prompt's author. The
document sums those records for the current UTC day (`meta.usage`, written by `document.py` from
the records, so a restart rebuilds it from the transcript); this module reads the sums. Caps come
from `c.CopilotRoom.budgets`, checked once at start (`Budgets.from_config`); a prompt that would
go beyond a cap is refused at submit (`check`), and a host may lift the per-person cap of one
person for the rest of the day (a `budget.lifted` record).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...errors import Refused

#: What a cap counts: AI Credits and premium requests as the Copilot runtime reports them per
#: model call (none with your own provider), or tokens in plus tokens out.
Unit = Literal["ai_credits", "premium_requests", "tokens"]
Cap = Annotated[float, Field(gt=0)]
LABELS: dict[Unit, str] = {
    "ai_credits": "AI Credits",
    "premium_requests": "premium requests",
    "tokens": "tokens",
}


class Budgets(BaseModel):
    """`c.CopilotRoom.budgets`: daily caps (UTC days) per person and for the whole room."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_person: dict[Unit, Cap] = Field(default_factory=dict)
    room: dict[Unit, Cap] = Field(default_factory=dict)

    @classmethod
    def from_config(cls, value: dict) -> Budgets:
        """The caps, or a ValueError saying exactly which part of the setting is wrong."""
        try:
            return cls.model_validate(value)
        except ValidationError as err:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'budgets'}: {e['msg']}"
                for e in err.errors()
            )
            raise ValueError(
                f"c.CopilotRoom.budgets is not valid ({problems}). Expected e.g. "
                '{"per_person": {"ai_credits": 20, "tokens": 2000000}, '
                '"room": {"ai_credits": 100}}: daily caps (UTC) above 0, in the units '
                "ai_credits, premium_requests and tokens."
            ) from None


class BudgetExceeded(Refused):
    """A prompt beyond a daily cap: the body names the cap and when it resets."""

    status = 429
    code = "budget_exceeded"

    def __init__(self, message: str, details: dict[str, Any]):
        super().__init__(message)
        self.details = details


def day_of(ts: float) -> str:
    """The UTC day (`2026-12-01`) a time falls on: the unit of every cap."""
    return datetime.fromtimestamp(ts, UTC).date().isoformat()


def resets_at(day: str) -> str:
    """When a day's caps reset: the next UTC midnight, as ISO time."""
    start = datetime.fromisoformat(day).replace(tzinfo=UTC)
    return (start + timedelta(days=1)).isoformat()


def empty(day: str) -> dict[str, Any]:
    """`meta.usage` for a day nothing was spent on yet."""
    return {"day": day, "room": spent_nothing(), "people": {}, "lifted": []}


def spent_nothing() -> dict[str, float]:
    """`ai_credits` joins the sums with the first turn that reported any (`amount` reads a
    missing unit as 0)."""
    return {"premium_requests": 0, "input_tokens": 0, "output_tokens": 0, "turns": 0}


def amount(sums: dict[str, float], unit: Unit) -> float:
    if unit == "tokens":
        return sums.get("input_tokens", 0) + sums.get("output_tokens", 0)
    return sums.get(unit, 0)


#: The sums that count whole things (credits and premium requests may be fractional).
COUNTS = ("input_tokens", "output_tokens", "turns")


def today(usage: dict[str, Any] | None, now: float) -> dict[str, Any]:
    """The document's `meta.usage` if it is today's, else today's empty sums; counts as
    integers (the document, like Yjs, holds every number as a float)."""
    day = day_of(now)
    if not usage or usage.get("day") != day:
        return empty(day)
    people = {name: _whole(sums) for name, sums in usage["people"].items()}
    return {**usage, "room": _whole(usage["room"]), "people": people}


def _whole(sums: dict[str, float]) -> dict[str, float]:
    return {unit: int(value) if unit in COUNTS else value for unit, value in sums.items()}


def check(budgets: Budgets, usage: dict[str, Any], username: str) -> None:
    """Refuse a prompt by `username` if today's usage has reached a cap (the room's first: no
    lift undoes it); `usage` is `today(...)`."""
    day = usage["day"]
    for unit, cap in budgets.room.items():
        if (used := amount(usage["room"], unit)) >= cap:
            _refuse("room", unit, cap, used, day, "The room has")
    if username in usage["lifted"]:
        return
    mine = usage["people"].get(username, {})
    for unit, cap in budgets.per_person.items():
        if (used := amount(mine, unit)) >= cap:
            _refuse("per_person", unit, cap, used, day, "You have")


def credits_left(budgets: Budgets, usage: dict[str, Any], username: str | None) -> float | None:
    """The AI Credits still to spend today under the room's cap and `username`'s (unless a host
    lifted it); None when no cap is in credits. `usage` is `today(...)`."""
    left = []
    if (cap := budgets.room.get("ai_credits")) is not None:
        left.append(cap - amount(usage["room"], "ai_credits"))
    mine = budgets.per_person.get("ai_credits")
    if mine is not None and username is not None and username not in usage["lifted"]:
        left.append(mine - amount(usage["people"].get(username, {}), "ai_credits"))
    return min(left) if left else None


def _refuse(scope: str, unit: Unit, cap: float, used: float, day: str, who: str) -> None:
    reset = resets_at(day)
    label = LABELS[unit]
    lift = " A host can lift your cap for today." if scope == "per_person" else ""
    raise BudgetExceeded(
        f"{who} used {used:g} of {cap:g} {label} today (the {scope.replace('_', '-')} daily "
        f"cap), so no more prompts until it resets at {reset} (midnight UTC).{lift}",
        {"cap": {"scope": scope, "unit": unit, "limit": cap, "used": used}, "resets_at": reset},
    )
