"""Linking a chat account is the person's own act: a code sent to the bot by a chat user only
asks to act as its owner, who allows or denies it in the panel (`GET chat-links`,
`POST chat-links/asks/{id}`); the link and its removal are lines in the transcript; wrong codes
are limited per chat user. End to end: a real server, the real Copilot runtime, the fake Slack."""

import json

import pytest

from jupyter_copilot_room.fronts.chat import linked_people

from .harness import people, slack_fixtures
from .harness.helpers import eventually, link_notes
from .harness.slack_fixtures import CHANNEL, ready

slack = slack_fixtures.slack  # a fixture, used below


@pytest.fixture
def room_config(copilot_config, slack, monkeypatch):
    """Only bob is configured: the others link themselves; dave is a member."""
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test")
    settings = {"rooms": {"main": CHANNEL}, "people": {"UBOB": "bob"}, "api_url": slack.api_url}
    return {**copilot_config, "members": [people.MEMBER, "dave"], "slack": settings}


async def said_to(slack, user: str, count: int) -> str:
    """The `count`th thing the bot whispered to `user` (waiting for it)."""
    await eventually(lambda: len([e for e in slack.ephemerals if e["user"] == user]) >= count)
    return [e["text"] for e in slack.ephemerals if e["user"] == user][count - 1]


def prompts(room) -> list[tuple[str, str]]:
    records = (json.loads(line) for line in room.transcript.read_text().splitlines())
    return [(r["actor"], r["payload"]["text"]) for r in records if r["kind"] == "prompt.submitted"]


async def test_a_code_links_only_once_its_owner_allows_it(api, room, slack):
    slack.users["UMALLORY"] = "mallory"  # UDAVE has no name Slack gives: his id stands
    await ready(room, slack)

    # A leaked code: mallory sends dave's code; it only asks dave, who denies.
    code = (await api("dave", "POST", "link-code")).json["code"]
    await slack.message_event("UMALLORY", "DMALLORY", f"link {code}", channel_type="im")
    assert "allows it in JupyterLab" in await said_to(slack, "UMALLORY", 1)
    await slack.mention("UMALLORY", CHANNEL, "delete everything")
    assert "not linked" in await said_to(slack, "UMALLORY", 2)  # not dave yet
    (ask,) = (await api("dave", "GET", "chat-links")).json["asks"]
    assert ask == {"id": ask["id"], "service": "slack", "user": "UMALLORY", "name": "@mallory"}
    assert (await api("erin", "GET", "chat-links")).json == {"links": [], "asks": []}
    taken = await api("erin", "POST", "chat-links", "asks", ask["id"], body={"decision": "allow"})
    assert taken.code == 404, "only the code's owner answers its ask"
    bad = await api("dave", "POST", "chat-links", "asks", ask["id"], body={"decision": "yes"})
    assert bad.code == 400
    denied = await api("dave", "POST", "chat-links", "asks", ask["id"], body={"decision": "deny"})
    assert denied.json == {"id": ask["id"], "decision": "deny"}
    assert "did not allow" in await said_to(slack, "UMALLORY", 3)
    await slack.mention("UMALLORY", CHANNEL, "delete everything")
    assert "not linked" in await said_to(slack, "UMALLORY", 4)
    again = await api("dave", "POST", "chat-links", "asks", ask["id"], body={"decision": "allow"})
    assert again.code == 404, "an answered ask is gone"

    # Dave's own account: he allows it, and Slack is him from then on, until he removes it.
    code = (await api("dave", "POST", "link-code")).json["code"]
    await slack.message_event("UDAVE", "DDAVE", f"link {code}", channel_type="im")
    assert "allows it in JupyterLab" in await said_to(slack, "UDAVE", 1)
    (ask,) = (await api("dave", "GET", "chat-links")).json["asks"]
    allowed = await api("dave", "POST", "chat-links", "asks", ask["id"], body={"decision": "allow"})
    assert allowed.code == 200, allowed
    assert "Linked: you act as Dave in the rooms, with Dave's role." in await said_to(
        slack, "UDAVE", 2
    )
    listed = (await api("dave", "GET", "chat-links")).json
    assert listed == {"links": [{"service": "slack", "user": "UDAVE", "name": "UDAVE"}], "asks": []}
    await slack.mention("UDAVE", CHANNEL, "say hi")
    await eventually(lambda: ("dave", "say hi") in prompts(room))  # he is dave now

    assert (await api("erin", "DELETE", "chat-links", "slack", "UDAVE")).code == 404
    assert (await api("dave", "DELETE", "chat-links", "slack", "UDAVE")).code == 204
    assert (await api("dave", "GET", "chat-links")).json["links"] == []
    await slack.mention("UDAVE", CHANNEL, "say hi")
    assert "not linked" in await said_to(slack, "UDAVE", 3)

    assert link_notes(room, about="Slack user") == [
        ("dave", "{0} refused to let Slack user @mallory act as them."),
        ("dave", "{0} let Slack user UDAVE act as them in the rooms."),
        ("dave", "{0} removed the link of Slack user UDAVE: it no longer acts as them."),
    ]


async def test_wrong_codes_are_limited_per_chat_user(api, room, slack):
    await ready(room, slack)
    for n in range(linked_people.WRONG_CODES):
        await slack.message_event("UGUESS", "DGUESS", f"link WRONG{n:03d}", channel_type="im")
        assert "unknown or expired" in await said_to(slack, "UGUESS", n + 1)
    code = (await api("dave", "POST", "link-code")).json["code"]
    await slack.message_event("UGUESS", "DGUESS", f"link {code}", channel_type="im")
    assert "Too many wrong codes" in await said_to(slack, "UGUESS", linked_people.WRONG_CODES + 1)
    assert (await api("dave", "GET", "chat-links")).json["asks"] == []  # not even read
    await slack.message_event("UDAVE", "DDAVE", f"link {code}", channel_type="im")
    assert "allows it in JupyterLab" in await said_to(slack, "UDAVE", 1)  # another user: fine


async def test_the_linked_chat_user_reads_a_guests_name_not_their_hex_username(api, room, slack):
    await ready(room, slack)
    code = (await api(people.GUEST, "POST", "link-code")).json["code"]
    await slack.message_event("UGUEST", "DGUEST", f"link {code}", channel_type="im")
    assert "allows it in JupyterLab" in await said_to(slack, "UGUEST", 1)
    (ask,) = (await api(people.GUEST, "GET", "chat-links")).json["asks"]
    decision = {"decision": "allow"}
    allowed = await api(people.GUEST, "POST", "chat-links", "asks", ask["id"], body=decision)
    assert allowed.code == 200, allowed
    said = await said_to(slack, "UGUEST", 2)
    name = people.DISPLAY_NAMES[people.GUEST]
    assert said.startswith(f"Linked: you act as {name} in the rooms, with {name}'s role"), said
    assert all(people.GUEST not in e["text"] for e in slack.ephemerals)
