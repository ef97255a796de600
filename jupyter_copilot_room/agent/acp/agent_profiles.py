"""Each supported ACP agent's own settings, written by the room in the agent's home
(`<state_dir>/agents/<name>/home`, the room's) at every start, so that the agent asks the room
before every command and every write (the room's gate is the agent's permission request) and
reads nothing from the repository that would answer for it. An agent is known by its command;
one the room knows no profile for runs only when the host says it decides some commands itself
(`c.CopilotRoom.agents[name]["asks"] = "own"`), and the room says so wherever it names it.
What each profile cannot change is in `limits`, as docs/hosts.md's table says it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Said after the title of an agent that decides some commands itself.
DECIDES_ITSELF = "decides some commands itself"
#: Commands Codex runs unasked under `untrusted` (its known-safe list), each made to ask.
CODEX_SAFE = [
    "base64",
    "cat",
    "cd",
    "cut",
    "echo",
    "expr",
    "false",
    "find",
    "git",
    "grep",
    "head",
    "id",
    "ls",
    "nl",
    "numfmt",
    "paste",
    "pwd",
    "rev",
    "rg",
    "sed",
    "seq",
    "stat",
    "tac",
    "tail",
    "tr",
    "true",
    "uname",
    "uniq",
    "wc",
    "which",
    "whoami",
]
#: Claude Code's tools that change something or run a command: each asks.
CLAUDE_ASKS = ("Bash", "Write", "Edit", "MultiEdit", "NotebookEdit", "WebFetch", "WebSearch")
#: Gemini CLI's policy: every command (its "safe" ones too: a rule with an argument pattern
#: skips its shell heuristics) and every write asks; its reads go through the room's files.
GEMINI_POLICY = """\
[[rule]]
toolName = "run_shell_command"
argsPattern = ".*"
decision = "ask_user"
priority = 999

[[rule]]
toolName = ["write_file", "replace", "invoke_agent"]
decision = "ask_user"
priority = 999
"""


@dataclass(frozen=True)
class Start:
    """What a profile adds to the agent's command and environment."""

    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def _nothing(home: Path, environ: Mapping[str, str]) -> Start:
    return Start()


@dataclass(frozen=True)
class AgentProfile:
    name: str
    #: What people call the agent: its title where the host configured none (never the
    #: configuration's key, which reads as `agent = copilot-acp`).
    title: str = ""
    #: The `authenticate` method the room calls with the agent's key, when the agent offers it.
    auth_method: str | None = None
    #: `_meta` of `session/new` and `session/load`.
    session_meta: Mapping[str, object] = field(default_factory=dict)
    #: The session mode the room sets after `session/new` and `session/load` ("": none).
    session_mode: str = ""
    #: What the agent still decides or reads itself, in words for the docs and the log.
    limits: str = ""
    #: Whether the room serves the agent's file reads (`fs/read_text_file`): Gemini CLI
    #: cannot tell the room's "not found" from a failure, so it cannot create a file through
    #: the room's reads; it reads its folder itself.
    room_reads: bool = True
    #: Why the agent gets no notebook tools ("": it does).
    no_mcp: str = ""
    #: Writes the agent's settings under its home, given the environment the host configured.
    start: Callable[[Path, Mapping[str, str]], Start] = _nothing


def _written(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _claude(home: Path) -> Start:
    """Claude Code's user settings: every command and change asks, whatever a repository's
    settings allow (the room also reads user settings alone, `settingSources`); no hooks."""
    folder = home / ".claude"
    permissions = {
        "defaultMode": "default",
        "ask": list(CLAUDE_ASKS),
        "disableBypassPermissionsMode": "disable",
    }
    settings = {"permissions": permissions, "disableAllHooks": True}
    _written(folder / "settings.json", json.dumps(settings, indent=2))
    return Start(env={"CLAUDE_CONFIG_DIR": str(folder)})


def _codex(home: Path, environ: Mapping[str, str]) -> Start:
    """Codex's home is the room's: the host's config.toml (its provider) copied in, then asking
    before every command overrides it (`-c`, which outranks any file), its safe list made to
    ask too (rules written anew at each start, so no "always" of before survives)."""
    folder = home / ".codex"
    folder.mkdir(parents=True, exist_ok=True)
    hosts = Path(environ["CODEX_HOME"]) / "config.toml" if "CODEX_HOME" in environ else None
    if hosts is not None and hosts.is_file() and hosts.resolve() != (folder / "config.toml"):
        shutil.copyfile(hosts, folder / "config.toml")
    rules = "".join(f'prefix_rule(pattern=["{c}"], decision="prompt")\n' for c in CODEX_SAFE)
    _written(folder / "rules" / "default.rules", rules)
    overrides = ('approval_policy="untrusted"', 'sandbox_mode="danger-full-access"')
    return Start(
        args=tuple(arg for o in overrides for arg in ("-c", o)), env={"CODEX_HOME": str(folder)}
    )


def _gemini(home: Path) -> Start:
    """Gemini CLI's policy at its admin tier, which no other policy outranks: every command
    and write asks. Its folder stays untrusted (a trusted one applies the repository's
    `.gemini/settings.json`, hooks included, over the user's)."""
    policy = home / ".gemini-room" / "policy.toml"
    _written(policy, GEMINI_POLICY)
    return Start(args=("--admin-policy", str(policy)))


PROFILES = {
    "copilot": AgentProfile(
        "copilot",
        "Copilot CLI",
        limits="reads (view, grep, glob) without asking; a repository's .github/hooks can "
        "answer its permission requests, which only a machine-wide managed setting stops",
    ),
    "claude-code": AgentProfile(
        "claude-code",
        "Claude Code",
        session_meta={"claudeCode": {"options": {"settingSources": ["user"]}}},
        session_mode="default",
        start=lambda home, environ: _claude(home),
        limits="reads (Read, Glob, Grep) without asking",
    ),
    "codex": AgentProfile(
        "codex",
        "Codex",
        start=_codex,
        limits="a command that is neither on its safe list nor untrusted is Codex's to judge",
    ),
    "gemini-cli": AgentProfile(
        "gemini-cli",
        "Gemini CLI",
        auth_method="gemini-api-key",
        start=lambda home, environ: _gemini(home),
        limits="reads its folder without asking; its shell holds its own API key",
        room_reads=False,
        no_mcp="Gemini CLI uses MCP servers only in a trusted folder, and trusting one applies "
        "the repository's own .gemini settings and hooks: it edits notebooks as files",
    ),
}


def profile_of(command: tuple[str, ...]) -> AgentProfile | None:
    """The profile of the agent `command` starts, known by its program's name."""
    program, args = Path(command[0]).name, command[1:]
    if program == "claude-agent-acp":
        return PROFILES["claude-code"]
    if program == "codex-acp":
        return PROFILES["codex"]
    if program == "copilot" and "--acp" in args:
        return PROFILES["copilot"]
    if program == "gemini" and "--acp" in args:
        return PROFILES["gemini-cli"]
    return None
