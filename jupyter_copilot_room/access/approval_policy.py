"""Which of the agent's permission requests the room settles by rule, and which need people.

Pure (no I/O, no clock). Per permission kind a decision: `ask` (the author or a host answers),
`auto` (approved at once), `deny` (rejected at once) or `two` (two people approve: the author and
a host, or two hosts). For `shell` and `url` ordered glob rules on the command or URL come first:
the first match wins, the kind's default otherwise. A shell rule whose decision is `auto` applies
only to a simple command (`shell_commands.py`): a glob cannot tell `git status*` from `git status;
curl ... | sh`, so a compound command passes over it to the next rule that matches (which can only
ask more: `ask`, `two`, `deny`) or to the default. Configured by `c.CopilotRoom.approval_policy`
and changed by hosts as a room setting; the rule that decided is named in the transcript.
`execute` (running notebook cells) is auto-approved only when the policy names it itself:
nothing else (no wildcard, not the notebook-edit setting) ever lets it through.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, model_validator

from .shell_commands import is_simple

Decision = Literal["ask", "auto", "deny", "two"]
DECISIONS: tuple[str, ...] = ("ask", "auto", "deny", "two")
#: Every permission kind, with what the agent asks to do in one (after "Copilot asked to ..."):
#: the panel's cards (generated into labextension/src/generated/declarations.ts) and the
#: export say the same words.
ACTIONS: dict[str, str] = {
    "shell": "run a shell command",
    "write": "write a file",
    "read": "read a file",
    "url": "fetch a URL",
    "mcp": "call an MCP tool",
    "notebook": "edit a notebook",
    "execute": "run notebook cells",
    "custom-tool": "use a tool",
}
KINDS: tuple[str, ...] = tuple(ACTIONS)
#: Every card's action: the permission kinds, and a side thread's changes coming back (the room
#: asks that itself, under the `write` rules: `threads/room_threads.py`).
CARD_ACTIONS: dict[str, str] = {**ACTIONS, "promote": "bring back a side thread's changes"}
#: The kinds whose subject (a command, a URL) rules match against.
WITH_RULES: tuple[str, ...] = ("shell", "url")


def action(kind: str) -> str:
    """What the agent asks to do in a request of `kind`, for a kind the room does not know too."""
    return CARD_ACTIONS.get(kind) or f"use {kind or 'a tool'}"


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: str
    decision: Decision


class KindPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    default: Decision = "ask"
    rules: list[Rule] = Field(default_factory=list)


class ApprovalPolicy(RootModel[dict[str, KindPolicy]]):
    """`{kind: decision}` or `{kind: {"default": decision, "rules": [...]}}`; a rule is
    `{"pattern": ..., "decision": ...}`, `[pattern, decision]` or `"pattern -> decision"`."""

    @model_validator(mode="before")
    @classmethod
    def _normalize(cls, raw: Any) -> dict[str, Any]:
        if not isinstance(raw, dict):
            raise ValueError("the approval policy is a mapping of permission kind to decision")
        kinds: dict[str, Any] = {kind: {} for kind in KINDS}
        for kind, value in raw.items():
            if kind not in KINDS:
                raise ValueError(
                    f"unknown permission kind {kind!r} in the approval policy "
                    f"(kinds: {', '.join(KINDS)})"
                )
            kinds[kind] = _kind(kind, value)
        return kinds

    def decide(self, kind: str, subject: str) -> tuple[Decision, str]:
        """The decision for a request of `kind` about `subject`, and a label naming its rule."""
        policy = self.root.get(kind)
        if policy is None:  # a kind the room does not know yet: people decide
            return "ask", f"{kind}: not in the policy"
        subject = subject.strip()
        skipped = None  # an auto rule that matched a compound command
        for rule in policy.rules:
            if not fnmatchcase(subject, rule.pattern):
                continue
            if rule.decision == "auto" and kind == "shell" and not is_simple(subject):
                skipped = skipped or rule.pattern
                continue  # only a rule that makes it stricter (ask, two, deny) may match it
            return rule.decision, f"{kind}: `{rule.pattern}` -> {rule.decision}"
        said = f" (not a simple command, so `{skipped}` -> auto does not apply)" if skipped else ""
        return policy.default, f"{kind}: default -> {policy.default}{said}"


def _kind(kind: str, value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        value = {"default": value}
    if not isinstance(value, dict):
        raise ValueError(f"approval_policy[{kind!r}]: give a decision or a default and rules")
    if extra := set(value) - {"default", "rules"}:
        raise ValueError(f"approval_policy[{kind!r}]: unknown key {sorted(extra)[0]!r}")
    default = value.get("default", "ask")
    if default not in DECISIONS:
        raise ValueError(
            f"approval_policy[{kind!r}]: {default!r} is not a decision ({', '.join(DECISIONS)})"
        )
    rules = value.get("rules") or []
    if rules and kind not in WITH_RULES:
        raise ValueError(
            f"approval_policy[{kind!r}]: only {' and '.join(WITH_RULES)} take pattern rules"
        )
    return {"default": default, "rules": [_rule(kind, i, rule) for i, rule in enumerate(rules)]}


def _rule(kind: str, index: int, rule: Any) -> dict[str, str]:
    where = f"approval_policy[{kind!r}] rule {index + 1}"
    if isinstance(rule, str):
        pattern, arrow, decision = rule.rpartition("->")
        if not arrow:
            raise ValueError(f"{where}: write it as 'pattern -> decision'")
        rule = {"pattern": pattern.strip(), "decision": decision.strip()}
    elif isinstance(rule, list | tuple) and len(rule) == 2:
        rule = {"pattern": rule[0], "decision": rule[1]}
    if not isinstance(rule, dict) or set(rule) != {"pattern", "decision"}:
        raise ValueError(f"{where}: give a pattern and a decision")
    if not isinstance(rule["pattern"], str) or not rule["pattern"].strip():
        raise ValueError(f"{where}: the pattern is empty")
    if rule["decision"] not in DECISIONS:
        raise ValueError(
            f"{where}: {rule['decision']!r} is not a decision ({', '.join(DECISIONS)})"
        )
    return {"pattern": rule["pattern"].strip(), "decision": rule["decision"]}


#: How a decision reads in a sentence.
WORDS: dict[str, str] = {"ask": "ask", "auto": "auto", "deny": "deny", "two": "two approvers"}


def describe_policy(raw: Any) -> str:
    """One readable line: 'shell: git status* auto · rm * two approvers · default ask; write:
    auto; the rest ask' (kinds that only ask are summed up at the end)."""
    try:
        policy = parse_policy(raw)
    except ValueError:
        return str(raw)
    parts = []
    for kind, rules in policy.root.items():
        if rules.default == "ask" and not rules.rules:
            continue
        said = [f"{rule.pattern} {WORDS[rule.decision]}" for rule in rules.rules]
        said.append(f"default {WORDS[rules.default]}" if said else WORDS[rules.default])
        parts.append(f"{kind}: {' · '.join(said)}")
    asking = len(parts) < len(policy.root)
    return "; ".join([*parts, "the rest ask"] if parts and asking else parts or ["all ask"])


def parse_policy(raw: Any) -> ApprovalPolicy:
    """The policy, or a ValueError whose message names the bad key."""
    try:
        return ApprovalPolicy.model_validate(raw)
    except ValueError as error:  # pydantic's ValidationError: keep only our message
        errors = getattr(error, "errors", None)
        if errors is not None:
            messages = (e["msg"].removeprefix("Value error, ") for e in errors())
            raise ValueError("; ".join(messages)) from None
        raise
