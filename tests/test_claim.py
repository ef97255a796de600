"""Claiming a room that has no host: from the door of the tab already open (`POST claim`), or by
the printed link; refusals that say what to do; the link printed like jupyter_server's own URLs,
after them, the secret's middle hidden in the log."""

import logging
import stat

import pytest

from .harness import people


async def claim(api, user, secret):
    return await api(user, "POST", "claim", body={"secret": secret})


@pytest.mark.parametrize("room_config", [{"hosts": []}])
async def test_the_door_claims_the_room_in_the_tab_already_open(api, room):
    door = (await api("erin", "GET", "room")).json
    assert door == {"me": door["me"]}, "someone at the door learns nothing about the room"
    assert door["me"]["role"] == "pending"
    assert "claim_host" in door["me"]["can"], "no host yet: the door offers the claim"

    wrong = await claim(api, "erin", "not-the-secret")
    assert (wrong.code, wrong.json["error"]) == (403, "invalid_claim")
    assert "Copy it again" in wrong.json["message"]

    claimed = await claim(api, "erin", room.claim.secret)
    assert claimed.code == 200
    assert claimed.json["me"]["role"] == "host"
    assert "claim_host" not in claimed.json["me"]["can"]
    assert "manage_people" in claimed.json["me"]["can"]

    # Now the room has a host: nobody else is offered the claim, and the secret is spent.
    dave = (await api("dave", "GET", "room")).json["me"]
    assert dave["role"] == "pending" and "claim_host" not in dave["can"]
    again = await claim(api, "dave", room.claim.secret or "anything")
    assert (again.code, again.json["error"]) == (409, "already_claimed")
    assert "already has a host" in again.json["message"]


async def test_a_room_with_a_configured_host_offers_no_claim(api):
    me = (await api("erin", "GET", "room")).json["me"]
    assert "claim_host" not in me["can"]
    refused = await claim(api, "erin", "anything")
    assert (refused.code, refused.json["error"]) == (409, "already_claimed")


@pytest.mark.parametrize("room_config", [{"hosts": []}])
async def test_a_claim_body_is_checked(api):
    for body in ({}, {"secret": 5}, {"secret": "x" * 201}, {"secret": "s", "role": "host"}):
        reply = await api("erin", "POST", "claim", body=body)
        assert (reply.code, reply.json["error"]) == (400, "invalid_body"), body


@pytest.mark.parametrize("room_config", [{"hosts": []}])
async def test_a_wrong_or_used_link_explains_what_to_do_next(jp_fetch, room):
    async def open_link(user, secret):
        return await jp_fetch(
            "copilot-room",
            "claim",
            params={"secret": secret},
            headers=people.authorization(user),
            raise_error=False,
            follow_redirects=False,
        )

    wrong = await open_link("erin", "wrong")
    assert wrong.code == 403
    assert wrong.headers["Content-Type"].startswith("text/html")
    page = wrong.body.decode()
    assert "not this server's host secret" in page and "Open JupyterLab" in page

    secret = room.claim.secret
    assert (await open_link("erin", secret)).code == 302
    used = await open_link("dave", secret)
    assert used.code == 409
    assert "already has a host" in used.body.decode()
    assert secret not in used.body.decode()


@pytest.mark.parametrize("room_config", [{"hosts": []}])
async def test_the_link_is_printed_for_every_address_with_the_secret_masked(
    jp_serverapp, room_app, caplog
):
    caplog.set_level(logging.INFO)
    room_app.log.addHandler(caplog.handler)  # the server's loggers may not propagate
    await room_app._start_jupyter_server_extension(jp_serverapp)  # what the server does once up
    secret = room_app.room.claim.secret
    logged = "\n".join(r.getMessage() for r in caplog.records if "Copilot room" in r.getMessage())
    assert secret not in logged
    base = jp_serverapp.base_url
    masked = f"secret={secret[:4]}…{secret[-4:]}"
    for host in ("localhost", "127.0.0.1"):  # each address jupyter_server lists
        assert f"http://{host}:{jp_serverapp.port}{base}copilot-room/claim?{masked}" in logged
    [page_uri] = [w for w in logged.split() if w.startswith("file://")]
    page = room_app._claim_page
    assert page.as_uri() == page_uri
    assert stat.S_IMODE(page.stat().st_mode) == 0o600, "only the server's user reads the secret"
    text = page.read_text()
    assert secret in text
    assert f"127.0.0.1:{jp_serverapp.port}{base}copilot-room/claim?secret={secret}" in text
    await room_app.stop_extension()
    assert not page.exists()


async def test_no_link_is_printed_when_a_host_is_configured(jp_serverapp, room_app, caplog):
    caplog.set_level(logging.INFO)
    room_app.log.addHandler(caplog.handler)  # the server's loggers may not propagate
    await room_app._start_jupyter_server_extension(jp_serverapp)
    assert not any("no host yet" in r.getMessage() for r in caplog.records)
