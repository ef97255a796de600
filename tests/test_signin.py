"""A host signs the room in to GitHub Copilot from the panel, with the runtime's own login flow
(the REAL runtime). Offline, github.com's flow ends in its failure path; an enterprise host
(`c.CopilotRoom.github_host`) pointed at a fake GitHub on 127.0.0.1 (tests/harness/github.py:
https, its certificate trusted through SSL_CERT_FILE) takes the flow to its end, through the
runtime's plain-text consent. Only hosts see the flow's address; nothing of it, nor the token,
reaches the shared document, the transcript or the log."""

import json
import logging
from urllib.parse import parse_qs, urlparse

import pytest

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.copilot.copilot_agent import SIGNED_IN_SESSION, SIGNED_OUT_SESSION
from jupyter_copilot_room.agent.copilot.model_access import TOKEN_VARIABLES
from jupyter_copilot_room.agent.demo import DEMO_NOTE

from .harness import github
from .harness.github import TOKEN, FakeGitHub
from .harness.helpers import eventually, finished, ready

SECRET_CODE = "c0de5ecret4f9e"  # what GitHub would hand the browser on its way back


@pytest.fixture
def room_config(request, monkeypatch):
    for variable in TOKEN_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    if "provider" in request.node.name:
        return request.getfixturevalue("copilot_config")
    config = {"agent_class": CopilotAgent}  # demo mode: no login, no provider
    if "enterprise" in request.node.name:
        config["github_host"] = request.getfixturevalue("fake_github")
    if "left_open" in request.node.name:
        config["signin_timeout"] = 2.0
    return config


@pytest.fixture
def fake_github(tmp_path, monkeypatch):
    """`127.0.0.1:<port>`: an https GitHub whose self-signed certificate the runtime trusts."""
    with github.fake_github(tmp_path) as (host, certificate):
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate))  # the runtime's trust, nobody else's
        yield host


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


async def test_an_enterprise_sign_in_asks_a_host_before_the_token_is_kept_in_plain_text(
    api, room, state_dir, caplog, fake_github
):
    caplog.set_level(logging.INFO, logger="jupyter_copilot_room")
    await ready(api, room)
    await api("bob", "POST", "prompts", body={"text": "hello"})  # the demo's session has a turn
    await eventually(
        lambda: [p["state"] for p in finished(room).values()] == ["completed"], timeout=30
    )
    shown = (await api("alice", "POST", "signin")).json
    assert shown["state"] == "waiting", shown
    assert shown["url"].startswith(f"https://{fake_github}/login/oauth/authorize?"), shown
    state = parse_qs(urlparse(shown["url"]).query)["state"][0]
    landed = f"{shown['callback']}?code={SECRET_CODE}&state={state}"
    early = await api("alice", "POST", "signin", "allow")
    assert early.code == 409 and early.json["error"] == "no_signin_consent", early

    r = await api("alice", "POST", "signin", "return", body={"url": landed})
    assert r.json["state"] == "consent", r.json  # the login worked; this server has no keychain
    assert FakeGitHub.calls[:2] == ["POST /login/oauth/access_token", "GET /copilot_internal/user"]
    assert (await api("bob", "POST", "signin", "allow")).code == 403
    assert room.document.meta.get("copilot_seat") is None  # nothing is kept before a host allows
    assert TOKEN not in "".join(p.read_text(errors="ignore") for p in files(state_dir / "copilot"))

    r = await api("alice", "POST", "signin", "allow")
    assert r.code == 200 and r.json["state"] == "idle", r
    # The runtime restarts under the login: on a loaded CI machine that takes over 5 s.
    await eventually(lambda: room.document.meta.get("copilot_seat") == "octo-host", timeout=30)
    # The header shows what the seat has left, as the runtime read it from GitHub.
    await eventually(lambda: room.document.meta.get("copilot_quota") is not None, timeout=30)
    quota = dict(room.document.meta["copilot_quota"])
    assert quota.pop("resets_at"), quota  # a date the runtime read (which field: its choice)
    assert quota == {
        "entitlement": 300,
        "used": 180,
        "remaining_percentage": 40.0,
        "unlimited": False,
    }
    kept = [p for p in files(state_dir / "copilot") if TOKEN in p.read_text(errors="ignore")]
    assert kept, "the runtime keeps the login it was allowed to keep"
    transcript = (state_dir / "transcript.jsonl").read_text()
    records = [json.loads(line) for line in transcript.splitlines()]
    signed_in = [(r["actor"], r["payload"]) for r in records if r["kind"] == "copilot.signed_in"]
    assert signed_in == [("alice", {"login": "octo-host"})]
    # The demo's session, with bob's turn in it, is resumed under the login: nothing was lost,
    # so the ready line says nothing of a new session.
    [*_, ready_now] = [r["payload"] for r in records if r["kind"] == "agent.ready"]
    assert ready_now == {"label": "Copilot", "detail": ""}, ready_now
    assert "could not be resumed" not in transcript and SIGNED_IN_SESSION not in transcript
    assert "alice allowed the runtime to keep the Copilot login in plain text" in caplog.text
    for secret in (TOKEN, SECRET_CODE, state):
        assert secret not in transcript and secret not in caplog.text
        assert secret not in room.document.ydoc.get_update().decode("latin-1")


