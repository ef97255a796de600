"""People talk in the room without waking the agent: `POST messages` is recorded and shown in
the transcript, never queued and never sent to the model; a prompt after it still is."""

import json

import pytest

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.request_bodies import ChatBody

from .harness.helpers import entries, eventually, finished, ready


@pytest.fixture
def room_config(request):
    # Only the test that needs the model starts the real runtime (it costs seconds).
    return request.getfixturevalue("copilot_config") if "model" in request.fixturenames else {}


async def test_chat_never_reaches_the_model_while_a_prompt_after_it_does(api, room, model):
    model.script = lambda request: Reply(f"Heard: {request.prompt}")
    await ready(api, room)
    said = await api("bob", "POST", "messages", body={"text": "let us try **pandas** first"})
    assert said.code == 201, said
    assert room.document.queue.to_py() == [], "a chat message never waits in the queue"
    [chat] = entries(room, "chat")
    assert (chat["id"], chat["author"], chat["body"]) == (
        said.json["id"],
        "bob",
        "let us try **pandas** first",
    )

    prompt = (await api("alice", "POST", "prompts", body={"text": "which library?"})).json
    await eventually(lambda: prompt["id"] in finished(room), timeout=30, what="the turn")
    sent = json.dumps([request.messages for request in model.requests])
    assert "which library?" in sent
    assert "pandas" not in sent, "the model must never see what people said to each other"


async def test_viewers_chat_only_while_hosts_allow_it_and_pending_people_never(api):
    refused = await api("carol", "POST", "messages", body={"text": "hello"})
    assert (refused.code, refused.json["error"]) == (403, "forbidden")
    assert "chat" not in (await api("carol", "GET", "room")).json["me"]["can"]
    assert "chat" in (await api("bob", "GET", "room")).json["me"]["can"]

    patched = await api("alice", "PATCH", "settings", body={"viewers_can_chat": True})
    assert patched.json["viewers_can_chat"] is True
    assert "chat" in (await api("carol", "GET", "room")).json["me"]["can"]
    assert (await api("carol", "POST", "messages", body={"text": "hello"})).code == 201
    assert (await api("carol", "POST", "prompts", body={"text": "hello"})).code == 403
    assert (await api("dave", "POST", "messages", body={"text": "let me in"})).code == 403
    assert (await api("bob", "PATCH", "settings", body={"viewers_can_chat": False})).code == 403


async def test_a_message_is_checked_like_a_prompt(api):
    await api("alice", "PATCH", "settings", body={"max_prompt_chars": 10})
    for path in ("prompts", "messages"):
        too_long = await api("bob", "POST", path, body={"text": "x" * 11})
        assert (too_long.code, too_long.json["error"]) == (413, "prompt_too_long"), path
        empty = await api("bob", "POST", path, body={"text": " \u200b\n"})
        assert (empty.code, empty.json["error"]) == (400, "empty_prompt"), path
    unknown = await api("bob", "POST", "messages", body={"text": "hi", "target": None})
    assert (unknown.code, unknown.json["error"]) == (400, "invalid_body")
    assert (await api("bob", "POST", "messages", body={"text": "x" * 10})).code == 201


async def test_chat_is_replayed_after_a_restart(make_room, tmp_path):
    bob = Identity("bob", "Bob", verified=True)
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    message_id = room.prompt_commands.say(bob, ChatBody(text="see you after the restart"))
    await room.stop()

    # From the snapshot the stop wrote, then from the transcript alone.
    for from_snapshot in (True, False):
        if not from_snapshot:
            (tmp_path / "snapshot.json").unlink()
        again = make_room(tmp_path, agent=None)
        await again.ensure_started()
        [chat] = [e for e in again.document.transcript.to_py() if e["kind"] == "chat"]
        assert (chat["id"], chat["author"], chat["body"]) == (
            message_id,
            "bob",
            "see you after the restart",
        )
        assert again.document.queue.to_py() == []
        await again.stop()
