"""A real `jupyter server` process, stopped and started again on the same state directory."""

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
    await eventually(
        lambda: any(
            e.get("prompt_id") == running["id"] and e["body"] == "working"
            for e in carol.transcript.to_py()
        ),
        what="the held turn's reply (the scripted agent says 'working', then waits)",
    )
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


async def test_a_finished_prompt_is_refused_alike_before_and_after_a_restart_from_a_snapshot(
    server,
):
    """Withdrawing a prompt that finished (completed, withdrawn, or cut by the stop) is a 409:
    it exists, it just cannot be withdrawn. A restart from the snapshot keeps only the open
    prompts in the queue; the answer stays the same, and an unknown id stays a 404."""
    await server.start_async()

    async def submit(user, text):
        return json.loads((await server.call(user, "POST", "prompts", {"text": text})).body)["id"]

    async def queue_is(*items):
        return [(item["id"], item["state"]) for item in (await server.room())["queue"]] == list(
            items
        )

    done = await submit("bob", "say done")
    await server.until(lambda: queue_is(), 60, "the first turn to finish")
    held = await submit("alice", "wait")
    withdrawn = await submit("bob", "say never")
    await server.until(
        lambda: queue_is((held, "working"), (withdrawn, "submitted")), 30, "the held turn"
    )
    assert (await server.call("bob", "DELETE", f"prompts/{withdrawn}")).code == 204

    async def refusals(*prompts):
        answers = {}
        for prompt in prompts:
            for user in ("bob", "alice"):
                r = await server.call(user, "DELETE", f"prompts/{prompt}")
                answers[prompt, user] = (r.code, json.loads(r.body)["error"])
        return answers

    before = await refusals(done, withdrawn)
    assert set(before.values()) == {(409, "not_pending")}
    server.stop()  # the held turn fails: a third finished prompt
    assert (server.state_dir / "snapshot.json").exists()
    await server.start_async()
    after = await refusals(done, withdrawn, held)
    assert after == {
        **before,
        (held, "alice"): (409, "not_pending"),
        (held, "bob"): (403, "not_your_prompt"),  # as for a prompt still queued: not bob's
    }
    r = await server.call("alice", "DELETE", "prompts/" + "0" * 32)
    assert (r.code, json.loads(r.body)["error"]) == (404, "prompt_not_found")
    assert "Discarding the room snapshot" not in server.log.read_text(), "started from it"
    server.stop()
