"""The live room document at `/copilot-room/ws`: full state on connect, live updates, and the
server as its only writer."""

import asyncio
import gc
import logging
import weakref

import pytest
from pycrdt import (
    Array,
    Doc,
    Map,
    create_sync_message,
    create_update_message,
    handle_sync_message,
)
from tornado.httpclient import HTTPClientError

from jupyter_copilot_room.room.live.sync import RoomSync, is_routine

from .harness.helpers import eventually, replies


async def test_client_gets_full_state_on_connect_then_live_updates(api, connect, room):
    await api("bob", "POST", "prompts", body={"text": "say first reply"})
    await eventually(lambda: room.document.meta.get("state") == "idle" and len(replies(room)) == 1)
    carol = await connect("carol")
    synced = len(room.document.transcript)
    await eventually(lambda: len(carol.transcript) == synced, what="initial sync")
    assert carol.snapshot()["transcript"] == room.document.snapshot()["transcript"]
    await api("alice", "POST", "prompts", body={"text": "say second reply"})
    await eventually(
        lambda: (
            len(carol.transcript) == synced + 2
            and str(carol.transcript[synced + 1]["body"]) == "second reply"
        ),
        what="the live update, streamed to its end",
    )


async def test_host_and_member_see_identical_streamed_output(api, connect, room, agent):
    alice, bob = await connect("alice"), await connect("bob")
    await api("bob", "POST", "prompts", body={"text": "wait"})
    await eventually(lambda: len(alice.replies()) == 1 and len(bob.replies()) == 1)
    room.document.stream(f"msg-{agent.turns[0].prompt_id}", " and more")
    await eventually(lambda: bob.replies()[0]["body"] == "working and more")
    await eventually(lambda: alice.replies()[0]["body"] == "working and more")
    agent.release.set()
    await eventually(lambda: room.document.meta.get("state") == "idle")
    await eventually(lambda: alice.snapshot() == bob.snapshot() == room.document.snapshot())


async def test_streaming_appends_to_the_body_rather_than_rewriting_it(api, connect, room):
    carol = await connect("carol")
    await eventually(lambda: len(carol.received) >= 1)
    await api("bob", "POST", "prompts", body={"text": "say " + "x" * 3000})
    await eventually(lambda: room.document.meta.get("state") == "idle")
    await eventually(lambda: len(carol.replies()) == 1)
    updates = [m for m in carol.received if m[:2] == b"\x00\x02"]
    # 1000 deltas of 3 characters: were the body rewritten each time, the updates would carry
    # about 1.5 MB; appended, they stay near the size of the text itself.
    assert sum(len(m) for m in updates) < 200_000


async def test_viewers_forged_update_is_dropped_and_never_reaches_others(api, connect, room):
    carol, bob = await connect("carol"), await connect("bob")
    await eventually(lambda: "carol" in bob.participants.to_py())
    before = room.document.snapshot()

    forged = Doc()
    forged.apply_update(room.document.ydoc.get_update())
    with forged.transaction():
        forged.get("queue", type=Array).append(
            Map({"id": "forged", "author": "alice", "text": "rm -rf /", "state": "submitted"})
        )
        forged.get("approvals", type=Map)["fake"] = Map({"state": "approved"})
    update = forged.get_update(room.document.ydoc.get_state())
    carol.ws.write_message(create_update_message(update), binary=True)
    carol.ws.write_message(b"\x00\x02" + update[:0] + b"\x05garbage", binary=True)
    carol.ws.write_message(b"\xff\x00not a y message", binary=True)
    carol.ws.write_message("a text frame")

    await api("alice", "POST", "prompts", body={"text": "say still here"})
    await eventually(lambda: room.document.meta.get("state") == "idle" and len(bob.replies()) == 1)
    assert "forged" not in [item["id"] for item in room.document.queue.to_py()]
    assert "fake" not in room.document.approvals.to_py()
    assert "forged" not in str(bob.snapshot())
    assert room.document.snapshot()["transcript"] != before["transcript"]
    assert not carol.closed.is_set(), "a dropped frame does not cost the reader its connection"


@pytest.mark.parametrize(
    "garbage",
    [b"\x00\x00\x05abc", b"\x00\x00", b"\x00\x00\xff", b"\x00\x00\x03\xff\xff\xff"],
    ids=["bad-state", "empty", "truncated", "bad-clock"],
)
async def test_an_unreadable_sync_message_closes_only_that_socket_with_a_reason(
    api, connect, room, caplog, jp_serverapp, garbage
):
    caplog.set_level(logging.INFO)
    jp_serverapp.log.addHandler(caplog.handler)  # the server's own loggers do not propagate
    carol, bob = await connect("carol"), await connect("bob")
    await eventually(lambda: "carol" in bob.participants.to_py() and carol.received)

    carol.ws.write_message(garbage, binary=True)  # a sync step 1 whose state cannot be read

    await asyncio.wait_for(carol.closed.wait(), 5)
    assert (carol.ws.close_code, carol.ws.close_reason) == (
        4400,
        "The room could not read a sync message your client sent; closing.",
    )
    await api("alice", "POST", "prompts", body={"text": "say still here"})
    await eventually(lambda: [str(r["body"]) for r in bob.replies()] == ["still here"])
    assert not bob.closed.is_set()
    jp_serverapp.log.removeHandler(caplog.handler)
    assert [r for r in caplog.records if r.exc_info] == [], "no traceback"
    [said] = [r for r in caplog.records if "sync message" in r.getMessage()]
    assert said.levelno == logging.WARNING and "carol" in said.getMessage()


