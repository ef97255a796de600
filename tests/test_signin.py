"""A host signs the room in to GitHub Copilot from the panel, with the runtime's own login flow
(the REAL runtime; no network here, so the flow's end is its failure path). Only hosts see the
flow's address; nothing of it reaches the shared document, the transcript or the log."""

from urllib.parse import parse_qs, urlparse

import pytest

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.copilot.access import TOKEN_VARIABLES

from .harness.helpers import ready

SECRET_CODE = "c0de5ecret4f9e"  # what GitHub would hand the browser on its way back


@pytest.fixture
def room_config(request, monkeypatch):
    for variable in TOKEN_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    if "provider" in request.node.name:
        return request.getfixturevalue("copilot_config")
    return {"agent_class": CopilotAgent}  # demo mode: no login, no provider


async def test_only_hosts_may_sign_in_and_offline_the_room_stays_in_demo(
    api, room, state_dir, caplog
):
    await ready(api, room)
    assert room.document.meta.get("agent") == "demo model"
    for person in ("bob", "carol"):
        for method, path in (("GET", "signin"), ("POST", "signin"), ("POST", "signin/cancel")):
            r = await api(person, method, *path.split("/"))
            assert r.code == 403, (person, path, r)
        assert (await api(person, "POST", "signout")).code == 403
    r = await api("alice", "GET", "signin")
    assert r.json == {"state": "idle", "offered": True}

    r = await api("alice", "POST", "signin")
    assert r.code == 200, r
    shown = r.json
    assert shown["state"] == "waiting" and shown["by"] == "alice"
    assert shown["url"].startswith("https://github.com/login/oauth/authorize?")
    assert shown["callback"].startswith("http://127.0.0.1:")
    state = parse_qs(urlparse(shown["url"]).query)["state"][0]
    assert state not in room.document.ydoc.get_update().decode("latin-1")
    assert (await api("alice", "GET", "signin")).json == shown

    wrong = await api(
        "alice", "POST", "signin", "return", body={"url": "http://example.com/callback?code=x"}
    )
    assert wrong.code == 400 and wrong.json["error"] == "wrong_signin_address", wrong
    landed = f"{shown['callback']}?code={SECRET_CODE}&state={state}"
    r = await api("alice", "POST", "signin", "return", body={"url": landed})
    assert r.code == 200, r
    assert r.json["state"] == "failed"
    assert "github.com" in r.json["error"] and r.json["error"].startswith("Signing in"), r.json

    assert room.document.meta.get("agent") == "demo model"
    assert room.document.meta.get("copilot_seat") is None
    assert (await api("alice", "GET", "signin")).json["offered"] is True
    transcript = (state_dir / "transcript.jsonl").read_text()
    for secret in (SECRET_CODE, state):
        assert secret not in transcript and secret not in caplog.text
        assert secret not in room.document.ydoc.get_update().decode("latin-1")
    assert "copilot.signed_in" not in transcript

    r = await api("alice", "POST", "signin", "cancel")
    assert r.json == {"state": "idle", "offered": True}
    nothing = await api("alice", "POST", "signout")
    assert nothing.code == 409 and nothing.json["error"] == "no_copilot_login", nothing


async def test_a_room_with_a_provider_offers_no_sign_in(api, room):
    await ready(api, room)
    assert (await api("alice", "GET", "signin")).json["offered"] is False
    r = await api("alice", "POST", "signin")
    assert r.code == 409 and r.json["error"] == "not_in_demo_mode", r
