"""Rooms load when used (issue 26), as jupyter_server_ydoc's rooms do: the server's start replays
main only; another room starts at its first request and, once it has been quiet for
`room_idle_timeout` (its agent asleep, nobody connected, nothing queued), it is unloaded, its
transcript closed, and `GET rooms` still lists it, asleep (`new` before it ever started). The
next request loads it again from its transcript, with everything it held."""

import json
import logging

import pytest

from .harness import config
from .harness.helpers import eventually, finished

IDLE = 1.0


@pytest.fixture
def jp_server_config(state_dir, jp_root_dir):
    """A server whose last run left two rooms beside main, `alpha` and `beta`."""
    state_dir.mkdir(parents=True)
    for name in ("alpha", "beta"):
        (jp_root_dir / name).mkdir()
    rooms = [{"name": name, "repository": name} for name in ("alpha", "beta")]
    (state_dir / "rooms.json").write_text(json.dumps({"rooms": rooms}))
    return config.room(state_dir, room_idle_timeout=IDLE)


def listed(response) -> dict:
    return {room["name"]: room for room in response.json["rooms"]}


async def test_a_room_loads_at_its_first_request_and_unloads_once_quiet(
    jp_serverapp, room_app, api, caplog
):
    caplog.set_level(logging.INFO, logger="jupyter_copilot_room")
    await room_app._start_jupyter_server_extension(jp_serverapp)  # what the server does once up
    assert room_app.rooms.loaded("main") is not None
    assert (room_app.rooms.loaded("alpha"), room_app.rooms.loaded("beta")) == (None, None), (
        "the server's start replays none of the other rooms"
    )
    rooms = listed(await api("bob", "GET", "rooms"))
    assert [rooms[n]["state"] for n in ("alpha", "beta")] == ["new", "new"], "never started"
    assert rooms["alpha"]["role"] == "member", "the role, from the room's caches"

    r = await api("bob", "POST", "rooms", "alpha", "prompts", body={"text": "say hello"})
    assert r.code == 202, r
    alpha = room_app.rooms.loaded("alpha")
    assert alpha is not None and room_app.rooms.loaded("beta") is None, "a request wakes one"
    await eventually(lambda: r.json["id"] in finished(alpha), timeout=10, what="alpha's turn")

    # Quiet: its agent falls asleep after IDLE, and the room unloads after IDLE more.
    await eventually(
        lambda: room_app.rooms.loaded("alpha") is None, timeout=10, what="alpha to unload"
    )
    assert not alpha.transcript.is_open, "the unloaded room's transcript is closed"
    assert any("alpha is unloaded" in m for m in caplog.messages)
    rooms = listed(await api("bob", "GET", "rooms"))
    assert (rooms["alpha"]["state"], rooms["alpha"]["people"]) == ("sleeping", [])

    # The next request loads it again, from its transcript: the turn is still there.
    r2 = await api("bob", "GET", "rooms", "alpha", "room")
    assert r2.code == 200, r2
    again = room_app.rooms.loaded("alpha")
    assert again is not None and again is not alpha
    ids = [entry["id"] for entry in again.document.transcript.to_py()]
    assert r.json["id"] in ids
    await room_app.stop_extension()


async def test_a_room_with_someone_connected_stays_loaded(jp_serverapp, room_app, api, connect):
    await room_app._start_jupyter_server_extension(jp_serverapp)
    assert (await api("bob", "GET", "rooms", "beta", "room")).code == 200
    socket = await connect("bob", "beta")
    beta = room_app.rooms.loaded("beta")
    await eventually(lambda: beta.records.sync.connected() == {"bob"}, what="bob connected")
    await eventually(lambda: beta.turns.life.agent_status == "sleeping", what="beta's agent asleep")
    assert not beta.quiet, "someone is connected"
    socket.close()
    await eventually(lambda: room_app.rooms.loaded("beta") is None, timeout=10, what="unload")
    await room_app.stop_extension()


async def test_no_room_loads_once_the_server_stops(jp_serverapp, room_app, api):
    await room_app._start_jupyter_server_extension(jp_serverapp)
    await room_app.rooms.stop()
    r = await api("bob", "GET", "rooms", "alpha", "room")
    assert (r.code, r.json["error"]) == (503, "server_stopping"), r
    assert room_app.rooms.loaded("alpha") is None, "it would outlive the server's stop"


async def test_a_front_is_told_each_start_and_unload_of_a_room_in_order(
    jp_serverapp, room_app, api
):
    """`RoomsAPI.watch`: what a front follows restarts when told, never by looking again."""
    await room_app._start_jupyter_server_extension(jp_serverapp)
    told: list[str] = []
    stop = room_app.api.watch(
        "alpha", lambda room: told.append(f"started {room.name}"), lambda: told.append("unloaded")
    )
    mains: list[str] = []
    room_app.api.watch("main", lambda room: mains.append("started"), lambda: mains.append("gone"))
    assert (told, mains) == ([], ["started"]), "a started room is told at once, a sleeping one not"

    assert (await api("bob", "GET", "rooms", "alpha", "room")).code == 200
    assert told == ["started alpha"], "told as its first request starts it"
    await eventually(lambda: len(told) == 2, timeout=10, what="alpha to unload")
    assert told[1] == "unloaded" and room_app.rooms.loaded("alpha") is None
    assert (await api("bob", "GET", "rooms", "alpha", "room")).code == 200
    assert told == ["started alpha", "unloaded", "started alpha"], "loaded anew: told again"

    stop()
    await room_app.stop_extension()
    assert len(told) == 3, "a watch that was stopped is told nothing more"
    assert mains == ["started", "gone"], "the server's stop unloads main too"
