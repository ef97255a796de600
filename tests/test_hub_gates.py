"""JupyterHub groups and custom scopes admit visitors directly, re-read on every request."""

import asyncio

import pytest
from jupyter_server.auth.identity import IdentityProvider, User

from jupyter_copilot_room.access.hub_grants import hub_grant
from jupyter_copilot_room.access.roles import Role

HUB = {
    "alice": {"name": "alice", "groups": [], "scopes": []},
    "gina": {"name": "gina", "groups": ["pairing"], "scopes": ["access:servers!user=alice"]},
    "vic": {"name": "vic", "groups": [], "scopes": ["custom:copilot-room:viewer"]},
    "olga": {"name": "olga", "groups": ["other"], "scopes": []},
}


class HubLikeUser(User):
    """Shaped like JupyterHub's single-user `JupyterHubUser`: a jupyter_server User + hub_user."""

    def __init__(self, hub_user):
        super().__init__(username=hub_user["name"])
        self.hub_user = hub_user


class HubLikeUsers(IdentityProvider):
    def get_user(self, handler):
        name = handler.request.headers.get("Authorization", "").removeprefix("token ").strip()
        if name not in HUB:
            return None
        handler._token_authenticated = True
        return HubLikeUser(HUB[name])


def hub_user(**model):
    return HubLikeUser({"name": "x", **model})


def test_a_scope_filtered_to_another_server_grants_nothing_here():
    here = "alice/"
    for scope in (
        "custom:copilot-room:member!server=alice/",
        "custom:copilot-room:member!user=alice",
    ):
        assert hub_grant(hub_user(scopes=[scope]), server=here) is Role.MEMBER
    for scope in (
        "custom:copilot-room:member!server=bob/",
        "custom:copilot-room:member!user=bob",
        "custom:copilot-room:member!group=pairing",
    ):
        assert hub_grant(hub_user(scopes=[scope]), server=here) is None, scope


def test_groups_and_scopes_grant_roles():
    assert hub_grant(hub_user(groups=["pairing"]), ["pairing"], ["watchers"]) is Role.MEMBER
    assert hub_grant(hub_user(groups=["watchers"]), ["pairing"], ["watchers"]) is Role.VIEWER
    assert hub_grant(hub_user(scopes=["custom:copilot-room:member"])) is Role.MEMBER
    assert hub_grant(hub_user(scopes=["custom:copilot-room:viewer"])) is Role.VIEWER
    assert hub_grant(hub_user(groups=["pairing", "watchers"]), ["pairing"], ["watchers"]) is (
        Role.MEMBER
    ), "member wins when both apply"
    assert hub_grant(hub_user(groups=["other"]), ["pairing"]) is None
    assert hub_grant(User(username="plain")) is None, "no hub, no gate"


@pytest.fixture
def jp_server_config(state_dir):
    return {
        "ServerApp": {
            "jpserver_extensions": {"jupyter_copilot_room": True},
            "identity_provider_class": HubLikeUsers,
        },
        "CopilotRoom": {
            "hosts": ["alice"],
            "member_groups": ["pairing"],
            "websocket_recheck_interval": 0.2,
            "agent_class": None,
            "state_dir": str(state_dir),
        },
    }


async def test_hub_group_and_scope_admit_without_asking(api):
    assert (await api("gina", "GET", "room")).json["me"]["role"] == "member"
    assert (await api("gina", "POST", "prompts", body={"text": "hi"})).code == 202
    assert (await api("vic", "GET", "room")).json["me"]["role"] == "viewer"
    assert (await api("olga", "GET", "room")).json["me"]["role"] == "pending"


async def test_leaving_the_hub_group_takes_effect_on_the_next_request(api):
    assert (await api("gina", "GET", "room")).json["me"]["role"] == "member"
    HUB["gina"]["groups"] = []
    try:
        assert (await api("gina", "GET", "room")).json["me"]["role"] == "pending"
        assert (await api("gina", "POST", "prompts", body={"text": "hi"})).code == 403
    finally:
        HUB["gina"]["groups"] = ["pairing"]


async def test_a_host_can_remove_someone_a_hub_group_admits(api):
    assert (await api("gina", "GET", "room")).json["me"]["role"] == "member"
    assert (await api("alice", "DELETE", "participants", "gina")).code == 204
    assert (await api("gina", "GET", "room")).json["me"]["role"] == "refused"
    assert (await api("gina", "POST", "prompts", body={"text": "hi"})).code == 403


async def test_an_open_websocket_closes_when_hub_access_ends(jp_ws_fetch, api):
    ws = await jp_ws_fetch("copilot-room", "ws", headers={"Authorization": "token gina"})
    HUB["gina"]["groups"] = []
    try:
        while await asyncio.wait_for(ws.read_message(), 5) is not None:
            pass  # the room's messages, until the server closes the socket
        assert ws.close_code == 4401
    finally:
        HUB["gina"]["groups"] = ["pairing"]


async def test_a_hosts_re_role_holds_against_the_hub_grant_and_the_reply_says_so(api):
    assert (await api("gina", "GET", "room")).json["me"]["role"] == "member"
    changed = await api("alice", "PUT", "participants", "gina", body={"role": "viewer"})
    assert changed.json == {"username": "gina", "role": "viewer"}
    assert (await api("gina", "GET", "room")).json["me"]["role"] == "viewer"
    assert (await api("gina", "POST", "prompts", body={"text": "hi"})).code == 403
    again = await api("alice", "PUT", "participants", "gina", body={"role": "member"})
    assert again.json == {"username": "gina", "role": "member"}
