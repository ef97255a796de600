"""Identity and the outer guard: guests, the host-claim link, the deployment's Authorizer."""

import logging
import subprocess
import sys

import pytest
from jupyter_server.auth.authorizer import Authorizer
from jupyter_server.auth.identity import IdentityProvider

import jupyter_copilot_room
from jupyter_copilot_room.access.identity import HostClaim, provider_verifies_users

from .harness.people import SignedInUsers


class NoRoomForCarol(Authorizer):
    """A deployment's Authorizer that keeps carol out of the room (and nothing else)."""

    def is_authorized(self, handler, user, action, resource):
        return not (resource == "copilot-room" and user.username == "carol")


def test_stock_providers_make_guests_and_others_verify():
    assert not provider_verifies_users(IdentityProvider())
    assert provider_verifies_users(SignedInUsers())


def test_claim_link_works_once():
    claim = HostClaim()
    secret = claim.secret
    assert not claim.redeem("wrong")
    assert claim.redeem(secret)
    assert not claim.redeem(secret)


def test_state_dir_is_git_ignored(room, state_dir):
    assert (state_dir / ".gitignore").read_text() == "*\n"


@pytest.mark.parametrize(
    "jp_server_config",
    [
        {
            "ServerApp": {
                "jpserver_extensions": {"jupyter_copilot_room": True},
                "authorizer_class": NoRoomForCarol,
                "identity_provider_class": SignedInUsers,
            },
            "CopilotRoom": {"viewers": ["carol"], "members": ["bob"], "agent_class": None},
        }
    ],
)
async def test_deployment_authorizer_can_close_the_room(api):
    assert (await api("carol", "GET", "room")).code == 403
    assert (await api("bob", "GET", "room")).code == 200


@pytest.fixture
def guest_server_config(tmp_path):
    return {
        "ServerApp": {"jpserver_extensions": {"jupyter_copilot_room": True}},
        "CopilotRoom": {"state_dir": str(tmp_path / "state"), "agent_class": None},
    }


@pytest.mark.parametrize("room_config", [{"hosts": []}])
async def test_with_no_host_configured_the_claim_link_makes_a_host(room_app, jp_fetch, api):
    secret = room_app.room.claim.secret
    assert secret
    r = await jp_fetch(
        "copilot-room",
        "claim",
        params={"secret": "wrong"},
        headers={"Authorization": "token erin"},
        raise_error=False,
        follow_redirects=False,
    )
    assert r.code == 403
    r = await jp_fetch(
        "copilot-room",
        "claim",
        params={"secret": secret},
        headers={"Authorization": "token erin"},
        raise_error=False,
        follow_redirects=False,
    )
    assert r.code == 302
    me = (await api("erin", "GET", "room")).json["me"]
    assert me["role"] == "host"
    r = await jp_fetch(
        "copilot-room",
        "claim",
        params={"secret": secret},
        headers={"Authorization": "token dave"},
        raise_error=False,
        follow_redirects=False,
    )
    assert r.code == 409, "the link works once"


async def test_guests_are_unverified_and_the_claim_link_is_printed(
    jp_configurable_serverapp, guest_server_config, caplog
):
    caplog.set_level(logging.INFO)
    app = jp_configurable_serverapp(config=guest_server_config)
    room_app = app.extension_manager.extension_points["jupyter_copilot_room"].app
    room_app.log.addHandler(caplog.handler)  # the server's loggers may not propagate
    assert room_app.users_verified is False
    await room_app._start_jupyter_server_extension(app)  # printed once the server is up
    secret = room_app.room.claim.secret
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert f"copilot-room/claim?secret={secret[:4]}…{secret[-4:]}" in logged
    await room_app.stop_extension()


def test_no_claim_link_when_a_host_is_configured(room_app):
    assert room_app.room.claim is None


def test_extension_is_enabled_on_install():
    out = subprocess.run(
        [sys.executable, "-m", "jupyter", "server", "extension", "list"],
        capture_output=True,
        text=True,
        check=True,
    )
    listing = out.stdout + out.stderr
    assert "jupyter_copilot_room" in listing and "enabled" in listing
    shown = listing.replace("\x1b[32m", "").replace("\x1b[0m", "")
    assert f"jupyter_copilot_room {jupyter_copilot_room.__version__} OK" in shown
