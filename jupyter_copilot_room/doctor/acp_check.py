"""An ACP agent of `c.CopilotRoom.agents`: started as the room starts it (its command, its
environment, its profile's settings, in a home of its own that is thrown away), asked
`initialize`, its announced authentication methods read, then stopped."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from ..agent.acp.agent_processes import AgentProcess
from ..agent.acp.agent_spec import AcpAgentSpec
from .finding import Check

#: Seconds the agent has to start and answer `initialize` here.
START = 25.0


async def checks(spec: AcpAgentSpec, repository: Path) -> list[Check]:
    name = f"Agent {spec.name}"
    if (refusal := spec.refusal()) is not None:
        return [Check(name, False, f"{spec.title}: the room does not run it", refusal)]
    with tempfile.TemporaryDirectory(prefix="copilot-room-doctor-") as home:
        process = AgentProcess(spec, Path(home), repository)
        try:
            async with asyncio.timeout(START):
                await process.start()
        except Exception as err:
            said = str(err).strip() or type(err).__name__
            return [
                Check(
                    name,
                    False,
                    f"{spec.title} ({' '.join(spec.command)}) did not start and answer "
                    f"initialize: {said}",
                    "install the agent where the server finds it (its command in "
                    f"c.CopilotRoom.agents[{spec.name!r}]['acp']), then try it by hand",
                )
            ]
        finally:
            await process.stop()
    methods = ", ".join(process.auth_methods) or "none"
    profile = spec.profile
    kept = f"the room's {profile.name} profile" if profile else "no profile: it decides itself"
    return [
        Check(
            name,
            True,
            f"{spec.shown_title} starts and answers initialize; authentication it announces: "
            f"{methods}; {kept}",
        )
    ]
