"""What the model is told about a cell's outputs: bounded, plain text, every cut visible.

The notebook keeps every output whole; the model gets a summary it can afford: text cut with a
marker saying how much was left out, an error's name, value and the last frames of its traceback
(ANSI colours stripped), and rich outputs described (`image/png 640x480`, `text/html table 20x5`).
PNG images are also handed back as images, for models that accept them.
"""

from __future__ import annotations

import base64
import re
import struct
from dataclasses import dataclass, field

#: Characters of text output one cell's summary may hold (the head and the tail are kept).
MAX_TEXT = 4000
#: Traceback frames an error keeps, counted from the end (where the cause is).
LAST_FRAMES = 3
#: Characters one traceback frame may keep.
MAX_FRAME = 1500
#: Images handed to the model per tool call, and the largest one (base64 characters).
MAX_IMAGES = 3
MAX_IMAGE_CHARS = 1_500_000

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass(frozen=True)
class OutputImage:
    mime_type: str
    data: str  # base64, as the notebook holds it
    description: str


@dataclass
class Summary:
    """A cell's outputs for the model: text lines and any images."""

    text: str
    images: list[OutputImage] = field(default_factory=list)


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def cut(text: str, limit: int = MAX_TEXT) -> str:
    """`text` at most `limit` characters: its head and tail with a marker for what is left out."""
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    tail = limit - head
    left_out = len(text) - head - tail
    return (
        f"{text[:head]}\n[... {left_out:,} characters not shown; the notebook holds the whole "
        f"output ...]\n{text[-tail:]}"
    )


def summarize(outputs: list[dict], *, limit: int = MAX_TEXT) -> Summary:
    """The outputs of one cell, in order; streams of one name are joined as the notebook shows
    them, and all text shares one budget of `limit` characters."""
    parts: list[str] = []
    images: list[OutputImage] = []
    for output in _joined_streams(outputs):
        kind = output.get("output_type", "")
        if kind == "stream":
            parts.append(f"[{output.get('name', 'stdout')}]\n{strip_ansi(_text(output['text']))}")
        elif kind == "error":
            parts.append(describe_error(output))
        elif kind in ("display_data", "execute_result"):
            said, image = describe_data(output.get("data") or {}, output.get("metadata") or {})
            parts.append(said)
            if image is not None:
                images.append(image)
    return Summary(cut("\n".join(parts), limit), images)


def describe_error(output: dict) -> str:
    frames = [strip_ansi(_text(f)).strip() for f in output.get("traceback") or []]
    frames = [cut(f, MAX_FRAME) for f in frames[-LAST_FRAMES:] if f]
    head = f"[error] {output.get('ename', 'Error')}: {strip_ansi(str(output.get('evalue', '')))}"
    if not frames:
        return head
    return head + "\nTraceback (last frames):\n" + "\n".join(frames)


def describe_data(data: dict, metadata: dict) -> tuple[str, OutputImage | None]:
    """A rich output as words (its richest type described, its plain text kept) and, for a PNG,
    the image itself."""
    plain = _text(data.get("text/plain", ""))
    described: list[str] = []
    image = None
    for mime, value in data.items():
        if mime == "text/plain":
            continue
        if mime == "image/png":
            size = png_size(_text(value))
            words = f"image/png {size[0]}x{size[1]}" if size else "image/png"
            described.append(words)
            if len(_text(value)) <= MAX_IMAGE_CHARS:
                image = OutputImage(mime, _text(value).replace("\n", ""), words)
        elif mime.startswith("image/"):
            described.append(mime)
        elif mime == "text/html":
            described.append(describe_html(_text(value)))
        else:
            described.append(f"{mime} ({len(_text(value)):,} characters)")
    line = f"[{', '.join(described)}]" if described else ""
    return "\n".join(p for p in (line, strip_ansi(plain)) if p), image


def describe_html(html: str) -> str:
    """`text/html table ROWSxCOLS` for a table (as pandas writes one), else its size."""
    if "<table" not in html:
        return f"text/html ({len(html):,} characters)"
    body = html.split("<tbody", 1)[1] if "<tbody" in html else html
    rows = re.findall(r"<tr\b.*?</tr>", body, flags=re.DOTALL | re.IGNORECASE)
    columns = len(re.findall(r"<td\b", rows[0], flags=re.IGNORECASE)) if rows else 0
    if not columns and rows:
        columns = len(re.findall(r"<th\b", rows[0], flags=re.IGNORECASE))
    return f"text/html table {len(rows)}x{columns}"


def png_size(data: str) -> tuple[int, int] | None:
    """Width and height from a base64 PNG's header (IHDR), without decoding the rest."""
    try:
        head = base64.b64decode(data.replace("\n", "")[:32])
    except ValueError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def _joined_streams(outputs: list[dict]) -> list[dict]:
    joined: list[dict] = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (
            output.get("output_type") == "stream"
            and last is not None
            and last.get("output_type") == "stream"
            and last.get("name") == output.get("name")
        ):
            joined[-1] = {**last, "text": _text(last["text"]) + _text(output.get("text", ""))}
        else:
            joined.append(output)
    return joined


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)
