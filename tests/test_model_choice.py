"""Model choice: a host switches the model that answers the next turns (with a provider, among
`c.CopilotRoom.models`); the switch is recorded, named by usage, and outlives a restart."""

import json

from jupyter_copilot_room.agent.scripted_model import Reply

from .harness.config import copilot_agent
from .harness.helpers import READY, eventually


async def test_a_hosts_switch_names_the_model_of_the_next_turns_and_survives_a_restart(
    servers, model
):
    model.script = lambda request: Reply(f"Noted: {request.prompt}")
    server = servers(room={**copilot_agent(model.base_url), "models": ["other-model"]})

    async def idle():
        room = await server.room()
        return room["agent"].get("state") == "idle" and not room["queue"]

    async def ask(text):
        await server.call("bob", "POST", "prompts", {"text": text})
        await eventually(idle, timeout=30, what=f"{text!r} to be answered")
        [request] = [r for r in model.requests if r.prompt == f"[bob]: {text}"]
        return request.body["model"]

    await server.start_async()
    await eventually(idle, timeout=READY, what="the agent to start")
    r = await server.call("bob", "GET", "model")
    assert json.loads(r.body) == {
        "model": "scripted-model",
        "models": ["scripted-model", "other-model"],
    }
    assert await ask("first") == "scripted-model"

    assert (await server.call("bob", "PUT", "model", {"model": "other-model"})).code == 403
    r = await server.call("alice", "PUT", "model", {"model": "gpt-unknown"})
    assert (r.code, json.loads(r.body)["error"]) == (400, "unknown_model")
    r = await server.call("alice", "PUT", "model", {"model": "other-model"})
    assert r.code == 200, r.body
    agent = (await server.room())["agent"]
    assert agent["model"] == "other-model" and agent["agent"].startswith("other-model via ")
    assert await ask("second") == "other-model"

    server.stop()
    await server.start_async()
    await eventually(idle, timeout=READY, what="the agent to start again")
    room = await server.room()
    assert room["agent"]["model"] == "other-model", "the host's choice outlives the server"
    assert room["agent"]["agent"].startswith("other-model via ")
    assert await ask("third") == "other-model"

    records = [json.loads(line) for line in server.state_dir.joinpath("transcript.jsonl").open()]
    [switch] = [r for r in records if r["kind"] == "model.changed"]
    assert (switch["actor"], switch["payload"]) == ("alice", {"model": "other-model"})
    usage = [r["payload"]["model"] for r in records if r["kind"] == "usage"]
    assert usage == ["scripted-model", "other-model", "other-model"]
    watcher = await server.watch("carol")
    await eventually(lambda: watcher.transcript.to_py(), what="the document")
    said = [e for e in watcher.transcript.to_py() if e["body"].startswith("{0} switched")]
    assert [(e["body"], e["people"]) for e in said] == [
        ("{0} switched the model to other-model.", ["alice"])
    ]
    watcher.close()
    server.stop()
