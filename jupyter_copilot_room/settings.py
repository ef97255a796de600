"""Room settings a host may change while the room runs, declared once.

`RoomSettings` is the one declaration: the `c.CopilotRoom.*` traitlets that give the starting
values (`settings_traits`), the partial body of `PATCH settings` (`SettingsPatch`) and what
`GET settings` returns all come from its fields. A host's changes are recorded in the transcript
(replayed at start, so they win over configuration and a restart never silently undoes them) and
cached in `state_dir/settings.json`.

`auto_approve_notebook_edits` is no setting of its own: it is the approval policy's `notebook`
default said as yes or no (`auto`, or not), so the two can never disagree on screen. Set to
true (configuration, `PATCH settings`, a change replayed from an older transcript) it makes that
default `auto`; set to false it makes an `auto` default `ask`.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import traitlets
from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from .access.approval_policy import ApprovalPolicy
from .statefiles import write_cache


class Policy(StrEnum):
    """What happens to someone nobody decided on yet."""

    ASK_HOST = "ask-host"
    VIEWER = "viewer"
    MEMBER = "member"
    REFUSE = "refuse"


class RoomSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    admission: Policy = Field(
        Policy.ASK_HOST,
        description="What happens to a verified user nobody decided on yet: 'ask-host' (wait "
        "at the door for a host), 'viewer', 'member' or 'refuse'.",
    )
    guest_admission: Policy = Field(
        Policy.ASK_HOST,
        description="The same policy for unverified guests (anonymous users of a "
        "token-protected server).",
    )
    permission_timeout: float = Field(
        120.0,
        gt=0,
        le=3600,
        description="Seconds a permission request waits for its author or a host; then it is "
        "rejected.",
    )
    question_timeout: float = Field(
        60.0, gt=0, le=3600, description="Seconds a question from the agent waits for an answer."
    )
    max_prompt_chars: int = Field(
        20_000,
        gt=0,
        le=1_000_000,
        description="The longest prompt the room accepts, in characters.",
    )
    max_waiting_prompts: int = Field(
        5,
        gt=0,
        le=1000,
        description="How many prompts one person may have waiting in the queue at once; more "
        "are refused (429) until one of theirs starts.",
    )
    turn_timeout: float = Field(
        600.0,
        gt=0,
        le=86_400,
        description="Seconds a turn may run; then the room aborts it and marks it failed.",
    )
    execution_timeout: float = Field(
        300.0,
        gt=0,
        le=86_400,
        description="Seconds one notebook cell the agent runs may take; then the room interrupts "
        "the kernel and the run fails.",
    )
    auto_approve_notebook_edits: bool = Field(
        False,
        description="Let the agent's notebook edits through without asking: the approval "
        "policy's notebook default as yes (auto) or no; running cells, shell commands and other "
        "kinds are not changed by it.",
    )
    viewers_can_chat: bool = Field(
        False,
        description="Let viewers say things to the room (chat messages, never prompts); "
        "members and hosts always can.",
    )
    approval_policy: ApprovalPolicy = Field(
        default_factory=lambda: ApprovalPolicy.model_validate({}),
        description="Per permission kind (shell, write, read, url, mcp, notebook, execute, "
        "custom-tool) 'ask', 'auto', 'deny' or 'two' (two approvers), e.g. {'write': 'auto', "
        "'shell': {'default': 'ask', 'rules': ['git status* -> auto', 'rm * -> two']}}; shell "
        "and url rules are globs on the command or URL, the first match wins; an 'auto' shell "
        "rule applies only to a simple command, never to one with ;, &&, |, a redirection or "
        "$(...) (docs/hosts.md).",
    )
    authors_can_revert: bool = Field(
        False,
        description="Let a turn's author revert it (its checkpoint); hosts always can.",
    )
    agent: str = Field(
        "copilot",
        min_length=1,
        description="Which agent answers the room's prompts, among those the server offers "
        "(the room's own Copilot and c.CopilotRoom.agents); a new room starts with "
        "c.CopilotRoom.default_agent. A change starts it between turns, in a session of its "
        "own: it does not remember the conversation, which stays in the transcript.",
    )

    @model_validator(mode="before")
    @classmethod
    def _notebook_edits_into_the_policy(cls, data: Any) -> Any:
        """A configured `auto_approve_notebook_edits = True` is the policy's notebook `auto`."""
        if isinstance(data, dict) and data.get("auto_approve_notebook_edits"):
            return {**data, "approval_policy": notebook_default(data.get("approval_policy"), True)}
        return data

    @model_validator(mode="after")
    def _notebook_edits_from_the_policy(self) -> RoomSettings:
        self.auto_approve_notebook_edits = self.approval_policy.root["notebook"].default == "auto"
        return self


