"""The environment variables a Copilot login is read from, in order, declared outside the Copilot
adapter (`copilot/`, the only importer of its SDK) so the fronts' settings can refuse a token
variable the login reads too: with the PR bot's `GITHUB_TOKEN` set, the bot's token would become
the seat that pays and demo mode would end, with nothing saying why."""

from __future__ import annotations

import os
from collections.abc import Mapping

TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")


def login_variable(environ: Mapping[str, str] = os.environ) -> str | None:
    """The variable the Copilot login comes from (its name, never its value), if any."""
    return next((v for v in TOKEN_VARIABLES if environ.get(v)), None)


def login_token() -> str | None:
    """A Copilot login from the environment, if any."""
    variable = login_variable()
    return os.environ[variable] if variable else None


def not_a_login_variable(setting: str, variable: str, whose: str, instead: str) -> None:
    """ValueError when a front's `setting` names a variable the Copilot login also reads."""
    if variable in TOKEN_VARIABLES:
        raise ValueError(
            f"{setting} = {variable!r}: the Copilot login reads {variable} too: with it set, "
            f"{whose} would become the seat that pays and demo mode ends; name another "
            f"variable, e.g. {instead}"
        )
