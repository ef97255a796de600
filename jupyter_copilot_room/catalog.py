"""Skills and custom agents the repository offers, as plain data for the pickers and the agent.

Skills live in `.github/skills/<name>/SKILL.md` and `.claude/skills/<name>/SKILL.md`; custom agents
in `.github/agents/*.md` and `.claude/agents/*.md`. Each file starts with YAML frontmatter (name,
description, tools); an agent's body is its prompt. `.github` wins a name collision. The catalog is
read again on demand, and a targeted prompt is expanded from the files as they are when its turn
starts, not when it was queued.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import yaml

log = logging.getLogger(__name__)

SOURCES = (".github", ".claude")


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
                skills.setdefault(name, Skill(name, str(meta.get("description", "")), path, source))
            for path in sorted(root.glob("agents/*.md")):
                meta, body = _read(path, problems)
                if meta is None:
                    continue
                name = str(meta.get("name") or path.name.removesuffix(".md").removesuffix(".agent"))
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
                raise LookupError(f'The skill "{name}" is no longer in the repository.')
            skill = self.skills[name]
            _, body = _read(skill.path, [])
            where = skill.path.relative_to(self.repository)
            return (
                f'{text}\n\n<skill-context name="{name}">\nFollow the "{name}" skill '
                f"({where}) for this request.\n\n{body.strip()}\n</skill-context>"
            )
        if kind == "agent":
            if name not in self.agents:
                raise LookupError(f'The custom agent "{name}" is no longer in the repository.')
            return (
                f'Hand this request to the custom agent "{name}": call the task tool with '
                f'agent_type "{name}", give it the request below and the context it needs '
                f"as its prompt, then report what it found.\n\nRequest: {text}"
            )
        raise LookupError(f"Unknown target kind {kind!r}.")

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
