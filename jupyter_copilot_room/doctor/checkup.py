"""What the doctor reads: `Setup` is the configuration the server reads (the same
`c.CopilotRoom` traits, parsed by the same parsers), and `examine` runs every check that
applies to it, at once, each within `TIMEOUT`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..agent.acp.agent_spec import AcpAgentSpec, parse_agents
from ..fronts.github.github_settings import GitHubSettings, parse_github
from ..fronts.slack.slack_settings import SlackSettings, parse_slack
from ..fronts.teams.teams_settings import TeamsSettings, parse_teams
from . import acp_check, copilot_check, github_check, slack_check, teams_check
from .finding import Check

#: Seconds one check may take (a service that does not answer is a check that failed).
TIMEOUT = 30.0


@dataclass(frozen=True)
class Setup:
    """The server's configuration as the doctor needs it."""

    repository: Path
    cli_path: str = ""
    provider: Mapping[str, Any] = field(default_factory=dict)
    github: GitHubSettings | None = None
    slack: SlackSettings | None = None
    teams: TeamsSettings | None = None
    agents: Mapping[str, AcpAgentSpec] = field(default_factory=dict)
    #: The server's public base URL (`https://hub.example.org/user/alice/`), "" if unknown.
    public_url: str = ""

    @classmethod
    def of(cls, room: Any, server: Any) -> Setup:
        """From a `CopilotRoom` configured as the server is, and the server's own settings
        (a `ServerApp`, or its configuration section): ValueError for a wrong value."""
        return cls(
            repository=Path(room.repository),
            cli_path=room.cli_path,
            provider=dict(room.provider),
            github=parse_github(room.github),
            slack=parse_slack(room.slack),
            teams=parse_teams(room.teams),
            agents=parse_agents(room.agents),
            public_url=public_url(server, os.environ),
        )


def public_url(server: Any, environ: Mapping[str, str]) -> str:
    """Where people (and Teams) reach the server: JupyterHub's public URL and the server's
    prefix, else `c.ServerApp.custom_display_url` and `base_url`; "" when neither says."""
    hub, prefix = environ.get("JUPYTERHUB_PUBLIC_URL", ""), environ.get("JUPYTERHUB_SERVICE_PREFIX")
    if hub and prefix:
        return hub.rstrip("/") + "/" + prefix.strip("/") + "/"
    shown = _setting(server, "custom_display_url")
    if not shown:
        return ""
    base = _setting(server, "base_url").strip("/")
    return shown.rstrip("/") + "/" + (base + "/" if base else "")


def _setting(server: Any, name: str) -> str:
    """A `ServerApp`'s setting, or its configuration section's (a missing one: "")."""
    if isinstance(server, Mapping):  # a Config section: getattr would make a lazy value
        return str(server.get(name) or "")
    return str(getattr(server, name, "") or "")


async def within(name: str, check: Awaitable[list[Check]]) -> list[Check]:
    """A check's lines, or one line saying it did not answer in time or failed outright."""
    try:
        return await asyncio.wait_for(check, TIMEOUT)
    except TimeoutError:
        return [Check(name, False, f"no answer within {TIMEOUT:g} s", "see that it is reachable")]
    except Exception as err:  # a check that fails outright still gives its one line
        return [Check(name, False, f"{type(err).__name__}: {err}", "report this failure")]


async def examine(setup: Setup) -> list[Check]:
    """Every check that applies to `setup`, run at once, in the report's order."""
    checks = [("Copilot", copilot_check.checks(setup.cli_path, setup.provider))]
    if setup.github is not None:
        checks.append(("GitHub", github_check.checks(setup.github)))
    if setup.slack is not None:
        checks.append(("Slack", slack_check.checks(setup.slack)))
    if setup.teams is not None:
        checks.append(("Teams", teams_check.checks(setup.teams, setup.public_url)))
    checks += [
        (f"Agent {name}", acp_check.checks(spec, setup.repository))
        for name, spec in setup.agents.items()
    ]
    found = await asyncio.gather(*(within(name, check) for name, check in checks))
    return [line for lines in found for line in lines]


async def examined(setup: Setup) -> list[dict[str, Any]]:
    """The checks as `GET doctor` sends them."""
    return [check.as_json() for check in await examine(setup)]
