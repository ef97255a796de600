"""What the panel needs of the room's Python declarations, written once as TypeScript.

The panel types what `GET room`'s `me.can` lists (`access.roles.Action`) and what `GET settings`
returns, shows every setting with its help text and bounds (`settings.RoomSettings`), and checks
a prompt's images and chips against the room's own limits (`events`) before it sends them.
None of that is retyped in TypeScript: `python -m jupyter_copilot_room.panel_declarations` writes
`labextension/src/generated/declarations.ts` from those declarations (run it after changing one),
and `labextension/test/generated/rule_cases.json`, what `access/rules.py` answers for the panel's
rule functions to be tested against (`rule_cases.py`); a test checks each shipped file is what
this module writes now, as the event schemas are checked (`eventlog.py`). `typescript.py` lays
the TypeScript out as prettier would, so the panel's lint passes it as generated.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import annotated_types
from pydantic.fields import FieldInfo

from . import events, export, rule_cases, widget
from . import typescript as ts
from .access import approval_policy, rules
from .access.approval_policy import ApprovalPolicy
from .access.identity import SERVER_OWNER
from .access.roles import Action, Role
from .request_bodies import CardDecision
from .room.cards.request_ledger import Outcome
from .room.live.sync import COMPACTED, FELL_BEHIND
from .room.turns.agent_life import AgentState
from .room.turns.queue import TERMINAL, TaskState
from .settings import RoomSettings

MODULE = f"{__package__}.{Path(__file__).stem}"  # `__name__` is `__main__` under `python -m`
OUTPUT = Path(__file__).resolve().parent.parent / "labextension/src/generated/declarations.ts"

#: The limits of `events` the panel checks before sending, with what each bounds.
LIMITS: dict[str, str] = {
    "IMAGE_TYPES": "The image types a prompt's attachments may have.",
    "MAX_IMAGES": "The images one prompt may carry.",
    "MAX_ATTACHMENTS": "The attachments (images and files) one prompt may carry.",
    "MAX_IMAGE_BYTES": "The bytes of one image: an attachment, or an output's as a chip.",
    "MAX_FILE_BYTES": "The bytes of one repository file attached to a prompt.",
    "MAX_CHIPS": "The context chips one prompt may carry.",
    "MAX_CHIP_CELLS": "The cells one `cells` chip may name.",
    "MAX_CHIP_TEXT": "The characters of an output's text sent as a chip.",
    "BIDI_CONTROLS": "The bidirectional controls (code points) shown as a visible mark.",
}

#: How the settings form edits a setting, by its Python type (an enum or a `Literal`: `choice`),
#: and its TypeScript type. A setting of another type fails here until it has a kind and the
#: form an editor for it (labextension/src/components/settings.tsx).
KINDS: dict[Any, tuple[str, str]] = {
    float: ("number", "number"),
    int: ("integer", "number"),
    bool: ("boolean", "boolean"),
    ApprovalPolicy: ("approval_policy", "ApprovalPolicy"),  # hand-written in types.ts
}
#: Settings with an editor of their own, by name: the agent, chosen among those the server
#: offers (the document's `meta.agents`).
NAMED_KINDS: dict[str, tuple[str, str]] = {"agent": ("agent", "string")}
CHOICE = "choice"
BOUNDS = ("gt", "ge", "lt", "le")


def _choices(annotation: Any) -> list[str] | None:
    """An enum's values or a `Literal`'s (an optional one's too); None for any other type."""
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return [member.value for member in annotation]
    if get_origin(annotation) is Literal:
        return [str(arg) for arg in get_args(annotation)]
    literals = [arg for arg in get_args(annotation) if get_origin(arg) is Literal]
    return _choices(literals[0]) if literals else None


def _kind(name: str, field: FieldInfo) -> tuple[str, str]:
    """The setting's kind and TypeScript type."""
    annotation = field.annotation
    if name in NAMED_KINDS:
        return NAMED_KINDS[name]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return CHOICE, annotation.__name__
    if (choices := _choices(annotation)) is not None:
        return CHOICE, " | ".join(ts.string(choice) for choice in choices)
    if annotation not in KINDS:
        raise TypeError(
            f"RoomSettings.{name}: no panel kind for {annotation!r}; add one to "
            f"{MODULE}.KINDS and an editor to labextension/src/components/settings.tsx"
        )
    return KINDS[annotation]


def setting_declaration(name: str, field: FieldInfo) -> dict[str, Any]:
    """One entry of `SETTINGS`: what the settings form needs to show and bound the field."""
    default = field.get_default(call_default_factory=True)
    entry: dict[str, Any] = {
        "name": name,
        "kind": _kind(name, field)[0],
        "description": field.description or "",
        "default": default.model_dump() if isinstance(default, ApprovalPolicy) else default,
    }
    for meta in field.metadata:
        for bound in BOUNDS:
            if isinstance(meta, getattr(annotated_types, bound.capitalize())):
                entry[bound] = getattr(meta, bound)
    if (choices := _choices(field.annotation)) is not None:
        entry["choices"] = choices
    return entry


def _enums() -> list[str]:
    """A union type per enum of the settings, named as in Python."""
    enums: dict[str, type[Enum]] = {}
    for field in RoomSettings.model_fields.values():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            enums.setdefault(annotation.__name__, annotation)
    return [
        ts.union(name, [member.value for member in enum], (enum.__doc__ or name).strip())
        for name, enum in enums.items()
    ]


def _settings_interface() -> str:
    lines = [
        "/** `GET settings`: every setting of `RoomSettings` (settings.py). */",
        "export interface ISettings {",
    ]
    for name, field in RoomSettings.model_fields.items():
        if field.description:
            lines.append(ts.doc(field.description, 2))
        lines.append(f"  {name}: {_kind(name, field)[1]};")
    lines.append("}")
    return "\n".join(lines)


APPROVAL_POLICY = """\
/** A rule as the room returns it, or as a line `pattern -> decision` (which the room parses). */
export type ApprovalRule = { pattern: string; decision: ApprovalDecision } | string;

/** What the approval policy says of one permission kind: its default and its rules. */
export interface IKindPolicy {
  default: ApprovalDecision;
  rules: ApprovalRule[];
}

/** Per permission kind (`access/approval_policy.py` `ApprovalPolicy`). */
export type ApprovalPolicy = Record<string, IKindPolicy>;"""


def _vocabulary() -> list[str]:
    """The words of the wire the panel switches on, each from its one Python declaration."""
    return [
        ts.union("Role", [role.value for role in Role], "A person's role in a room."),
        ts.union(
            "PromptState",
            [state.value for state in TaskState],
            "The A2A task states of a prompt (`room/turns/queue.py`).",
        ),
        ts.union(
            "AgentState",
            [state.value for state in AgentState],
            "What the agent is doing (`meta.state`; `GET rooms`' `state`).",
        ),
        ts.union(
            "RequestOutcome",
            [outcome.value for outcome in Outcome],
            "How a permission request or a question ended (`pending` while it waits).",
        ),
        ts.union(
            "AdmissionDecision",
            list(get_args(events.AdmissionChoice)),
            "What a host decides for someone at the door.",
        ),
        ts.union("CardDecision", list(get_args(CardDecision)), "An answer to a permission card."),
        ts.union(
            "ExportFormat",
            list(export.FORMATS),
            "What `GET transcript?format=` renders the room as.",
        ),
        ts.union(
            "ApprovalDecision",
            list(approval_policy.DECISIONS),
            "What the room does with a permission request of a kind (docs/hosts.md).",
        ),
        APPROVAL_POLICY,
    ]


def _constants() -> list[str]:
    """The values the panel compares with or sends, each from its one Python declaration."""
    return [
        ts.const(
            "ADMITTED_ROLES",
            [role.value for role in Role if rules.admitted(role)],
            "The roles of people in the room (not at the door, not refused).",
            "readonly Role[]",
        ),
        ts.union(
            "AssignableRole",
            [role.value for role in rules.RE_ROLEABLE],
            "The roles a host may give (a host's own is fixed by configuration).",
        ),
        ts.const(
            "ASSIGNABLE_ROLES",
            [role.value for role in rules.RE_ROLEABLE],
            "The roles a host may give, in the role picker's order.",
            "readonly AssignableRole[]",
        ),
        ts.const(
            "SERVER_OWNER",
            SERVER_OWNER.username,
            "The username of the server's own token holder (a kernel, a script): no person.",
        ),
        ts.const(
            "FINISHED_PROMPT_STATES",
            [state.value for state in TaskState if state in TERMINAL],
            "The states of a prompt whose turn is over.",
            "readonly PromptState[]",
        ),
        ts.const(
            "RESYNC_CLOSE_CODES",
            [COMPACTED[0], FELL_BEHIND[0]],
            "Close codes of the room's socket that ask for a fresh sync at once.",
            "readonly number[]",
        ),
        ts.const("WIDGET_MODULE", widget.MODULE_NAME, "The widget's npm module (`RoomWidget`)."),
        ts.const(
            "ROOM_MIME_TYPE",
            widget.ROOM_MIME_TYPE,
            "The room's own mime type in a notebook output: the view options.",
        ),
        ts.union("WidgetPart", list(widget.PARTS), "What a notebook view of the room may show."),
        ts.const(
            "WIDGET_PARTS",
            list(widget.PARTS),
            "Every part a notebook view may show, in order.",
            "readonly WidgetPart[]",
        ),
        ts.const("WIDGET_MIN_HEIGHT", widget.MIN_HEIGHT, "A notebook view's least height (px)."),
        ts.const("WIDGET_MAX_HEIGHT", widget.MAX_HEIGHT, "A notebook view's greatest height (px)."),
        ts.const("WIDGET_DEFAULT_HEIGHT", widget.DEFAULT_HEIGHT, "A notebook view's height (px)."),
    ]


DECLARATION = """\
/** A setting as `RoomSettings` declares it: its help text, default and bounds (pydantic's). */
export interface ISettingDeclaration {
  name: keyof ISettings;
  kind: SettingKind;
  description: string;
  default: ISettings[keyof ISettings];
  gt?: number;
  ge?: number;
  lt?: number;
  le?: number;
  choices?: readonly string[];
}"""


def declarations() -> str:
    """The text of the generated TypeScript file."""
    settings = [
        setting_declaration(name, field) for name, field in RoomSettings.model_fields.items()
    ]
    chip_mimes = _choices(events.Chip.model_fields["mime"].annotation)
    parts = [
        f"// generated by `python -m {MODULE}`, do not edit.\n"
        "// It is written from access/roles.py (Action, Role), settings.py (RoomSettings),\n"
        "// access/approval_policy.py, access/rules.py, widget.py, the states of room/ and\n"
        "// events/ (the limits);\n"
        "// a test checks it is current.",
        ts.union(
            "Action",
            [action.value for action in Action],
            "What `GET room` says the caller may do (`me.can`): every action of the role table.",
        ),
        *_vocabulary(),
        *_constants(),
        *_enums(),
        _settings_interface(),
        ts.union(
            "SettingKind",
            [kind for kind, _ in (*KINDS.values(), *NAMED_KINDS.values())] + [CHOICE],
            "How the settings form edits a setting.",
        ),
        DECLARATION,
        ts.const(
            "SETTINGS",
            settings,
            "Every setting in `RoomSettings`' order: how the settings form shows and bounds it.",
            "readonly ISettingDeclaration[]",
            expand=True,
        ),
        ts.const(
            "APPROVAL_DECISIONS",
            list(approval_policy.DECISIONS),
            "What the approval policy may decide for a permission kind.",
            "readonly string[]",
        ),
        ts.const(
            "REQUEST_ACTIONS",
            approval_policy.CARD_ACTIONS,
            'What the agent asks to do in a request of each kind ("Copilot asked to ...").',
            "Readonly<Record<string, string>>",
        ),
        ts.const(
            "APPROVAL_KINDS_WITH_RULES",
            list(approval_policy.WITH_RULES),
            "The permission kinds whose subject (a command, a URL) the policy's rules match.",
            "readonly string[]",
        ),
    ]
    for name, comment in LIMITS.items():
        value = getattr(events, name)
        if isinstance(value, tuple):
            kind = "number" if all(isinstance(v, int) for v in value) else "string"
            parts.append(ts.const(name, list(value), comment, f"readonly {kind}[]"))
        else:
            parts.append(ts.const(name, value, comment))
    parts.append(
        ts.const(
            "CHIP_MIMES",
            chip_mimes,
            "The types of an output a chip may carry (its text, or an image).",
            "readonly string[]",
        )
    )
    return "\n\n".join(parts) + "\n"


def write_declarations() -> None:
    """Write the panel's generated declarations (run after changing one of their sources)."""
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(declarations())


if __name__ == "__main__":
    write_declarations()
    rule_cases.write_rule_cases()
