"""The model endpoint has a bad day (the REAL runtime against the scripted model): it answers 500,
closes the connection mid-reply, or never sends a byte. Each turn fails within its deadline with a
message that says which, and the next prompt runs normally.

Measured with runtime 1.0.102: it retries a failed model call 5 times with backoff (6 requests,
~16 s for 500s, ~5 s for cut connections) and waits on a silent endpoint forever, which is why the
adapter has its own `model_timeout`.
"""

import json

import pytest

from jupyter_copilot_room.access.identity import Identity
from jupyter_copilot_room.agent.scripted_model import Reply

from .harness.helpers import entries, eventually, finished, ready

MODEL_TIMEOUT = 3


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "turn_timeout": 120, "model_timeout": MODEL_TIMEOUT}


FAULTS = {
    "fail": Reply(status=500),
    "cut": Reply("A reply that never ends. " * 10, cut_after=3),
    "hang": Reply(hang=True),
}


def records(room):
    lines = room.transcript.read_text().split("\n")
    return [json.loads(line) for line in lines if line.strip()]


def seconds_taken(room, prompt_id):
    ts = {
        r["kind"]: r["ts"]
        for r in records(room)
        if r["kind"] in ("prompt.started", "prompt.finished") and r["payload"]["id"] == prompt_id
    }
    return ts["prompt.finished"] - ts["prompt.started"]


async def test_model_endpoint_faults_fail_their_turn_clearly_and_the_next_prompt_runs(
    api, room, model
):
    flaky = iter([FAULTS["cut"], FAULTS["cut"]])  # cut twice, then whole

    def script(request):
        word = request.prompt.split()[-1]
        if word == "flaky":
            return next(flaky, Reply("Whole at last."))
        return FAULTS.get(word, Reply(f"Fine after {word}."))

    model.script = script
    await ready(api, room)
    ids = {}
    for word in ("fail", "cut", "flaky", "hang", "fine"):
        submitted = await api("bob", "POST", "prompts", body={"text": f"please {word}"})
        ids[word] = submitted.json["id"]
    await eventually(lambda: ids["fine"] in finished(room), timeout=90, what="all four turns")

    outcomes = finished(room)
    expected = {
        "fail": "The model endpoint returned 500 (scripted failure 500) to each of 6 tries over",
        "cut": "The model endpoint closed the connection mid-reply on each of 6 tries over",
        "hang": f"The model endpoint did not answer within {MODEL_TIMEOUT} s",
    }
    errors = [r["payload"]["message"] for r in records(room) if r["kind"] == "agent.error"]
    for word, start in expected.items():
        assert outcomes[ids[word]]["state"] == "failed", word
        assert outcomes[ids[word]]["reason"].startswith(start), outcomes[ids[word]]
        assert any(message.startswith(start) for message in errors), (word, errors)
    assert outcomes[ids["fine"]]["state"] == outcomes[ids["flaky"]]["state"] == "completed"

    # Within the deadline: the runtime's own retries, or the adapter's model timeout.
    assert seconds_taken(room, ids["fail"]) < 30
    assert seconds_taken(room, ids["cut"]) < 15
    assert seconds_taken(room, ids["hang"]) < MODEL_TIMEOUT + 5, "not the 120 s turn deadline"
    tries = [r.prompt.split()[-1] for r in model.requests if r.prompt.startswith("[bob]")]
    assert [tries.count(word) for word in ("fail", "cut", "flaky", "hang")] == [6, 6, 3, 1]

    # The document: each failed prompt says so, nothing is left streaming, the next reply is whole.
    prompts = {e["id"]: e for e in entries(room, "prompt")}
    assert [prompts[ids[w]]["state"] for w in ("fail", "cut", "hang", "fine")] == [
        "failed",
        "failed",
        "failed",
        "completed",
    ]
    shown = [e["body"] for e in entries(room, "error")]
    everything = [e["body"] for e in room.document.transcript.to_py()]
    exported = await room.history_commands.export_transcript(
        Identity("bob", "Bob", verified=True), "md"
    )
    for start in expected.values():
        assert any(body.startswith(start) for body in shown), shown
        # Once, on the turn (its error line): the turn's end does not say it again.
        assert sum(body.startswith(start) for body in everything) == 1, (start, everything)
        assert exported.count(start) == 1, (start, exported)

    # A reply cut mid-stream is asked for again: people see one reply, the last attempt's; the
    # JSONL keeps what each attempt streamed, the abandoned ones marked as retried.
    def replies_of(word):
        return [(e["state"], e["body"]) for e in replies if e["prompt_id"] == ids[word]]

    def attempts(word):
        messages = [r["payload"] for r in records(room) if r["kind"] == "assistant.message"]
        return [
            (m.get("retried", False), m.get("partial", False), m["text"])
            for m in messages
            if m["prompt_id"] == ids[word]
        ]

    replies = entries(room, "assistant")
    cut = "A reply that never"  # what three chunks of six characters hold
    assert replies_of("flaky") == [("done", "Whole at last.")]
    assert attempts("flaky") == [(True, True, cut)] * 2 + [(False, False, "Whole at last.")]
    assert replies_of("cut") == [("partial", cut)]
    assert attempts("cut") == [(True, True, cut)] * 5 + [(False, True, cut)]
    assert all(r["state"] != "streaming" for r in replies)
    assert replies[-1]["body"] == "Fine after fine." and replies[-1]["state"] == "done"
    assert room.document.meta.get("state") == "idle"
