"""What a person points at, attached to their prompt as context chips.

A chip names something (`events.Chip`): a notebook, cells of it by id, a file, lines of a file, or
one output of a cell captured as the person saw it. The room checks every chip when the prompt is
submitted (`check`: inside the server's root, the fields its kind needs, bounded sizes), and reads
what it names when the turn starts (`expand`): from the live shared document when the notebook or
file is open, else from disk, so the model sees what the chip says now. Something named that no
longer exists (a deleted cell, a removed file) is said to the model and returned as `missing`, for
the room to show; it is never silently dropped. An output's image is stored like an uploaded image
(`store_images`, `attachments.py`) and goes to the model as an image attachment
(`agent.base.Image`).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NoReturn

from ..agent.seam import TurnImage
from ..errors import InvalidRequest, NotFound
from ..events import MAX_IMAGE_BYTES, Chip
from .editor import NotebookEditor
from .edits import source_of
from .tools import NotebookToolError

if TYPE_CHECKING:
    from ..attachments import AttachmentStore

#: What the model is given of one cell's source, one output's text, one file.
MAX_SOURCE = 20_000
MAX_OUTPUT = 2_000
MAX_FILE = 100_000
#: A whole notebook chip lists at most this many cells.
MAX_NOTEBOOK_CELLS = 200

_FIELDS = {
    "notebook": set(),
    "cells": {"cell_ids"},
    "file": set(),
    "selection": {"start_line", "end_line"},
    "output": {"cell_ids", "mime", "text", "data", "id"},
}


def check(chips: list[Chip] | None, editor: NotebookEditor | None) -> None:
    """Refuse (400 `invalid_chip`) a chip the room could not expand as it says."""
    for n, chip in enumerate(chips or [], start=1):
        where = f"Context chip {n} ({chip.kind} {chip.path!r})"
        extra = {
            name
            for name in (
                "cell_ids",
                "start_line",
                "end_line",
                "mime",
                "text",
                "data",
                "id",
                "bytes",
            )
            if getattr(chip, name) is not None
        } - _FIELDS[chip.kind]
        if extra:
            _refuse(f"{where} has fields its kind does not take: {', '.join(sorted(extra))}.")
        if editor is None:
            _refuse(f"{where}: this room reads no files, so it takes no context chips.")
        try:
            real = editor.resolve(chip.path)
        except NotebookToolError:
            _refuse(f"{where} leads outside the repository; chips name files inside it.")
        target = editor.root() / real
        if not target.is_file():
            _refuse(f"{where}: there is no such file.")
        if chip.kind in ("notebook", "cells", "output") and not chip.path.endswith(".ipynb"):
            _refuse(f"{where} is not a notebook (.ipynb).")
        match chip.kind:
            case "cells" if not chip.cell_ids:
                _refuse(f"{where} names no cell (cell_ids).")
            case "selection" if chip.start_line is None or chip.end_line is None:
                _refuse(f"{where} needs start_line and end_line.")
            case "selection" if chip.end_line < chip.start_line:  # type: ignore[operator]
                _refuse(f"{where} ends (end_line) before it starts (start_line).")
            case "output":
                _check_output(where, chip)


def _check_output(where: str, chip: Chip) -> None:
    if chip.cell_ids is None or len(chip.cell_ids) != 1:
        _refuse(f"{where} names the cell the output came from: one id in cell_ids.")
    if sum(v is not None for v in (chip.text, chip.data, chip.id)) != 1:
        _refuse(
            f"{where} holds either text or an image (data, or the id of an uploaded one), "
            "one of them."
        )
    if chip.text is not None and chip.mime not in (None, "text/plain"):
        _refuse(f"{where}: a text output is text/plain.")
    if chip.text is None and (chip.mime is None or chip.mime == "text/plain"):
        _refuse(f"{where}: an image needs its type (mime), e.g. image/png.")
    if chip.data is not None:
        try:
            size = len(base64.b64decode(chip.data, validate=True))
        except (binascii.Error, ValueError):
            _refuse(f"{where}: the image (data) is not valid base64.")
        if size > MAX_IMAGE_BYTES:
            _refuse(f"{where}: the image has {size:,} bytes; at most {MAX_IMAGE_BYTES:,}.")


def _refuse(message: str) -> NoReturn:
    raise InvalidRequest(message, code="invalid_chip")


def store_images(chips: list[Chip] | None, store: AttachmentStore) -> list[Chip]:
    """The chips as their record holds them: an output's image checked like an upload (a clear
    4xx when it is not the image it claims), stored once, named by `id` and `bytes`."""
    stored = []
    for n, chip in enumerate(chips or [], start=1):
        if chip.data is not None:
            upload = store.add(base64.b64decode(chip.data), chip.mime or "")
        elif chip.id is not None:
            upload = store.describe(chip.id)
            if upload.mime != chip.mime:
                _refuse(f"Context chip {n}: the image {chip.id} is {upload.mime}, not {chip.mime}.")
        else:
            stored.append(chip)
            continue
        stored.append(
            chip.model_copy(update={"data": None, "id": upload.id, "bytes": upload.bytes})
        )
    return stored


@dataclass
class Context:
    """The chips as the model gets them: text after the prompt, images beside it."""

    text: str = ""
    images: list[TurnImage] = field(default_factory=list)
    #: What a chip named that no longer exists, one sentence each (the room shows them).
    missing: list[str] = field(default_factory=list)


async def expand(
    chips: list[Chip] | None, editor: NotebookEditor | None, store: AttachmentStore
) -> Context:
    context = Context()
    if not chips:
        return context
    parts = [
        "Context the author attached to this prompt (read when the turn started; open "
        "notebooks and files from the live shared document):"
    ]
    for n, chip in enumerate(chips, start=1):
        parts.append(f"[{n}] " + await _expand_one(chip, editor, context, store))
    context.text = "\n\n".join(parts)
    return context


async def _expand_one(
    chip: Chip, editor: NotebookEditor | None, context: Context, store: AttachmentStore
) -> str:
    if chip.kind == "output":
        return _output_chip(chip, context, store)
    if editor is None:
        return _gone(context, f"{chip.path} could not be read: this room reads no files.")
    try:
        if chip.kind in ("file", "selection"):
            text, live = await editor.text(chip.path)
        else:
            cells, live = await editor.cells(chip.path)
    except NotebookToolError:
        return _gone(context, f"{chip.path} no longer exists (or cannot be read).")
    where = "open, live" if live else "from disk"
    match chip.kind:
        case "file":
            return f"File {chip.path} ({where}):\n{_fenced(_cut(text, MAX_FILE))}"
        case "selection":
            lines = text.splitlines()
            start, end = chip.start_line or 1, min(chip.end_line or 1, len(lines))
            if start > len(lines):
                return _gone(
                    context, f"Lines {start}-{chip.end_line} of {chip.path} no longer exist."
                )
            body = "\n".join(lines[start - 1 : end])
            return f"Lines {start}-{end} of {chip.path} ({where}):\n{_fenced(_cut(body, MAX_FILE))}"
        case "notebook":
            shown = cells[:MAX_NOTEBOOK_CELLS]
            more = len(cells) - len(shown)
            head = f"Notebook {chip.path} ({where}), {len(cells)} cells"
            body = "\n\n".join(_cell(cell) for cell in shown)
            return f"{head}:\n\n{body}" + (f"\n\n[{more} more cells not shown]" if more else "")
    by_id = {cell.get("id"): cell for cell in cells}
    found = [by_id[i] for i in chip.cell_ids or [] if i in by_id]
    lines = [f"Selected cells of notebook {chip.path} ({where}):"]
    lines += [_cell(cell) for cell in found]
    for cell_id in chip.cell_ids or []:
        if cell_id not in by_id:
            lines.append(
                _gone(
                    context,
                    f"Cell {cell_id} of {chip.path} was attached but no longer exists "
                    "(deleted since).",
                )
            )
    return "\n\n".join(lines)


def _output_chip(chip: Chip, context: Context, store: AttachmentStore) -> str:
    cell = (chip.cell_ids or ["?"])[0]
    data = chip.data
    if chip.id is not None:
        try:
            data = base64.b64encode(store.path(chip.id).read_bytes()).decode()
        except (NotFound, OSError):
            return _gone(
                context, f"The image output of cell {cell} in {chip.path} is no longer stored."
            )
    if data is not None:
        size = len(base64.b64decode(data))
        name = f"output of cell {cell} in {chip.path}"
        context.images.append(TurnImage(mime=chip.mime or "image/png", data=data, name=name))
        return (
            f"An output of cell {cell} in notebook {chip.path}: {chip.mime}, {size:,} bytes, "
            "attached as an image."
        )
    return f"An output of cell {cell} in notebook {chip.path} (text):\n" + _fenced(
        _cut(chip.text or "", MAX_FILE)
    )


def _gone(context: Context, sentence: str) -> str:
    context.missing.append(sentence)
    return "NOT FOUND: " + sentence


def _cell(cell: dict) -> str:
    kind = cell.get("cell_type", "code")
    text = f"cell {cell.get('id')} ({kind}):\n" + _fenced(_cut(source_of(cell), MAX_SOURCE))
    outputs = cell.get("outputs") or []
    if outputs:
        text += "\noutputs:\n" + "\n".join(f"- {_summary(o)}" for o in outputs[:10])
        if len(outputs) > 10:
            text += f"\n- [{len(outputs) - 10} more outputs not shown]"
    return text


def _summary(output: dict) -> str:
    """One output in a few lines: text cut with a marker, errors by name, rich data described."""
    kind = output.get("output_type", "")
    if kind == "stream":
        return f"{output.get('name', 'stream')}: {_cut(_joined(output.get('text')), MAX_OUTPUT)}"
    if kind == "error":
        return f"error {output.get('ename')}: {_cut(str(output.get('evalue')), MAX_OUTPUT)}"
    data = output.get("data") or {}
    rich = [m for m in data if m != "text/plain"]
    described = ", ".join(f"{m} ({len(_joined(data[m])):,} characters)" for m in rich)
    plain = _joined(data.get("text/plain")) if "text/plain" in data else ""
    return "; ".join(p for p in (described, _cut(plain, MAX_OUTPUT)) if p) or kind


def _joined(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit:,} more characters cut]"


def _fenced(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{text}\n{fence}"
