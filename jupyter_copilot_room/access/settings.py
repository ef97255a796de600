"""Room settings a host may change while the room runs (`GET/PATCH settings`).

Configuration (`c.CopilotRoom.*`) gives the starting values; a host's changes are kept in
`state_dir/settings.json` and win over configuration from then on, so a restart never silently
undoes what a host decided in the room.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..statefiles import read_json, write_json_atomically
from .admissions import Policy


class RoomSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    admission: Policy = Policy.ASK_HOST
    guest_admission: Policy = Policy.ASK_HOST
    permission_timeout: float = Field(120.0, gt=0, le=3600)
    question_timeout: float = Field(60.0, gt=0, le=3600)
    max_prompt_chars: int = Field(20_000, gt=0, le=1_000_000)
    turn_timeout: float = Field(600.0, gt=0, le=86_400)
    #: Notebook edits (kind `notebook`) approve themselves; no other kind ever does.
    auto_approve_notebook_edits: bool = False


class SettingsPatch(BaseModel):
    """A partial update: only the fields given change."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)

    admission: Policy | None = None
    guest_admission: Policy | None = None
    permission_timeout: float | None = Field(None, gt=0, le=3600)
    question_timeout: float | None = Field(None, gt=0, le=3600)
    max_prompt_chars: int | None = Field(None, gt=0, le=1_000_000)
    turn_timeout: float | None = Field(None, gt=0, le=86_400)
    auto_approve_notebook_edits: bool | None = None


class SettingsStore:
    """The effective settings: configured defaults overlaid with what hosts changed."""

    def __init__(self, path: Path, configured: RoomSettings):
        self.path = path
        self._overrides: dict = read_json(path) or {}
        self.current = RoomSettings.model_validate({**configured.model_dump(), **self._overrides})

    def apply(self, patch: SettingsPatch) -> dict:
        """Apply and persist a patch; returns the fields that actually changed."""
        changes = {
            name: value
            for name, value in patch.model_dump(exclude_none=True).items()
            if getattr(self.current, name) != value
        }
        if changes:
            self._overrides.update(changes)
            write_json_atomically(self.path, self._overrides)
            self.current = self.current.model_copy(update=changes)
        return changes
