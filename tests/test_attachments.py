"""Images and repository files sent with a prompt: uploaded images reach the real runtime's model
request as image parts and a repository file as a tagged file; every bad upload or path is a clear
4xx with nothing stored; viewers may see an attachment, people at the door may not; a queued
prompt's attachments survive a restart."""

import base64
import io
import json
import struct
import zipfile
import zlib

import pytest
from PIL import Image

from jupyter_copilot_room import eventlog
from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.request_bodies import PromptBody

from .harness.helpers import entries, eventually, finished, ready
from .test_restart import ALICE, BOB


@pytest.fixture
def room_config(copilot_config):
    return copilot_config


def image(fmt: str, size=(3, 2), color=(255, 0, 0)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=fmt)
    return out.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A small PNG whose header claims `width` x `height` pixels (a decompression bomb's shape:
    a few kilobytes of zeros that would inflate to gigabytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00" * 1_000_000, 9))
        + chunk(b"IEND", b"")
    )


def zip_file() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("zeros.bin", b"\x00" * 1_000_000)
    return out.getvalue()


async def upload(api, user, data: bytes, mime: str):
    return await api(user, "POST", "attachments", raw=data, headers={"Content-Type": mime})


def image_parts(request) -> list[str]:
    """The data URLs of the image parts of the request's last user message."""
    [*_, last] = [m for m in request.messages if m.get("role") == "user"]
    content = last["content"] if isinstance(last["content"], list) else []
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]


def stored(state_dir) -> list[str]:
    directory = state_dir / "attachments"
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


async def test_two_images_reach_the_model_as_image_parts(api, room, model, state_dir):
    await ready(api, room)
    model.script = lambda request: Reply("Two squares.")
    png, jpeg = image("PNG"), image("JPEG", (4, 4), (0, 0, 255))
    first = await upload(api, "bob", png, "image/png")
    second = await upload(api, "bob", jpeg, "image/jpeg")
    assert (first.code, second.code) == (201, 201), (first, second)
    assert first.json == {"id": first.json["id"], "mime": "image/png", "bytes": len(png)} | {
        "width": 3,
        "height": 2,
    }
    again = await upload(api, "bob", png, "image/png")
    assert again.json["id"] == first.json["id"], "the same bytes are the same attachment"
    assert stored(state_dir) == sorted([first.json["id"], second.json["id"]])

    attachments = [
        {"id": first.json["id"], "name": "red.png"},
        {"id": second.json["id"], "name": "blue.jpg"},
    ]
    r = await api(
        "bob", "POST", "prompts", body={"text": "what are these?", "attachments": attachments}
    )
    assert r.code == 202, r
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    assert image_parts(model.requests[-1]) == [
        "data:image/png;base64," + base64.b64encode(png).decode(),
        "data:image/jpeg;base64," + base64.b64encode(jpeg).decode(),
    ]
    [prompt] = [e for e in entries(room, "prompt") if e["id"] == r.json["id"]]
    assert [(a["kind"], a["id"], a["name"]) for a in prompt["attachments"]] == [
        ("image", first.json["id"], "red.png"),
        ("image", second.json["id"], "blue.jpg"),
    ]
    [record] = [
        json.loads(line)
        for line in (state_dir / "transcript.jsonl").read_text().splitlines()
        if '"prompt.submitted"' in line
    ]
    assert base64.b64encode(png).decode() not in json.dumps(record), "never the bytes"


