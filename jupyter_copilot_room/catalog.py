"""Skills and custom agents the repository offers, as plain data for the pickers and the agent.

Skills live in `.github/skills/<name>/SKILL.md` and `.claude/skills/<name>/SKILL.md`; custom agents
in `.github/agents/*.md` and `.claude/agents/*.md`. Each file starts with YAML frontmatter (name,
description, tools); an agent's body is its prompt. `.github` wins a name collision. The catalog is
read again on demand, and a targeted prompt is expanded from the files as they are when its turn
starts, not when it was queued.

A name is a word (`NAME`: letters, digits, `.`, `_`, `-`): a file whose name is not one is
reported among the catalog's problems, not offered, and a prompt naming something that is not in
the catalog is refused when it is submitted (`check_target`), a clear 400 rather than a turn
that fails later. A target gone by the time its turn starts is a `Refused` too: the turn
fails with its message and no traceback.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import InvalidRequest, NotFound

log = logging.getLogger(__name__)

SOURCES = (".github", ".claude")
#: What a skill's or a custom agent's name may be: one word, never a path.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
WHAT = {"skill": "skill", "agent": "custom agent"}


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path
    source: str


@dataclass(frozen=True)
class CustomAgent:
    name: str
    description: str
    prompt: str
    path: Path
    source: str
    tools: tuple[str, ...] | None = None


@dataclass
class Catalog:
    repository: Path
    skills: dict[str, Skill] = field(default_factory=dict)
    agents: dict[str, CustomAgent] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def refresh(self) -> Catalog:
        skills: dict[str, Skill] = {}
        agents: dict[str, CustomAgent] = {}
        problems: list[str] = []
        for source in SOURCES:
            root = self.repository / source
            for path in sorted(root.glob("skills/*/SKILL.md")):
                meta, _ = _read(path, problems)
                if meta is None:
                    continue
                name = str(meta.get("name") or path.parent.name)
                if _named(path, name, problems):
                    skills.setdefault(
                        name, Skill(name, str(meta.get("description", "")), path, source)
                    )
            for path in sorted(root.glob("agents/*.md")):
                meta, body = _read(path, problems)
                if meta is None:
                    continue
                name = str(meta.get("name") or path.name.removesuffix(".md").removesuffix(".agent"))
                if not _named(path, name, problems):
                    continue
                agents.setdefault(
                    name,
                    CustomAgent(
                        name,
                        str(meta.get("description", "")),
                        body.strip(),
                        path,
                        source,
                        _tools(meta.get("tools")),
                    ),
                )
        self.skills, self.agents, self.problems = skills, agents, problems
        return self

    def skill_directories(self) -> list[Path]:
        return [d for d in (self.repository / s / "skills" for s in SOURCES) if d.is_dir()]

    def expand(self, kind: str, name: str, text: str) -> str:
        """The prompt a targeted turn sends: the skill's instructions as they are now, or a
        hand-off to the custom agent as a sub-agent task (so one person's choice of agent never
        changes what the next person's turn runs on)."""
        if kind == "skill":
            if name not in self.skills:
                raise NotFound(
                    f'The skill "{name}" is no longer in the repository.', code="target_gone"
                )
            skill = self.skills[name]
            _, body = _read(skill.path, [])
            where = skill.path.relative_to(self.repository)
            return (
                f'{text}\n\n<skill-context name="{name}">\nFollow the "{name}" skill '
                f"({where}) for this request.\n\n{body.strip()}\n</skill-context>"
            )
        if kind == "agent":
            if name not in self.agents:
                raise NotFound(
                    f'The custom agent "{name}" is no longer in the repository.',
                    code="target_gone",
                )
            return (
                f'Hand this request to the custom agent "{name}": call the task tool with '
                f'agent_type "{name}", give it the request below and the context it needs '
                f"as its prompt, then report what it found.\n\nRequest: {text}"
            )
        raise InvalidRequest(f"Unknown target kind {kind!r}.", code="invalid_target")

    def agent_configs(self) -> list[dict]:
        """The custom agents in the shape the session takes them."""
        return [
            {
                "name": a.name,
                "description": a.description,
                "prompt": a.prompt,
                **({"tools": list(a.tools)} if a.tools is not None else {}),
            }
            for a in self.agents.values()
        ]

    def to_json(self) -> dict:
        return {
            "skills": [
                {"name": s.name, "description": s.description, "source": s.source}
                for s in self.skills.values()
            ],
            "agents": [
                {
                    "name": a.name,
                    "description": a.description,
                    "source": a.source,
                    "tools": list(a.tools) if a.tools is not None else None,
                }
                for a in self.agents.values()
            ],
            "problems": self.problems,
        }


def check_target(catalog: Catalog | None, kind: str, name: str) -> None:
    """A prompt's target, when it is submitted: a valid name the repository offers now, else a
    400 saying which (the name is not echoed: it may be anything)."""
    what = WHAT.get(kind, kind)
    if kind not in WHAT or not NAME.fullmatch(name):
        raise InvalidRequest(
            f"That is not a {what} name: a name is one word of letters, digits, '.', '_' and "
            "'-' (at most 64 characters). Pick one from the list (GET catalog).",
            code="invalid_target",
        )
    offered = catalog.refresh() if catalog is not None else None
    if offered is None or name not in (offered.skills if kind == "skill" else offered.agents):
        raise InvalidRequest(
            f'The repository has no {what} "{name}". Pick one from the list (GET catalog).',
            code="unknown_target",
        )


def _named(path: Path, name: str, problems: list[str]) -> bool:
    """Whether `name` may be offered; if not, it is one of the catalog's problems."""
    if NAME.fullmatch(name):
        return True
    problems.append(
        f"{path}: {name[:80]!r} is not a name (one word of letters, digits, '.', '_', '-')"
    )
    return False


def _tools(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    return tuple(str(t) for t in value)


def _read(path: Path, problems: list[str]) -> tuple[dict | None, str]:
    """Frontmatter and body of a Markdown file; an unreadable file is reported, not fatal."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        problems.append(f"{path}: {err}")
        return None, ""
    if not text.startswith("---"):
        return {}, text
    _, _, rest = text.partition("\n")
    front, sep, body = rest.partition("\n---")
    if not sep:
        problems.append(f"{path}: the frontmatter has no closing ---")
        return None, ""
    try:
        meta = yaml.safe_load(front) or {}
    except yaml.YAMLError as err:
        problems.append(f"{path}: invalid frontmatter: {err}")
        return None, ""
    if not isinstance(meta, dict):
        problems.append(f"{path}: the frontmatter is not a mapping")
        return None, ""
    return meta, body.partition("\n")[2]
