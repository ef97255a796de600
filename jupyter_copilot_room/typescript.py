"""TypeScript source in prettier's layout, for the files the panel's declarations are generated
into (`panel_declarations.py`).

A generated file must pass `jlpm lint:check` as written, without running node: so literals,
unions and JSDoc comments are laid out here as prettier lays them out with the panel's settings
(labextension/package.json: `printWidth` 100, single quotes, no trailing commas). Only what the
generated file uses is covered: strings, numbers, booleans, null, lists and dicts of them.
"""

from __future__ import annotations

import re
import textwrap
from enum import Enum
from typing import Any

WIDTH = 100  # labextension/package.json `prettier.printWidth`


def string(text: str) -> str:
    """A string literal as prettier writes it: single quotes unless they need more escapes."""
    quote = '"' if text.count("'") > text.count('"') else "'"
    escaped = text.replace("\\", "\\\\").replace(quote, "\\" + quote).replace("\n", "\\n")
    return quote + escaped + quote


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) else string(name)


def _inline(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Enum):
        return _inline(value.value)
    if isinstance(value, str):
        return string(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_inline(item) for item in value) + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{_key(k)}: {_inline(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TypeScript literal for {value!r}")


def literal(
    value: Any, indent: int = 0, used: int = 0, suffix: str = "", expand: bool = False
) -> str:
    """`value` after `used` characters of its line (followed by `suffix`): on that line if it
    fits, else broken over lines indented from `indent`; `expand` breaks a dict all the same
    (prettier keeps an object broken that was written broken)."""
    text = _inline(value)
    broken = _breaks(value) or (expand and isinstance(value, dict) and bool(value))
    if not broken and used + len(text) + len(suffix) <= WIDTH:
        return text
    if isinstance(value, dict):
        last = len(value) - 1
        props = [_property(k, v, indent + 2, n == last) for n, (k, v) in enumerate(value.items())]
        return "{\n" + "\n".join(props) + "\n" + " " * indent + "}"
    if isinstance(value, list | tuple) and value and all(_is_number(v) for v in value):
        return _filled([_inline(v) for v in value], indent)  # prettier fills a list of numbers
    if isinstance(value, list | tuple):
        inner = " " * (indent + 2)
        items = []
        for n, item in enumerate(value):
            comma = "," if n < len(value) - 1 else ""
            items.append(inner + literal(item, indent + 2, len(inner), comma) + comma)
        return "[\n" + "\n".join(items) + "\n" + " " * indent + "]"
    return text  # a string or a number: prettier does not break it


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _filled(items: list[str], indent: int) -> str:
    """Items as many to a line as fit, as prettier lays out an array of numbers."""
    inner = " " * (indent + 2)
    lines, line = [], inner
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else "")
        if line != inner and len(line) + 1 + len(piece) > WIDTH:
            lines.append(line)
            line = inner
        line += piece if line == inner else " " + piece
    lines.append(line)
    return "[\n" + "\n".join(lines) + "\n" + " " * indent + "]"


def _breaks(value: Any) -> bool:
    """Prettier breaks a list of several lists (dicts) of several items even when it fits."""
    if not isinstance(value, list | tuple) or len(value) < 2:
        return False
    kind = list | tuple if isinstance(value[0], list | tuple) else dict
    return all(isinstance(item, kind) and len(item) > 1 for item in value)


def _property(key: str, value: Any, indent: int, last: bool) -> str:
    head = " " * indent + _key(key) + ": "
    suffix = "" if last else ","
    if isinstance(value, str) and len(head) + len(string(value)) + len(suffix) > WIDTH:
        return head.rstrip() + "\n" + " " * (indent + 2) + string(value) + suffix
    return head + literal(value, indent, len(head), suffix) + suffix


def doc(text: str, indent: int = 0) -> str:
    """A JSDoc comment, wrapped to the width."""
    pad = " " * indent
    one = f"{pad}/** {text} */"
    if len(one) <= WIDTH:
        return one
    lines = textwrap.wrap(text, WIDTH - indent - 3, break_on_hyphens=False)
    return "\n".join([f"{pad}/**", *(f"{pad} * {line}" for line in lines), f"{pad} */"])


def union(name: str, members: list[str], comment: str) -> str:
    """`export type name = 'a' | 'b';`, with its comment."""
    literals = [string(member) for member in members]
    one = f"export type {name} = {' | '.join(literals)};"
    if len(one) <= WIDTH:
        return f"{doc(comment)}\n{one}"
    if len(joined := f"  {' | '.join(literals)};") <= WIDTH:
        return f"{doc(comment)}\nexport type {name} =\n{joined}"
    body = "\n".join(f"  | {member}" for member in literals)
    return f"{doc(comment)}\nexport type {name} =\n{body};"


def const(name: str, value: Any, comment: str, annotation: str = "", expand: bool = False) -> str:
    """`export const name: annotation = value;`, with its comment; `expand` breaks the dicts of
    a list (as `literal` does a dict)."""
    head = f"export const {name}{f': {annotation}' if annotation else ''} = "
    if expand and isinstance(value, list | tuple) and value:
        items = [
            "  " + literal(item, 2, 2, "," if n < len(value) - 1 else "", expand=True)
            for n, item in enumerate(value)
        ]
        return f"{doc(comment)}\n{head}[\n" + ",\n".join(items) + "\n];"
    return f"{doc(comment)}\n{head}{literal(value, 0, len(head), ';')};"
