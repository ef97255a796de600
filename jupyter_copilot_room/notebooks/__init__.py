"""Notebook tools: the agent reads and edits notebooks the way a collaborator does."""

from .editor import NotebookEditor
from .tools import TOOL_NAMES, TOOLS, NotebookToolError, Provenance, ToolSpec

__all__ = ["TOOLS", "TOOL_NAMES", "NotebookEditor", "NotebookToolError", "Provenance", "ToolSpec"]