async def test_an_enterprise_login_kept_in_plain_text_is_signed_out_and_can_sign_in_again(
    api, room, state_dir
):
    await ready(api, room)
    await sign_in_with_consent(api, room)
    config = state_dir / "copilot" / "config.json"
    assert TOKEN in config.read_text()
    assert (await api("bob", "POST", "signout")).code == 403

    # At once: the agent is still starting with the login, and the sign-out waits for it.
    r = await api("alice", "POST", "signout")
    assert r.code == 200 and r.json == {"signed_out": True}, r
    await eventually(lambda: room.document.meta.get("agent") == "demo model")
    assert room.document.meta.get("copilot_seat") is None
    assert TOKEN not in "".join(p.read_text(errors="ignore") for p in files(state_dir / "copilot"))
    records = [
        json.loads(line) for line in (state_dir / "transcript.jsonl").read_text().splitlines()
    ]
    assert [r["actor"] for r in records if r["kind"] == "copilot.signed_out"] == ["alice"]
    [*_, ready_now] = [r["payload"] for r in records if r["kind"] == "agent.ready"]
    # Nobody prompted the signed-in session: the runtime saved none, and nothing is lost.
    assert ready_now == {"label": "demo model", "detail": DEMO_NOTE}, ready_now
    assert SIGNED_OUT_SESSION not in str(records)
    assert (await api("alice", "GET", "signin")).json == {"state": "idle", "offered": True}

    await sign_in_with_consent(api, room)  # the runtime asks again: nothing of the login is left
    assert TOKEN in config.read_text()


async def sign_in_with_consent(api, room):
    """A host signs in at the fake enterprise host and allows the token to be kept in plain text."""
    shown = (await api("alice", "POST", "signin")).json
    assert shown["state"] == "waiting", shown
    state = parse_qs(urlparse(shown["url"]).query)["state"][0]
    landed = f"{shown['callback']}?code={SECRET_CODE}&state={state}"
    r = await api("alice", "POST", "signin", "return", body={"url": landed})
    assert r.json["state"] == "consent", r.json
    r = await api("alice", "POST", "signin", "allow")
    assert r.code == 200 and r.json["state"] == "idle", r
    await eventually(lambda: room.document.meta.get("copilot_seat") == "octo-host")


async def test_a_sign_in_left_open_is_cancelled_and_the_card_says_so(api, room):
    await ready(api, room)
    shown = (await api("alice", "POST", "signin")).json
    assert shown["state"] == "waiting", shown
    await eventually(
        lambda: room.signin.describe()["state"] == "failed", timeout=10, what="the flow's expiry"
    )
    card = (await api("alice", "GET", "signin")).json
    assert card["error"].startswith("The sign-in was left open for 2 seconds, so the room"), card
    landed = f"{shown['callback']}?code={SECRET_CODE}"
    gone = await api("alice", "POST", "signin", "return", body={"url": landed})
    assert gone.code == 409 and gone.json["error"] == "no_signin", gone
    again = await api("alice", "POST", "signin")
    assert again.json["state"] == "waiting" and again.json["url"] != shown["url"], again


async def test_a_sign_in_open_when_the_server_stops_ends_with_it(api, room):
    """Its wait on the runtime ends before the runtime does: nothing of it is left pending for
    the runtime's reader thread to fail after the server's loop has closed."""
    await ready(api, room)
    assert (await api("alice", "POST", "signin")).json["state"] == "waiting"
    attempt = room.signin.attempt
    await room.stop()
    assert attempt.task is not None and attempt.task.done()
    assert room.signin.describe()["error"] == "The server stopped during the sign-in.", attempt


def files(folder):
    return [p for p in folder.rglob("*") if p.is_file()]
