"""The notebook tools the agent is offered: their names, descriptions and argument schemas.

Plain data: the agent adapter wraps them into SDK tools. The runtime does not enforce the
JSON-schema bounds below (it folds them into the description), so `validated` checks every call
and answers a bad one with a `NotebookToolError` the model can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

CELL_TYPES = ("code", "markdown", "raw")
MAX_SOURCE = 100_000
MAX_RUN_CELLS = 50
MAX_INSPECT_NAMES = 20
METADATA_KEY = "copilot_room"


class NotebookToolError(Exception):
    """A tool call that cannot be done; the message goes back to the model."""


@dataclass(frozen=True)
class Provenance:
    """Which prompt, person and tool call a cell's latest agent edit came from."""

    prompt_id: str
    author: str
    turn: int
    tool_call_id: str
    time: float
    author_name: str = ""  # a label for readers of the file; the room vouches by `author` only


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict
    #: The room's approval kind it needs: `notebook` (edits, which hosts may let through),
    #: `execute` (running code: always asks), or None (reading).
    approval: str | None


_PATH = {"type": "string", "description": "Notebook path relative to the repository root."}
_CELL = {"type": "string", "description": "The cell's id, as notebook_read lists it."}
_SOURCE = {"type": "string", "description": "The cell's full new source."}

TOOLS = (
    ToolSpec(
        "notebook_read",
        "Read a notebook: each cell's id, type, source and a short summary of its outputs. "
        "Use it before editing, and use these tools (not file writes) for .ipynb files: people "
        "may have the notebook open.",
        {"type": "object", "properties": {"path": _PATH}, "required": ["path"]},
        approval=None,
    ),
    ToolSpec(
        "notebook_insert_cell",
        "Insert a new cell at `index` (0 = first; the number of cells = at the end).",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "index": {"type": "integer", "minimum": 0},
                "cell_type": {"type": "string", "enum": list(CELL_TYPES)},
                "source": _SOURCE,
            },
            "required": ["path", "index", "cell_type", "source"],
        },
        approval="notebook",
    ),
    ToolSpec(
        "notebook_replace_cell",
        "Replace a cell's source (a code cell's outputs are cleared).",
        {
            "type": "object",
            "properties": {"path": _PATH, "cell_id": _CELL, "source": _SOURCE},
            "required": ["path", "cell_id", "source"],
        },
        approval="notebook",
    ),
    ToolSpec(
        "notebook_delete_cell",
        "Delete a cell.",
        {
            "type": "object",
            "properties": {"path": _PATH, "cell_id": _CELL},
            "required": ["path", "cell_id"],
        },
        approval="notebook",
    ),
    ToolSpec(
        "notebook_move_cell",
        "Move a cell to `index` (its position after the move).",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "cell_id": _CELL,
                "index": {"type": "integer", "minimum": 0},
            },
            "required": ["path", "cell_id", "index"],
        },
        approval="notebook",
    ),
    ToolSpec(
        "notebook_run_cells",
        "Run code cells, in the given order, in the notebook's kernel (the one the people in it "
        "use; a new one is started if none runs). The outputs appear in the notebook for "
        "everyone; you get a bounded summary. Runs stop at the first error. Each run waits for "
        "approval.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "cell_ids": {
                    "type": "array",
                    "items": _CELL,
                    "minItems": 1,
                    "maxItems": MAX_RUN_CELLS,
                    "description": "The ids of the code cells to run, in order.",
                },
            },
            "required": ["path", "cell_ids"],
        },
        approval="execute",
    ),
    ToolSpec(
        "notebook_inspect",
        "Describe variables of the notebook's running kernel without changing anything: each "
        "one's type; for a DataFrame its shape, dtypes and first rows; for an array its shape, "
        "dtype and statistics; otherwise a shortened repr. Waits for approval.",
        {
            "type": "object",
            "properties": {
                "path": _PATH,
                "names": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": MAX_INSPECT_NAMES,
                    "description": "Variable names (Python identifiers) in the kernel.",
                },
            },
            "required": ["path", "names"],
        },
        approval="execute",
    ),
)
TOOL_NAMES = frozenset(spec.name for spec in TOOLS)


def validated(tool: str, arguments: Any) -> dict:
    spec = next((s for s in TOOLS if s.name == tool), None)
    if spec is None:
        raise NotebookToolError(f"Unknown notebook tool {tool!r}.")
    if not isinstance(arguments, dict):
        raise NotebookToolError("The arguments must be an object.")
    missing = [k for k in spec.parameters["required"] if k not in arguments]
    if missing:
        raise NotebookToolError(f"Missing argument(s): {', '.join(missing)}.")
    path = arguments["path"]
    if not isinstance(path, str) or not path.endswith(".ipynb") or path.startswith("/"):
        raise NotebookToolError("`path` must be a relative path to an .ipynb file.")
    if "index" in arguments and (
        not isinstance(arguments["index"], int)
        or isinstance(arguments["index"], bool)
        or arguments["index"] < 0
    ):
        raise NotebookToolError("`index` must be a whole number, 0 or more.")
    if "cell_type" in arguments and arguments["cell_type"] not in CELL_TYPES:
        raise NotebookToolError(f"`cell_type` must be one of {', '.join(CELL_TYPES)}.")
    for key in ("source", "cell_id"):
        if key in arguments and not isinstance(arguments[key], str):
            raise NotebookToolError(f"`{key}` must be a string.")
    if "cell_ids" in arguments:
        ids = arguments["cell_ids"]
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise NotebookToolError("`cell_ids` must be a list of cell ids (strings).")
        if not 1 <= len(ids) <= MAX_RUN_CELLS:
            raise NotebookToolError(f"`cell_ids` must name 1 to {MAX_RUN_CELLS} cells.")
    if "names" in arguments:
        names = arguments["names"]
        if not isinstance(names, list) or not all(
            isinstance(n, str) and n.isidentifier() for n in names
        ):
            raise NotebookToolError("`names` must be a list of variable names (identifiers).")
        if not 1 <= len(names) <= MAX_INSPECT_NAMES:
            raise NotebookToolError(f"`names` must name 1 to {MAX_INSPECT_NAMES} variables.")
    if len(arguments.get("source", "")) > MAX_SOURCE:
        raise NotebookToolError(f"`source` is longer than {MAX_SOURCE} characters.")
    return arguments