def room_with_deletions() -> Doc:
    room = Doc()
    queue = room.get("queue", type=Array)
    queue.extend(["first", "second"])
    del queue[0]
    return room


def synced_with(room: Doc) -> Doc:
    client = Doc()
    client.apply_update(room.get_update())
    return client


def test_a_synced_clients_answer_to_step1_is_routine_not_a_write():
    """y-websocket answers the server's sync step 1 after it took the room's state: its step 2
    holds no items and the room's own deletions (the panel's 16-byte frame)."""
    room = room_with_deletions()
    answer = handle_sync_message(create_sync_message(room)[1:], synced_with(room))
    assert answer[:2] == b"\x00\x01" and answer != b"\x00\x01\x02\x00\x00", "it carries deletions"
    assert is_routine(answer, room)
    assert is_routine(handle_sync_message(create_sync_message(room)[1:], Doc()), room)


def test_an_update_that_deletes_or_adds_is_not_routine():
    room = room_with_deletions()
    deleting = synced_with(room)
    del deleting.get("queue", type=Array)[0]  # the room still holds "second"
    assert not is_routine(create_update_message(deleting.get_update(room.get_state())), room)
    adding = synced_with(room)
    adding.get("queue", type=Array).append("forged")
    assert not is_routine(create_update_message(adding.get_update(room.get_state())), room)
    for garbage in (b"\x00\x02\x05garbage", b"\x00\x01", b"\x00\x02\x02\x00\xff", b"\xff"):
        assert not is_routine(garbage, room)


async def test_only_a_frame_that_writes_is_logged(api, connect, room, caplog, jp_serverapp):
    caplog.set_level(logging.INFO)
    jp_serverapp.log.addHandler(caplog.handler)  # the server's own loggers do not propagate
    await api("bob", "POST", "prompts", body={"text": "say one"})  # its queue item is deleted
    await eventually(lambda: room.document.meta.get("state") == "idle" and replies(room))
    carol = await connect("carol")
    await eventually(lambda: len(carol.transcript) == len(room.document.transcript))
    ydoc = room.document.ydoc
    carol.ws.write_message(
        handle_sync_message(create_sync_message(ydoc)[1:], carol.doc), binary=True
    )
    forged = synced_with(ydoc)
    del forged.get("transcript", type=Array)[0]
    carol.ws.write_message(create_update_message(forged.get_update(ydoc.get_state())), binary=True)
    await eventually(lambda: [r for r in caplog.records if "Dropped" in r.getMessage()])
    jp_serverapp.log.removeHandler(caplog.handler)
    [dropped] = [r for r in caplog.records if "Dropped" in r.getMessage()]
    assert "(1 dropped on this connection)" in dropped.getMessage(), "the routine one was not"
    assert len(room.document.transcript) == len(carol.transcript)


@pytest.mark.parametrize("user", ["dave", None])
async def test_pending_and_anonymous_people_get_no_document(jp_ws_fetch, api, user):
    await api("dave", "GET", "room")
    headers = {"Authorization": f"token {user}" if user else ""}
    with pytest.raises(HTTPClientError) as refused:
        await jp_ws_fetch("copilot-room", "ws", headers=headers)
    assert refused.value.code == 403


async def test_admitted_person_then_gets_the_document(api, connect):
    await api("dave", "GET", "room")
    await api("alice", "POST", "admissions", "dave", body={"decision": "viewer"})
    dave = await connect("dave")
    await eventually(lambda: dave.participants.to_py().get("dave", {}).get("role") == "viewer")


async def test_removed_person_is_disconnected_at_once(api, connect):
    bob = await connect("bob")
    await eventually(lambda: bob.received)
    r = await api("alice", "DELETE", "participants", "bob")
    assert r.code == 204
    await asyncio.wait_for(bob.closed.wait(), 2)
    assert bob.ws.close_code == 4403


async def test_presence_follows_connections(api, connect, room):
    bob = await connect("bob")
    await eventually(lambda: room.document.participants.to_py()["bob"]["online"])
    bob.close()
    await eventually(lambda: not room.document.participants.to_py()["bob"]["online"])


async def test_replacing_the_document_moves_everyone_to_the_new_one(api, connect, room):
    bob, carol = await connect("bob"), await connect("carol")
    await eventually(lambda: "carol" in bob.participants.to_py() and carol.received)
    compact = Doc()
    compact.apply_update(room.document.ydoc.get_update())
    compact.get("meta", type=Map)["agent"] = "compacted"

    room.records.sync.replace_document(compact)

    for client in (bob, carol):
        await asyncio.wait_for(client.closed.wait(), 2)
        assert client.ws.close_code == 4002
        assert client.ws.close_reason == "The room document was compacted; reconnecting."
    again = await connect("bob")
    await eventually(lambda: again.meta.get("agent") == "compacted", what="the new document")
    compact.get("meta", type=Map)["agent_detail"] = "live"
    await eventually(lambda: again.meta.get("agent_detail") == "live", what="its live updates")
    assert again.snapshot()["transcript"] == bob.snapshot()["transcript"]


async def test_a_replaced_document_is_freed():
    """Each compaction replaces the served document; the old one (a whole window) must not stay
    in memory. pycrdt's observer holds its document, so only an unobserved one can be freed."""
    old = Doc()
    sync = RoomSync(old)
    await sync.start()
    old.get("meta", type=Map)["agent"] = "idle"  # a change the sync layer broadcast
    gone = weakref.ref(old)

    sync.replace_document(Doc())
    del old
    gc.collect()

    assert gone() is None, "the replaced document is still in memory"
