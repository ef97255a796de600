"""A real `jupyter server` process, stopped and started again on the same state directory."""

import asyncio
import json

import pytest

from .harness.helpers import eventually


@pytest.fixture
def server(servers):
    return servers()


def without_presence(snapshot):
    for person in snapshot["participants"].values():
        person.pop("online")
    return snapshot


async def test_server_restart_rebuilds_the_document_with_the_pending_queue(server):
    await server.start_async()
    await server.call("bob", "POST", "prompts", {"text": "say before the restart"})
    await server.call("alice", "POST", "prompts", {"text": "ask keep going?"})
    carol = await server.watch("carol")
    await eventually(lambda: len(carol.approvals) == 1, what="the question card")
    [question] = carol.approvals.to_py()
    await server.call("alice", "POST", f"questions/{question}", {"answer": "yes"})
    running = json.loads((await server.call("alice", "POST", "prompts", {"text": "wait"})).body)
    pending = [
        json.loads((await server.call("bob", "POST", "prompts", {"text": f"wait {n}"})).body)["id"]
        for n in range(3)
    ]
    await eventually(lambda: len(carol.queue) == 4 and carol.meta.get("state") == "running")
    await asyncio.sleep(0.2)
    before = without_presence(carol.snapshot())
    carol.close()

    server.stop()
    await server.start_async()
    carol = await server.watch("carol")
    await eventually(lambda: len(carol.transcript) > len(before["transcript"]), what="sync")
    await eventually(lambda: carol.meta.get("state") == "running")
    after = without_presence(carol.snapshot())

    # What a stop changes in what was there: the held turn failed, its reply kept as partial.
    stopped_turn = next(e for e in before["transcript"] if e["id"] == running["id"])
    stopped_reply = next(e for e in before["transcript"] if e.get("prompt_id") == running["id"])
    assert (stopped_turn["state"], stopped_reply["state"]) == ("working", "streaming")
    stopped_turn["state"], stopped_reply["state"] = "failed", "partial"
    assert after["transcript"][: len(before["transcript"])] == before["transcript"]
    added = after["transcript"][len(before["transcript"]) :]
    interrupted = [e for e in added if e["kind"] == "system"]
    assert len(interrupted) == 1 and "stopped during this turn" in interrupted[0]["body"]
    assert [e["kind"] for e in added if e["kind"] != "system"] == ["prompt", "assistant"]
    assert added[-2]["id"] == pending[0], "the first waiting prompt runs after the restart"
    assert [item["id"] for item in after["queue"]] == pending
    assert [item["state"] for item in after["queue"]] == ["working", "submitted", "submitted"]
    for old, new in zip(before["queue"][1:], after["queue"], strict=True):
        assert {k: v for k, v in old.items() if k not in ("state", "started_at")} == {
            k: v for k, v in new.items() if k not in ("state", "started_at")
        }
    assert running["id"] not in [item["id"] for item in after["queue"]]
    assert after["participants"] == before["participants"]
    carol.close()
    server.stop()
