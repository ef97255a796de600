"""One line of the doctor's report (`Check`), as the terminal prints it and `GET doctor` sends it
(`{"name", "ok", "said", "todo"}`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Check:
    """What was checked (`name`), whether it works (`ok`), what was found (`said`) and, when
    it does not work, what to do (`todo`). Never a secret's value: variables by their name."""

    name: str
    ok: bool
    said: str
    todo: str = ""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def report(checks: list[Check]) -> str:
    """The terminal's report: a line per check, and what to do under each that fails."""
    lines = []
    for check in checks:
        lines.append(f"{'ok' if check.ok else 'NO'}  {check.name}: {check.said}")
        if not check.ok and check.todo:
            lines.append(f"    to do: {check.todo}")
    return "\n".join(lines)
