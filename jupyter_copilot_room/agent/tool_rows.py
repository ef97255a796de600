"""What a tool row shows of a call's arguments, whichever agent made it: one readable line (the
command, the path, the pattern or the URL) and the arguments with their long strings cut."""

from __future__ import annotations


def summarize_arguments(tool: str, arguments: dict) -> str:
    """A readable line for a tool card: the command, the path, the pattern or the URL."""
    for key in ("command", "path", "file_path", "pattern", "url", "query", "prompt", "description"):
        if value := arguments.get(key):
            return str(value).splitlines()[0][:300]
    return tool


def trim_arguments(arguments: dict) -> dict:
    return {k: (v[:2000] if isinstance(v, str) else v) for k, v in arguments.items()}