async def test_bad_uploads_and_paths_are_a_clear_4xx_with_nothing_stored(
    api, room, state_dir, jp_root_dir, tmp_path
):
    await ready(api, room)
    png = image("PNG", (40, 40))
    bad = [
        (image("GIF"), "image/png", 400, "type_mismatch"),
        (png[: len(png) // 2], "image/png", 400, "damaged_image"),
        (png_claiming(100_000, 100_000), "image/png", 400, "image_too_large"),
        (png_claiming(6_000, 6_000), "image/png", 400, "image_too_large"),
        (zip_file(), "image/png", 400, "not_an_image"),
        (b"%PDF-1.4 not an image", "application/pdf", 415, "unsupported_type"),
        (b"\x00" * (10 * 1024 * 1024 + 1), "image/png", 413, "image_too_large"),
    ]
    for data, mime, status, code in bad:
        r = await upload(api, "bob", data, mime)
        assert (r.code, r.json["error"]) == (status, code), (mime, r)
        assert r.json["message"]
    r = await upload(api, "carol", png, "image/png")
    assert r.code == 403, "a viewer sends no prompt, so uploads nothing"
    assert stored(state_dir) == [], "nothing refused is stored"

    ok = await upload(api, "bob", png, "image/png")
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (jp_root_dir / "escape.txt").symlink_to(outside)
    (jp_root_dir / "notes.txt").write_text("hello")
    bad_prompts = [
        ([{"path": "../secret.txt"}], 400, "outside the repository"),
        ([{"path": str(outside)}], 400, "absolute path"),
        ([{"path": "escape.txt"}], 400, "outside the repository"),
        ([{"path": "nothing-here.txt"}], 400, "no such file"),
        ([{"id": "0" * 64}], 404, "upload it first"),
        ([{"id": ok.json["id"], "path": "notes.txt"}], 400, "one of them"),
        ([{"id": ok.json["id"]}] * 5, 400, "at most 4 images"),
    ]
    for attachments, status, says in bad_prompts:
        r = await api("bob", "POST", "prompts", body={"text": "look", "attachments": attachments})
        assert r.code == status, (attachments, r)
        assert says in r.json["message"], r.json
    assert not room.turns.queue.waiting_by("bob")
    assert stored(state_dir) == [ok.json["id"]]


async def test_a_viewer_sees_an_attachment_and_a_person_at_the_door_does_not(api, room):
    await ready(api, room)
    png = image("PNG")
    r = await upload(api, "bob", png, "image/png")
    image_id = r.json["id"]
    seen = await api("carol", "GET", "attachments", image_id)
    assert (seen.code, seen.body) == (200, png)
    assert (await api("dave", "GET", "attachments", image_id)).code == 403
    assert (await api("carol", "GET", "attachments", "f" * 64)).code == 404


async def test_a_repository_file_reaches_the_model(api, room, model, jp_root_dir):
    await ready(api, room)
    model.script = lambda request: Reply("Read it.")
    (jp_root_dir / "src").mkdir()
    (jp_root_dir / "src" / "plan.md").write_text("The plan:\nship attachments on Tuesday.\n")
    r = await api(
        "bob",
        "POST",
        "prompts",
        body={"text": "summarise the plan", "attachments": [{"path": "src/plan.md"}]},
    )
    assert r.code == 202, r
    await eventually(lambda: r.json["id"] in finished(room), timeout=30)
    # The runtime tags the file for the model, which reads it with its own tools (as an
    # @-mentioned file in Copilot CLI): the path inside the repository and its length.
    real = (jp_root_dir / "src" / "plan.md").resolve()
    assert f"<tagged_files>\n* {real} (3 lines)\n</tagged_files>" in model.requests[0].last_user
    [prompt] = [e for e in entries(room, "prompt") if e["id"] == r.json["id"]]
    assert prompt["attachments"] == [
        {"kind": "file", "path": "src/plan.md", "name": "plan.md", "bytes": 39}
    ]


async def test_a_queued_prompts_images_survive_a_restart(make_room, tmp_path):
    png = image("PNG")
    room = make_room(tmp_path / "state")
    await room.ensure_started()
    uploaded = await room.prompt_commands.upload(BOB, png, "image/png")
    room.prompt_commands.submit(ALICE, PromptBody(text="wait"))
    body = {"text": "look", "attachments": [{"id": uploaded.id, "name": "shot.png"}]}
    queued, _ = room.prompt_commands.submit(BOB, PromptBody.model_validate(body))
    await eventually(lambda: room.document.meta.get("state") == "running")
    await room.stop()

    again = make_room(tmp_path / "state")
    await again.ensure_started()
    await eventually(lambda: again.agent.turns, what="the queued prompt to run")
    turn = again.agent.turns[0]
    assert turn.prompt_id == queued
    assert [(i.mime, base64.b64decode(i.data), i.name) for i in turn.images] == [
        ("image/png", png, "shot.png")
    ]


def test_redacted_events_keep_what_an_attachment_is_but_not_its_name_or_path():
    data = {
        "actor": "bob",
        "payload": {
            "text": "look",
            "attachments": [
                {"kind": "image", "id": "a" * 64, "name": "my-face.png", "bytes": 10},
                {"kind": "file", "path": "private/plan.md", "name": "plan.md", "bytes": 3},
            ],
        },
    }
    redacted = eventlog.redact("", data)
    assert redacted["payload"]["attachments"] == [
        {"kind": "image", "id": "a" * 64, "name": "[redacted]", "bytes": 10},
        {"kind": "file", "path": "[redacted]", "name": "[redacted]", "bytes": 3},
    ]
