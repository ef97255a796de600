"""The server's start when a room cannot start (a full disk after a crash mid-turn, a changed
transcript): the log says why in one line and what to do, only that room's routes refuse (`GET
rooms` answers and says which room and why), the other rooms load at their first request as
always, and main's claim link is printed once main has started, also on the request that starts
it later, never twice.

The server is the in-process one, started as jupyter_server starts it once it is up
(`_start_jupyter_server_extension`), on a state directory a last run left: a room `other` beside
main, and the test's parameter for the rest."""

import json
import logging
import shutil
import subprocess
from pathlib import Path

import pytest

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.request_bodies import ChatBody, PromptBody

from .harness import config
from .harness.helpers import eventually, forged_transcript
from .test_disk_full import fill, leave_on_the_last_page, mount_tmpfs

ALICE = Identity("alice", "Alice", verified=True)
BOB = Identity("bob", "Bob", verified=True)


async def crashed_mid_turn(state_dir: Path, scratch: Path, make_room) -> None:
    """main's transcript as a kill -9 mid-turn left it, with less than 100 bytes left on its
    last page, on a disk of its own: once that is full, main's start cannot record the end of
    the turn the crash cut (507) until there is space again."""
    mount_tmpfs(state_dir, "1m")
    room = make_room(scratch)
    await room.ensure_started()
    try:
        room.prompt_commands.submit(BOB, PromptBody(text="wait"))
        await eventually(lambda: room.document.meta.get("state") == "running", what="the turn")

        async def say(text: str) -> None:
            room.prompt_commands.say(ALICE, ChatBody(text=text))

        await leave_on_the_last_page(room.transcript.path, 100, say)
        shutil.copyfile(room.transcript.path, state_dir / "transcript.jsonl")
    finally:
        await room.stop()  # records the turn's end in the scratch copy only


async def other_room_tampered(state_dir: Path, scratch: Path, make_room) -> None:
    """The room `other`'s transcript holds a record the room did not write (503, until a
    restart)."""
    forged_transcript(state_dir / "rooms" / "other")


@pytest.fixture
def left_behind(request, state_dir, jp_root_dir, tmp_path, jp_asyncio_loop, make_room):
    """What the last run left: a room `other` (its folder, the registry), then what the test's
    parameter writes."""
    state_dir.mkdir(parents=True)
    # A disk the parameter mounts there is unmounted after the server stopped, also on failure.
    request.addfinalizer(
        lambda: subprocess.run(["umount", "-l", str(state_dir)], check=False, capture_output=True)
    )
    jp_asyncio_loop.run_until_complete(request.param(state_dir, tmp_path / "scratch", make_room))
    (jp_root_dir / "other").mkdir()
    (state_dir / "rooms.json").write_text(
        json.dumps({"rooms": [{"name": "other", "repository": "other"}]})
    )


@pytest.fixture
def jp_server_config(state_dir, room_config, left_behind):
    """A server that starts on what `left_behind` left, with no host configured (a claim)."""
    return config.room(state_dir, **{"hosts": [], **room_config})


@pytest.fixture
def logged(room_app, caplog):
    """The lines logged since the fixture was made (the room's and the server's)."""
    caplog.set_level(logging.INFO)
    room_app.log.addHandler(caplog.handler)  # the server's loggers may not propagate
    yield lambda: [r for r in caplog.records if r.levelno >= logging.INFO]
    room_app.log.removeHandler(caplog.handler)


def claim_links(records) -> list[str]:
    return [r.getMessage() for r in records if "has no host yet" in r.getMessage()]


def listed(response) -> dict:
    return {room["name"]: room for room in response.json["rooms"]}


@pytest.mark.parametrize("left_behind", [crashed_mid_turn], indirect=True)
async def test_main_refused_by_a_full_disk_refuses_only_its_own_routes_and_prints_its_claim_later(
    jp_serverapp, room_app, api, logged, state_dir
):
    filler = fill(state_dir)
    await room_app._start_jupyter_server_extension(jp_serverapp)  # what the server does once up

    [refused] = [r for r in logged() if "could not start" in r.getMessage()]
    line = refused.getMessage()
    assert (refused.levelno, refused.exc_info) == (logging.ERROR, None), "one line, no traceback"
    assert "\n" not in line
    assert line.startswith("The room 'main' could not start: The disk that holds the room's")
    assert "Free some space" in line and line.endswith("starts at its first request after that.")
    assert room_app.rooms.loaded("other") is None, "the server's start replays no other room"
    assert claim_links(logged()) == [], "main has not started: no claim link yet"
    r = await api("erin", "GET", "room")
    assert (r.code, r.json["error"]) == (507, "insufficient_storage"), r
    assert claim_links(logged()) == []

    r = await api("alice", "GET", "rooms")  # the list answers, and says which room and why
    assert r.code == 200, r
    rooms = listed(r)
    assert rooms["main"]["state"] == "unavailable"
    assert rooms["main"]["start_error"]["error"] == "insufficient_storage"
    assert "Free some space" in rooms["main"]["start_error"]["message"]
    assert (rooms["other"]["state"], "start_error" in rooms["other"]) == ("new", False)
    assert len([r for r in logged() if "could not start" in r.getMessage()]) == 1, "once"

    filler.unlink()
    r = await api("erin", "GET", "room")
    assert r.code == 200, r
    assert "claim_host" in r.json["me"]["can"]
    [link] = claim_links(logged())
    secret = room_app.room.claim.secret
    assert f"claim?secret={secret[:4]}…{secret[-4:]}" in link
    assert secret in room_app._claim_page.read_text()
    assert (await api("erin", "GET", "room")).code == 200
    assert len(claim_links(logged())) == 1, "printed once"
    assert "start_error" not in listed(await api("alice", "GET", "rooms"))["main"]
    await room_app.stop_extension()


@pytest.mark.parametrize("left_behind", [other_room_tampered], indirect=True)
async def test_another_rooms_refusal_is_found_at_its_first_request_and_main_serves_meanwhile(
    jp_serverapp, room_app, api, logged
):
    await room_app._start_jupyter_server_extension(jp_serverapp)
    assert [r for r in logged() if "could not start" in r.getMessage()] == []
    assert len(claim_links(logged())) == 1, "main started: its claim link is printed"

    r = await api("alice", "GET", "rooms", "other", "room")
    assert (r.code, r.json["error"]) == (503, "transcript_tampered"), r
    [refused] = [r for r in logged() if "could not start" in r.getMessage()]
    line = refused.getMessage()
    assert (refused.levelno, refused.exc_info) == (logging.ERROR, None), "one line, no traceback"
    assert line.startswith("The room 'other' could not start:")
    assert "Restore the file from a backup" in line
    assert line.endswith("Restart the server once that is done.")

    r = await api("alice", "GET", "rooms", "other", "room")
    assert r.code == 503
    assert len([r for r in logged() if "could not start" in r.getMessage()]) == 1, "once"
    rooms = listed(await api("alice", "GET", "rooms"))
    assert rooms["other"]["start_error"]["error"] == "transcript_tampered"
    assert rooms["other"]["state"] == "unavailable"
    assert (await api("alice", "GET", "room")).code == 200, "main is not touched by it"
    await room_app.stop_extension()
