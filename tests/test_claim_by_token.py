"""The host claim makes a person host, never the server's token (issue 27): on a plain
token-protected server (jupyter_server's own identity provider), a request that authenticates
only with the server's token and carries no login cookie is the server's owner, a script or a
kernel, not a person. The claim link leads such a request on to the browser's own login cookie
(the response sets it); `POST claim` refuses it. Either way the one-time secret stays unspent."""

import json

import pytest


@pytest.fixture
def jp_server_config(tmp_path):
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_copilot_room": True}},
        "CopilotRoom": {"state_dir": str(tmp_path / "state"), "agent_class": None, "hosts": []},
    }


async def test_the_servers_token_alone_never_spends_the_claim_secret(room_app, jp_fetch):
    secret = room_app.room.claim.secret
    assert secret and room_app.users_verified is False

    # The link as printed: `?token=` in the query, no login cookie (a fresh browser).
    token = room_app.serverapp.identity_provider.token
    r = await jp_fetch(
        "copilot-room",
        "claim",
        params={"secret": secret, "token": token},
        headers={"Authorization": ""},
        raise_error=False,
        follow_redirects=False,
    )
    assert r.code == 302, r
    location = r.headers["Location"]
    assert location.endswith(f"copilot-room/claim?secret={secret}") and "token" not in location
    assert any(k == "Set-Cookie" for k, _ in r.headers.get_all()), "the browser's login cookie"
    assert room_app.room.claim.secret == secret, "not spent on the server's token"

    # The token in a header and no cookie: a script or a kernel, never led on (no loop).
    r = await jp_fetch(
        "copilot-room",
        "claim",
        params={"secret": secret},
        raise_error=False,
        follow_redirects=False,
    )
    assert r.code == 403, r
    assert b"cannot spend it" in r.body
    assert room_app.room.claim.secret == secret

    r = await jp_fetch(
        "copilot-room",
        "api",
        "claim",
        method="POST",
        body=json.dumps({"secret": secret}),
        raise_error=False,
    )
    assert (r.code, json.loads(r.body)["error"]) == (403, "claim_needs_a_person"), r.body
    assert room_app.room.claim.secret == secret
    assert room_app.room.people.book.claimed_hosts == set(), "nobody claimed the room"