#: Settings whose configured value another trait gives: `agent` is `c.CopilotRoom.default_agent`.
FROM_OTHER_TRAITS = {"agent": "default_agent"}

#: The setting that only says what the policy's notebook default is.
NOTEBOOK_EDITS = "auto_approve_notebook_edits"


def notebook_default(policy: Any, auto: bool) -> dict:
    """`policy` (as given, or an `ApprovalPolicy`) with its notebook default `auto`, or (for
    `auto` false) an `auto` notebook default made `ask`."""
    given = policy.model_dump() if isinstance(policy, ApprovalPolicy) else dict(policy or {})
    notebook = given.get("notebook", "ask")
    notebook = dict(notebook) if isinstance(notebook, dict) else {"default": notebook}
    if auto:
        notebook["default"] = "auto"
    elif notebook.get("default") == "auto":
        notebook["default"] = "ask"
    return {**given, "notebook": notebook}


def _optional(name: str) -> tuple[Any, None]:
    """The setting's type and bounds, or None (not given)."""
    field = RoomSettings.model_fields[name]
    annotation: Any = field.annotation
    if field.metadata:
        annotation = Annotated[annotation, *field.metadata]
    return annotation | None, None


#: `PATCH settings`: every setting optional, with the same bounds; only the fields given change.
SettingsPatch: type[BaseModel] = create_model(
    "SettingsPatch",
    __config__=ConfigDict(extra="forbid", use_enum_values=True),
    **{name: _optional(name) for name in RoomSettings.model_fields},  # type: ignore[call-overload]
)


def settings_traits() -> dict[str, traitlets.TraitType]:
    """The configurable traits of `c.CopilotRoom` that set each setting's starting value."""
    traits: dict[str, traitlets.TraitType] = {}
    for name, field in RoomSettings.model_fields.items():
        if name in FROM_OTHER_TRAITS:
            continue
        options: dict[str, Any] = {"config": True, "help": field.description or ""}
        if field.annotation is ApprovalPolicy:
            traits[name] = traitlets.Dict({}, **options)
        elif field.annotation is Policy:
            values = [policy.value for policy in Policy]
            traits[name] = traitlets.Enum(values, default_value=field.default.value, **options)
        else:
            kinds: dict[Any, type[traitlets.TraitType]] = {
                bool: traitlets.Bool,
                int: traitlets.Int,
                float: traitlets.Float,
            }
            traits[name] = kinds[field.annotation](field.default, **options)
    return traits


class SettingsStore:
    """The effective settings: configured defaults overlaid with what hosts changed."""

    def __init__(self, path: Path, configured: RoomSettings):
        self.path = path
        self._overrides: dict = {}
        self.current = configured

    def changes(self, patch: BaseModel) -> dict:
        """The fields a patch would actually change (`auto_approve_notebook_edits` as the
        approval policy it makes)."""
        current = self.current.model_dump()
        given = self._in_the_policy(patch.model_dump(exclude_none=True))
        return {name: value for name, value in given.items() if current[name] != value}

    def apply(self, changes: dict) -> None:
        """Apply and cache changes (see `changes`)."""
        self.restore(changes)
        self.save()

    def restore(self, changes: dict) -> None:
        """Changes replayed from the transcript; a setting that no longer exists is ignored."""
        known = {k: v for k, v in changes.items() if k in RoomSettings.model_fields}
        known = self._in_the_policy(known)
        self._overrides.update(known)
        current = self.current.model_dump(exclude={NOTEBOOK_EDITS})
        self.current = RoomSettings.model_validate({**current, **known})

    def _in_the_policy(self, changes: dict) -> dict:
        """`changes` with `auto_approve_notebook_edits` made the approval policy it says."""
        if NOTEBOOK_EDITS not in changes:
            return changes
        changes = dict(changes)
        auto = changes.pop(NOTEBOOK_EDITS)
        policy = changes.get("approval_policy", self.current.approval_policy)
        return {**changes, "approval_policy": notebook_default(policy, auto)}

    def save(self) -> None:
        write_cache(self.path, self._overrides)
