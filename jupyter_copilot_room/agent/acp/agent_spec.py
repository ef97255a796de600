"""An agent of the Agent Client Protocol as `c.CopilotRoom.agents` names it: the command that
serves ACP on its stdio, the title people see, its environment. Read at the server's start, so a
wrong entry stops it with what is wrong, never at the first prompt; this module imports no ACP
library, so the configuration is checked without one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..environment import agent_environment
from ..seam import COPILOT
from .agent_profiles import DECIDES_ITSELF, AgentProfile, profile_of

#: Words of a mode that changes something without asking (Copilot's autopilot, Claude Code's
#: `bypassPermissions`, `dontAsk` and `acceptEdits`, Codex's full access): the room's gate is
#: the agent's permission request, so it never runs an agent in one.
NEVER_ASKS = ("autopilot", "bypass", "dontask", "acceptedits", "full-access", "yolo", "allow-all")
#: Modes named by a word too common to look for inside others: Codex's `auto` edits the
#: workspace and runs commands in it without asking.
NEVER_ASKS_NAMED = frozenset({"auto"})
#: Never passed: with it, claude-agent-acp adds a skip-permissions flag its CLI refuses as root,
#: and `session/new` fails ("Query closed before response received").
NEVER_PASSED = frozenset({"IS_SANDBOX"})
KEYS = frozenset({"acp", "title", "env", "env_from", "mode", "asks"})


@dataclass(frozen=True)
class AcpAgentSpec:
    name: str
    command: tuple[str, ...]
    title: str
    env: Mapping[str, str] = field(default_factory=dict)  # literal values
    env_from: tuple[str, ...] = ()  # the server's variables passed through (secrets)
    mode: str = ""  # the session mode to ask for ("": the agent's own default)
    asks: str = ""  # "own": the host accepts an agent that decides some commands itself

    @property
    def profile(self) -> AgentProfile | None:
        return profile_of(self.command)

    @property
    def decides_itself(self) -> bool:
        """An agent the room has no profile for, which the host accepted as it is."""
        return self.profile is None

    @property
    def shown_title(self) -> str:
        """The title as the room names the agent where a host chooses or watches it."""
        return f"{self.title} ({DECIDES_ITSELF})" if self.decides_itself else self.title

    def refusal(self) -> str | None:
        """Why the room does not start this agent (None: it does)."""
        if self.profile is None and self.asks != "own":
            return (
                f"The room knows no settings that make {self.title} ask before every command "
                f"and write: set c.CopilotRoom.agents[{self.name!r}]['asks'] = 'own' to run it "
                "as it decides"
            )
        return None

    @classmethod
    def parse(cls, name: str, entry: object) -> AcpAgentSpec:
        """`c.CopilotRoom.agents[name]`, or ValueError naming what is wrong."""
        where = f"c.CopilotRoom.agents[{name!r}]"
        if name == COPILOT:
            raise ValueError(f"{where}: {COPILOT!r} is the room's own agent; name yours otherwise")
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where} must be a dict with 'acp': [command, *args]")
        if unknown := set(entry) - KEYS:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)} (keys: {sorted(KEYS)})")
        command = entry.get("acp")
        if not (
            isinstance(command, list | tuple)
            and command
            and all(isinstance(part, str) and part for part in command)
        ):
            raise ValueError(f"{where}['acp'] must be [command, *args], strings")
        env = entry.get("env", {})
        if not isinstance(env, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise ValueError(f"{where}['env'] must map names to string values")
        env_from = entry.get("env_from", [])
        if not isinstance(env_from, list | tuple) or not all(isinstance(n, str) for n in env_from):
            raise ValueError(f"{where}['env_from'] must list variable names")
        mode = entry.get("mode", "")
        if not isinstance(mode, str) or never_asks(mode):
            raise ValueError(
                f"{where}['mode'] = {mode!r} runs tools without asking; the room answers every "
                "tool's permission request, so it runs an agent only in a mode that asks"
            )
        asks = entry.get("asks", "")
        if asks not in ("", "own"):
            raise ValueError(f"{where}['asks'] must be 'own' (the agent decides some commands)")
        known = profile_of(tuple(command))
        title = entry.get("title") or (known.title if known is not None else name)
        return cls(name, tuple(command), str(title), dict(env), tuple(env_from), mode, asks)

    def environment(self, environ: Mapping[str, str], home: Path) -> dict[str, str]:
        """The agent's process environment: the room's allow-list of `environ`, the names of
        `env_from`, the literal `env`, and a HOME of its own."""
        passed = agent_environment(environ, self.env_from)
        chosen = {**passed, **self.env, "HOME": str(home)}
        return {name: value for name, value in chosen.items() if name not in NEVER_PASSED}


def never_asks(mode: str) -> bool:
    """Whether a mode's name says it runs tools without asking."""
    squashed = mode.lower().replace("_", "-")
    if squashed in NEVER_ASKS_NAMED:
        return True
    return any(word in squashed or word in squashed.replace("-", "") for word in NEVER_ASKS)


def parse_agents(entries: Mapping[str, object]) -> dict[str, AcpAgentSpec]:
    return {name: AcpAgentSpec.parse(name, entry) for name, entry in entries.items()}
