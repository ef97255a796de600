"""Context chips: what a person points at (cells of an open notebook, an output) reaches the real
runtime's model request, expanded from the live shared document when the turn starts; a cell
deleted meanwhile is said to the model and in the room; bad chips are a clear 400; a queued
prompt's chips survive a restart."""

import base64
import hashlib
import json
import struct
import zlib

import pytest
from jupyter_server.services.contents.filemanager import FileContentsManager

from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.notebooks import NotebookEditor
from jupyter_copilot_room.request_bodies import PromptBody

from .harness import config
from .harness.helpers import entries, eventually, finished, ready
from .test_notebooks import join_notebook, write_notebook
from .test_restart import ALICE, BOB


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


@pytest.fixture
def jp_server_config(jp_server_config, tmp_path):
    return config.collaborative(jp_server_config, tmp_path)


def tiny_png() -> str:
    """A 2x2 red PNG, base64, built without any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def said(request) -> str:
    return json.dumps(request.messages)


async def test_selected_cells_reach_the_model_from_the_live_notebook_and_a_deleted_one_is_said(
    api, room, model, jp_fetch, jp_http_port, jp_base_url, jp_root_dir, jp_serverapp
):
    nb = write_notebook(jp_root_dir / "live.ipynb", ["values = [1, 2]", "total = 0", "gone = 1"])
    await ready(api, room)
    person = await join_notebook(jp_fetch, jp_http_port, jp_base_url, "live.ipynb")
    await eventually(lambda: person.notebook.cell_number == 3, timeout=30, what="the sync")
    model.script = lambda request: Reply("Seen.")
    ids = [cell.id for cell in nb.cells]
    (jp_root_dir / "notes.txt").write_text("one\nsecond line\nthree\n")
    chips = [
        {"kind": "cells", "path": "live.ipynb", "cell_ids": [ids[0], ids[2]]},
        {"kind": "selection", "path": "notes.txt", "start_line": 2, "end_line": 2},
    ]
    # The person edits the first cell and deletes the third before anything is sent: the model
    # must see the live text, not the file's.
    await person.type_into(0, "  # typed live", pause=0)
    with person.doc.transaction():
        person.notebook.ycells.pop(2)
    live = await jp_serverapp.web_app.settings["jupyter_server_ydoc"].get_document(
        path="live.ipynb", content_type="notebook", file_format="json", copy=False
    )
    await eventually(lambda: live.cell_number == 2, timeout=10, what="the deletion to arrive")

    r = await api("bob", "POST", "prompts", body={"text": "explain these", "chips": chips})
    assert r.code == 202
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)

    sent = said(model.requests[-1])
    assert "values = [1, 2]  # typed live" in sent, "the live source, not the saved file"
    assert ids[0] in sent and "total = 0" not in sent
    assert f"NOT FOUND: Cell {ids[2]} of live.ipynb was attached but no longer exists" in sent
    assert "Lines 2-2 of notes.txt (from disk)" in sent and "second line" in sent
    assert "three" not in sent
    notes = [e["body"] for e in entries(room, "system")]
    assert any(ids[2] in note and "no longer exists" in note for note in notes), notes
    [prompt] = [e for e in entries(room, "prompt") if e["id"] == r.json["id"]]
    assert prompt["chips"] == chips, "everyone sees what the prompt pointed at"
    person.close()


async def test_an_output_image_goes_to_the_model_as_an_image(
    api, room, model, jp_root_dir, state_dir
):
    write_notebook(jp_root_dir / "plot.ipynb", ["plot()"])
    await ready(api, room)
    model.script = lambda request: Reply("A red square.")
    png = tiny_png()
    chip = {
        "kind": "output",
        "path": "plot.ipynb",
        "cell_ids": ["abc"],
        "mime": "image/png",
        "data": png,
    }
    r = await api("bob", "POST", "prompts", body={"text": "what is this?", "chips": [chip]})
    assert r.code == 202
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    sent = said(model.requests[-1])
    assert "data:image/png;base64," + png in sent, "the image reaches the model as an image"
    [prompt] = [e for e in entries(room, "prompt") if e["id"] == r.json["id"]]
    assert prompt["chips"][0]["bytes"] == len(base64.b64decode(png))
    assert "data" not in prompt["chips"][0], "the image's bytes stay out of the document"
    # The image is stored once, by the sha256 of its bytes, and the record names it by that.
    image_id = hashlib.sha256(base64.b64decode(png)).hexdigest()
    assert prompt["chips"][0]["id"] == image_id
    assert (state_dir / "attachments" / image_id).read_bytes() == base64.b64decode(png)
    transcript = (state_dir / "transcript.jsonl").read_text()
    assert png not in transcript, "the transcript holds no image bytes"


BAD_CHIPS = [
    ({"kind": "file", "path": "../outside.txt"}, "outside the repository"),
    ({"kind": "file", "path": "nothing-here.txt"}, "no such file"),
    ({"kind": "cells", "path": "n.ipynb"}, "names no cell"),
    ({"kind": "cells", "path": "n.ipynb", "cell_ids": ["x"] * 51}, "at most 50"),
    ({"kind": "notebook", "path": "notes.txt"}, "not a notebook"),
    ({"kind": "selection", "path": "notes.txt", "start_line": 5, "end_line": 2}, "ends"),
    ({"kind": "file", "path": "notes.txt", "cell_ids": ["a"]}, "does not take: cell_ids"),
    (
        {"kind": "output", "path": "n.ipynb", "cell_ids": ["a"], "mime": "image/png"},
        "either text or an image",
    ),
    (
        {
            "kind": "output",
            "path": "n.ipynb",
            "cell_ids": ["a"],
            "mime": "image/png",
            "data": "!!",
        },
        "pattern",
    ),
    (
        {
            "kind": "output",
            "path": "n.ipynb",
            "cell_ids": ["a"],
            "mime": "image/png",
            "data": "A" * (11 * 1024 * 1024 // 3 * 4),
        },
        "at most",
    ),
    ({"kind": "output", "path": "n.ipynb", "cell_ids": ["a"], "mime": "text/html"}, "mime"),
    (
        {
            "kind": "output",
            "path": "n.ipynb",
            "cell_ids": ["a"],
            "mime": "image/png",
            "data": base64.b64encode(b"hello").decode(),
        },
        "are not a PNG, JPEG, GIF or WebP image",
    ),
]


async def test_bad_chips_are_a_clear_400(api, room, jp_root_dir, state_dir):
    write_notebook(jp_root_dir / "n.ipynb", ["a = 1"])
    (jp_root_dir / "notes.txt").write_text("one\ntwo\n")
    for chip, says in BAD_CHIPS:
        r = await api("bob", "POST", "prompts", body={"text": "look", "chips": [chip]})
        assert r.code == 400, chip
        assert says in r.json["message"], r.json
    r = await api("bob", "POST", "prompts", body={"text": "look", "chips": [BAD_CHIPS[0][0]] * 9})
    assert (r.code, r.json["error"]) == (400, "invalid_body")
    assert not room.turns.queue.waiting_by("bob")
    assert not (state_dir / "attachments").exists(), "no refused image is stored"


async def test_a_queued_prompts_chips_survive_a_restart(make_room, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    write_notebook(root / "n.ipynb", ["a = 1"])
    contents = FileContentsManager(root_dir=str(root))
    editor = NotebookEditor(lambda: {"contents_manager": contents})
    chip = {"kind": "output", "path": "n.ipynb", "cell_ids": ["c1"], "text": "KeyError: 'x'"}

    def room_with_files():
        room = make_room(tmp_path / "state")
        room.turns.notebooks = editor
        return room

    room = room_with_files()
    await room.ensure_started()
    room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    queued, _ = room.prompt_commands.submit(
        BOB, PromptBody.model_validate({"text": "say why", "chips": [chip]})
    )
    await eventually(lambda: room.document.meta.get("state") == "running")
    await room.stop()

    again = room_with_files()
    await again.ensure_started()
    await eventually(lambda: again.agent.turns, what="the queued prompt to run")
    assert again.agent.turns[0].prompt_id == queued
    assert "KeyError: 'x'" in again.agent.turns[0].text
    [entry] = [e for e in entries(again, "prompt") if e["id"] == queued]
    assert entry["chips"] == [{**{k: v for k, v in chip.items() if k != "text"}, "chars": 13}]
