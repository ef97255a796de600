"""The Slack tests' fixtures and look-ups: the fake Slack (`harness/fake_slack.py`) served in the
test's loop, a room configured to mirror into its channel, and where a prompt's message, a card
and its buttons are in what the fake was sent."""

import pytest

from . import people
from .fake_slack import FakeSlack
from .helpers import READY, eventually, served

CHANNEL = "C0ROOM"
SLACK_PEOPLE = {"UBOB": "bob", "UERIN": "erin", "UCAROL": "carol", "UALICE": "alice"}


@pytest.fixture
def slack(jp_asyncio_loop):
    """The fake Slack; after the test, nothing the room sent was refused as Slack refuses it
    (blocks slack_sdk's models reject, a text too long): every test checks every payload."""
    fake = FakeSlack(bot_token="xoxb-test", app_token="xapp-test")
    yield from served(fake, jp_asyncio_loop)
    assert fake.rejected == []


@pytest.fixture
def room_config(copilot_config, slack, monkeypatch):
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-test")
    settings = {"rooms": {"main": CHANNEL}, "people": SLACK_PEOPLE, "api_url": slack.api_url}
    return {**copilot_config, "members": [people.MEMBER, "erin"], "slack": settings}


async def ready(room, slack):
    await room.ensure_started()
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=READY)
    await slack.connected(timeout=15)


def prompt_message(slack, text):
    return next(m for m in slack.messages if m["channel"] == CHANNEL and text in m["text"])


def card_message(slack, thread):
    return next(m for m in slack.thread(thread) if m.get("blocks"))


def button(message, action_id):
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return next(e for e in actions["elements"] if e["action_id"] == action_id)
