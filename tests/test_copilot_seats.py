"""Copilot seats at the door (`c.CopilotRoom.github["seat_check"]`), against the fake GitHub's
`GET /orgs/{org}/members/{username}/copilot`: a member without a seat waits at the door with the
reason on the hosts' card, may be admitted as a viewer only, and prompts nothing."""

import pytest

from .harness import people
from .harness.fake_github_rest import FakeGitHub
from .harness.helpers import eventually, served

ADMIN_TOKEN = "gh-admin-token"


@pytest.fixture
def github(jp_asyncio_loop):
    fake = FakeGitHub(repository="acme/lab", token=ADMIN_TOKEN)
    fake.seats["acme"] = {"bob"}
    yield from served(fake, jp_asyncio_loop)


@pytest.fixture
def room_config(github, monkeypatch):
    monkeypatch.setenv("GITHUB_ADMIN_TOKEN", ADMIN_TOKEN)
    seat_check = {"org": "acme", "token_env": "GITHUB_ADMIN_TOKEN"}
    return {
        "members": [people.MEMBER, "erin"],
        "github": {"api_url": github.base_url, "seat_check": seat_check},
    }


async def role(api, user):
    return (await api(user, "GET", "room")).json["me"]["role"]


async def test_a_member_without_a_seat_waits_at_the_door_with_the_reason(api, github, room):
    assert await role(api, "erin") == "pending"  # GitHub is being asked
    await eventually(lambda: github.requests and room.document.participants.get("erin"))
    erin = room.document.participants["erin"]
    await eventually(lambda: erin.get("door_note") == "no Copilot seat in acme")
    assert await role(api, "erin") == "pending"
    assert dict(erin["answerers"])["roles"] == ["host"]

    await role(api, people.MEMBER)
    await eventually(lambda: room.document.participants["bob"].get("role") == "member")
    assert await role(api, people.MEMBER) == "member"
    asked = [path for method, path, _ in github.requests if path.startswith("/orgs/")]
    assert asked == ["/orgs/acme/members/erin/copilot", "/orgs/acme/members/bob/copilot"]

    refused = await api(people.HOST, "POST", "admissions/erin", body={"decision": "member"})
    assert (refused.code, refused.json["error"]) == (409, "no_copilot_seat")
    assert "no Copilot seat in acme" in refused.json["message"]
    assert refused.json["message"].startswith("Erin cannot be a member"), refused.json  # her name
    prompt = await api("erin", "POST", "prompts", body={"text": "hello"})
    assert prompt.code == 403

    admitted = await api(people.HOST, "POST", "admissions/erin", body={"decision": "viewer"})
    assert admitted.code == 200
    assert await role(api, "erin") == "viewer"
    assert "door_note" not in room.document.participants["erin"]
    assert (await api("erin", "POST", "prompts", body={"text": "hello"})).code == 403


async def test_when_github_cannot_say_the_admission_policy_decides(api, github, room, caplog):
    github.fail_next(1, status=502)
    assert await role(api, "erin") == "pending"
    await eventually(lambda: any("could not say" in r.getMessage() for r in caplog.records))
    assert await role(api, "erin") == "member"  # the configured members list decides
