"""Usage and budgets: what each person's turns cost today (from the `usage` records), daily caps
from `c.CopilotRoom.budgets` that refuse a prompt at submit, and a host's lift of one person's cap
that outlives a restart."""

import json

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.room.budgets.budget_caps import Budgets

from .harness import config
from .harness.config import copilot_agent
from .harness.helpers import READY, eventually

LONG = "word " * 2000  # bob's replies: 2,500 output tokens by the scripted model's count


def reconfigure(server, budgets: dict) -> None:
    server.config["CopilotRoom"]["budgets"] = budgets
    server.config_file.write_text(config.render(server.config))


async def test_usage_per_person_caps_refuse_and_a_hosts_lift_outlives_a_restart(servers, model):
    model.script = lambda request: (
        Reply(LONG, chunk_size=len(LONG), delay=0)
        if request.prompt.startswith("[bob]")
        else Reply("Done.")
    )
    server = servers(room=copilot_agent(model.base_url))

    async def idle():
        room = await server.room()
        return room["agent"].get("state") == "idle" and not room["queue"]

    async def ask(user, text):
        r = await server.call(user, "POST", "prompts", {"text": text})
        if r.code == 202:
            await eventually(idle, timeout=30, what=f"{text!r} to be answered")
        return r.code, json.loads(r.body)

    async def usage():
        return json.loads((await server.call("carol", "GET", "budgets")).body)

    def spent(sums):
        return sums["input_tokens"] + sums["output_tokens"]

    await server.start_async()
    await eventually(idle, timeout=READY, what="the agent to start")
    assert (await ask("alice", "first"))[0] == 202
    assert (await ask("bob", "second"))[0] == 202

    # Today's sums per person and for the room are the transcript's usage records, summed.
    records = [json.loads(line) for line in server.state_dir.joinpath("transcript.jsonl").open()]
    booked = {r["payload"]["author"]: r["payload"] for r in records if r["kind"] == "usage"}
    assert set(booked) == {"alice", "bob"}
    assert all(isinstance(booked["bob"][k], int) for k in ("input_tokens", "output_tokens"))
    # The real runtime reports no AI Credits for a provider's model: none booked, none invented.
    assert [booked[p].get("ai_credits") for p in ("alice", "bob")] == [None, None]
    today = await usage()
    assert today["ai_credits_apply"] is False, "the room says credits do not apply to a provider"
    for person in ("alice", "bob"):
        mine = today["people"][person]
        assert mine["turns"] == 1
        assert all(type(mine[n]) is int for n in ("turns", "input_tokens", "output_tokens"))
        assert spent(mine) == booked[person]["input_tokens"] + booked[person]["output_tokens"]
    assert spent(today["room"]) == spent(today["people"]["alice"]) + spent(today["people"]["bob"])
    assert today["room"]["premium_requests"] == 0, "your own provider bills no premium requests"
    assert (await server.room("bob"))["agent"]["usage"]["people"]["bob"]["turns"] == 1
    alice, bob = spent(today["people"]["alice"]), spent(today["people"]["bob"])
    assert bob > alice + 2000

    # A per-person cap between the two: bob is refused, alice still prompts.
    server.stop()
    cap = alice + 1000
    reconfigure(server, {"per_person": {"tokens": cap}})
    await server.start_async()
    await eventually(idle, timeout=READY, what="the agent to start again")
    code, refused = await ask("bob", "third")
    assert (code, refused["error"]) == (429, "budget_exceeded")
    assert refused["cap"] == {"scope": "per_person", "unit": "tokens", "limit": cap, "used": bob}
    assert refused["resets_at"] > today["day"] and refused["resets_at"].endswith("T00:00:00+00:00")
    assert (
        "per-person daily cap" in refused["message"] and refused["resets_at"] in refused["message"]
    )
    assert (await ask("alice", "fourth"))[0] == 202

    # Only a host lifts a cap; then bob prompts again, and after a restart too.
    assert (await server.call("bob", "POST", "budgets/bob/lift", {})).code == 403
    assert (await server.call("alice", "POST", "budgets/nobody/lift", {})).code == 404
    lifted = await server.call("alice", "POST", "budgets/bob/lift", {})
    assert lifted.code == 200 and json.loads(lifted.body)["lifted"] == ["bob"]
    assert (await ask("bob", "fifth"))[0] == 202

    # After a restart the lift holds; a room cap, once reached, refuses everyone.
    room_total = spent((await usage())["room"])
    server.stop()
    reconfigure(server, {"per_person": {"tokens": cap}, "room": {"tokens": room_total + 1}})
    await server.start_async()
    await eventually(idle, timeout=READY, what="the agent to start a third time")
    assert (await usage())["lifted"] == ["bob"]
    assert (await ask("bob", "sixth"))[0] == 202, "the lift outlives the restart"
    for person in ("alice", "bob"):
        code, refused = await ask(person, "seventh")
        assert (code, refused["cap"]["scope"]) == (429, "room"), person
    server.stop()


def test_a_wrong_budget_is_a_clear_error_at_start():
    with pytest.raises(ValueError, match=r"per_person\.prompts.*premium_requests and tokens"):
        Budgets.from_config({"per_person": {"prompts": 3}})
    with pytest.raises(ValueError, match=r"room\.tokens: Input should be greater than 0"):
        Budgets.from_config({"room": {"tokens": 0}})
    assert Budgets.from_config({"per_person": {"premium_requests": 5}}).per_person == {
        "premium_requests": 5
    }
