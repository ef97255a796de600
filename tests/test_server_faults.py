"""A fault inside the server reaches the log and the person it affects, and reads stay cheap."""

import asyncio
import logging

from .harness import people


async def test_a_failure_serving_the_document_closes_the_socket_and_is_logged(
    jp_ws_fetch, room, monkeypatch, caplog
):
    async def broken(channel, identity):
        raise RuntimeError("the document could not be served")

    monkeypatch.setattr(room.people_commands, "connect", broken)
    ws = await jp_ws_fetch("copilot-room", "ws", headers=people.authorization("bob"))
    assert await asyncio.wait_for(ws.read_message(), 5) is None, "the server closes the socket"
    assert ws.close_code == 1011
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]
    assert any("could not be served" in str(r.exc_info[1]) for r in logged)


async def test_get_room_reads_only_the_roots_it_returns(api, room, monkeypatch):
    await api("bob", "POST", "prompts", body={"text": "say hello"})

    def whole_transcript():
        raise AssertionError("GET room converted the whole transcript")

    monkeypatch.setattr(room.document.transcript, "to_py", whole_transcript)
    reply = await api("bob", "GET", "room")
    assert reply.code == 200
    assert {"me", "agent", "queue", "approvals", "participants", "settings"} <= set(reply.json)
