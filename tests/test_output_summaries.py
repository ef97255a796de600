"""The model's summary of a cell's outputs: bounded, cuts visible, errors by their last frames,
rich outputs described (the notebook itself keeps everything)."""

import base64
import struct
import zlib

from jupyter_copilot_room.notebooks.outputs import MAX_TEXT, png_size, summarize


def png(width, height):
    """A real (tiny-data) PNG's bytes, base64 as a notebook holds them."""
    header = b"\x89PNG\r\n\x1a\n"
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    chunk = (
        struct.pack(">I", len(ihdr))
        + b"IHDR"
        + ihdr
        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    )
    return base64.b64encode(header + chunk).decode()


def test_long_text_is_cut_with_a_marker_that_says_how_much():
    text = "x" * 5_000_000
    summary = summarize([{"output_type": "stream", "name": "stdout", "text": text}])
    assert len(summary.text) < MAX_TEXT + 200
    assert "characters not shown; the notebook holds the whole output" in summary.text
    left_out = len("[stdout]\n") + 5_000_000 - MAX_TEXT
    assert f"{left_out:,} characters" in summary.text


def test_streams_of_one_name_are_joined_and_short_text_is_whole():
    outputs = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stdout", "text": ["b\n", "c\n"]},
        {"output_type": "stream", "name": "stderr", "text": "warn\n"},
    ]
    assert summarize(outputs).text == "[stdout]\na\nb\nc\n\n[stderr]\nwarn\n"


def test_an_error_keeps_its_last_frames_without_colours():
    frames = [f"\x1b[0;31mFrame {n}\x1b[0m in f{n}()" for n in range(10)]
    error = {
        "output_type": "error",
        "ename": "ZeroDivisionError",
        "evalue": "division by zero",
        "traceback": frames,
    }
    text = summarize([error]).text
    assert text.startswith("[error] ZeroDivisionError: division by zero")
    assert "Frame 9 in f9()" in text and "Frame 7" in text and "Frame 6" not in text
    assert "\x1b" not in text


def test_rich_outputs_are_described():
    table = (
        "<table><thead><tr><th></th><th>a</th></tr></thead><tbody>"
        + "".join(f"<tr><th>{i}</th>{'<td>1</td>' * 5}</tr>" for i in range(20))
        + "</tbody></table>"
    )
    outputs = [
        {
            "output_type": "display_data",
            "data": {"image/png": png(640, 480), "text/plain": "<Figure>"},
            "metadata": {},
        },
        {
            "output_type": "execute_result",
            "data": {"text/html": table, "text/plain": "df"},
            "metadata": {},
            "execution_count": 3,
        },
    ]
    summary = summarize(outputs)
    assert "[image/png 640x480]" in summary.text and "<Figure>" in summary.text
    assert "[text/html table 20x5]" in summary.text
    assert [i.description for i in summary.images] == ["image/png 640x480"]


def test_png_size_refuses_what_is_not_a_png():
    assert png_size(png(3, 2)) == (3, 2)
    assert png_size(base64.b64encode(b"GIF89a" + b"\0" * 30).decode()) is None
    assert png_size("not base64!") is None
