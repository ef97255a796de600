"""The room's Slack bridge, as people in the panel see it (issue 43): someone admitted gets a
one-time code from the room's menu ("Link a Slack Account…"), sends `link <code>` to the bot in a
direct message and from then on acts in Slack as their username; the card with the code reads at
250 px in both themes; and the header says "Slack: disconnected" while the bridge's socket is
down, then nothing once the SDK reconnected; a host links the room to another channel from the
room's menu and unlinks it. Against the tests' fake Slack (the Web API and Socket
Mode), served from a thread with its own event loop (the browser tests run none)."""

import re
import time

import pytest
from playwright.sync_api import expect

from ..harness import config
from ..harness.browser_fixtures import served_in_thread, serving
from ..harness.fake_slack import FakeSlack
from ..harness.helpers import no_script
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, layout_problems, set_sidebar_width, show_room

BOT_TOKEN, APP_TOKEN = "xoxb-test", "xapp-test"
CHANNEL = "C0ROOM"
LINK_COMMAND = "copilot-room:link-chat-account"


@pytest.fixture
def slack():
    """The fake Slack and the loop it runs on (`slack.run(...)`)."""
    fake = FakeSlack(bot_token=BOT_TOKEN, app_token=APP_TOKEN)
    with served_in_thread(fake, "fake-slack") as served:
        yield served


@pytest.fixture
def lab(tmp_path, model, slack, request):
    model.script = no_script
    model.requests.clear()
    settings = {"rooms": {"main": CHANNEL}, "people": {}, "api_url": slack.service.api_url}
    room = {**config.copilot_agent(model.base_url), "slack": settings}
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_APP_TOKEN": APP_TOKEN}
    server = JupyterServer(tmp_path, app="lab", room=room, env=env)
    with serving(server, request, server.start):
        yield server


def ephemeral_to(fake: FakeSlack, user: str, timeout: float = 30, containing: str = "") -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for said in list(fake.ephemerals):
            if said["user"] == user and containing in said["text"]:
                return said
        time.sleep(0.1)
    raise AssertionError(f"the bot said nothing to {user}; it said {fake.ephemerals}")


def test_a_person_links_their_slack_account_and_the_header_says_when_slack_is_away(
    open_lab, lab, slack, screenshot
):
    fake = slack.service
    slack.run(fake.connected(timeout=60), timeout=70)  # the bridge is up
    alice = show_room(open_lab("alice"))

    # The command is named for the service the room offers, and is in the room's menu.
    label = f"() => window.jupyterapp.commands.label('{LINK_COMMAND}')"
    alice.wait_for_function(f"{label} === 'Link a Slack Account…'", timeout=30_000)
    alice.locator(".jp-CopilotRoom-switcher").click()
    menu = alice.locator(".jp-CopilotRoom-roomsMenu")
    item = menu.locator(".lm-Menu-item", has_text="Link a Slack Account…")
    expect(item).to_be_visible()
    item.click()

    card = alice.locator(".jp-CopilotRoom-linkChat")
    expect(card).to_be_visible(timeout=15_000)
    expect(card).to_be_focused()
    code_box = card.locator(".jp-CopilotRoom-linkCode")
    expect(code_box).to_have_text(re.compile(r"^[A-Z0-9]{8}$"), timeout=15_000)
    code = code_box.inner_text().strip()
    expect(card.locator(".jp-CopilotRoom-linkMessage")).to_have_text(f"link {code}")
    expect(card).to_contain_text(
        "Send it to the room's bot in Slack, in a direct message or a mention. "
        "The code works for 10 minutes."
    )
    # Large monospace text, selected whole with a click: the code is copied as it is.
    looks = code_box.evaluate(
        """el => { const s = getComputedStyle(el), body = getComputedStyle(el.parentElement);
                   return {mono: /mono|courier|menlo|consolas/i.test(s.fontFamily),
                           larger: parseFloat(s.fontSize) >= 1.4 * parseFloat(body.fontSize),
                           select: s.userSelect}; }"""
    )
    assert looks == {"mono": True, "larger": True, "select": "all"}, looks

    card_class = ".jp-CopilotRoom-linkChat"
    assert fits_at_every_look(alice, screenshot, "slack-link-code-", card_class) == []
    # At 250 px the whole card is in sight in the tray, its buttons too.
    set_sidebar_width(alice, 250)
    in_sight = card.evaluate(
        """card => { const tray = card.closest('.jp-CopilotRoom-trayBody').getBoundingClientRect();
                    const box = card.getBoundingClientRect();
                    return box.top >= tray.top - 1 && box.bottom <= tray.bottom + 1; }"""
    )
    assert in_sight, "the card with the code is cut by the tray at 250 px"
    code_box.click()
    assert alice.evaluate("() => String(window.getSelection()).trim()") == code

    # The person sends the message to the bot in a direct message: it only asks, and the card
    # asks her; once she allows it, Slack is her from now on, and the card says so.
    slack.run(fake.message_event("UALICE", "DALICE", f"link {code}", channel_type="im"))
    ask = card.get_by_role("group", name="Slack user UALICE asks to act as you.")
    expect(ask).to_be_visible(timeout=10_000)
    assert fits_at_every_look(alice, screenshot, "slack-link-ask-", card_class) == []
    set_sidebar_width(alice, 250)
    ask.get_by_role("button", name="Allow").click()
    expect(ask).to_have_count(0)
    linked = card.get_by_role("list", name="Your linked accounts")
    expect(linked).to_contain_text("Slack user UALICE acts as you.")
    said = ephemeral_to(fake, "UALICE", containing="act as")
    assert "you act as Alice in the rooms" in said["text"], said  # her name, not her username
    assert said["channel"] == "DALICE"

    card.get_by_role("button", name="Done").click()
    expect(card).to_have_count(0)

    # The bridge's socket goes: the header says so, and no more once the SDK is back.
    front = alice.locator("[data-front=slack]")
    expect(front).to_have_count(0)
    slack.run(fake.drop(stay_away=True))
    expect(front).to_have_text("Slack: disconnected", timeout=15_000)
    screenshot(alice.locator(".jp-CopilotRoom-header"), "slack-header-disconnected")
    assert layout_problems(alice, ".jp-CopilotRoom-header") == []  # still 250 px wide
    fake.come_back()
    slack.run(fake.connected(timeout=60), timeout=70)
    expect(front).to_have_count(0, timeout=30_000)
    screenshot(alice.locator(".jp-CopilotRoom-header"), "slack-header-connected")

    # A host links the room to another channel from the room's menu, then unlinks it.
    alice.locator(".jp-CopilotRoom-switcher").click()
    menu.locator(".lm-Menu-item", has_text="Change the Slack Channel…").click()
    dialog = alice.locator(".jp-Dialog")
    expect(dialog).to_contain_text("Link main to a Slack channel")
    expect(dialog).to_contain_text("Invite the bot there.")
    field = dialog.locator("input")
    expect(field).to_have_value(CHANNEL)
    field.fill("C0NEW")
    screenshot(dialog.locator(".jp-Dialog-content"), "slack-link-channel")
    dialog.get_by_role("button", name="Link").click()
    expect(alice.locator(".jp-Notification-Toast-success")).to_contain_text(
        "main's turns now go to the Slack channel C0NEW."
    )
    line = alice.locator(".jp-CopilotRoom-system", has_text="linked this room to the Slack")
    expect(line).to_contain_text("the Slack channel C0NEW: its turns are posted there.")
    # Another panel's (or REST's) change: this panel's menu follows it without asking again.
    assert lab.api("alice", "PUT", "channels/slack", {"channel": "C0OTHER"})[0] == 200
    expect(line.last).to_contain_text("C0OTHER")
    screenshot(alice.locator(".jp-CopilotRoom-transcript"), "slack-linked-lines")
    # Nobody invited the bot there: the header says so, still within 250 px.
    fake.outside.add("C0OTHER")
    assert lab.api("alice", "POST", "prompts", {"text": "anyone there?"})[0] == 202
    expect(front).to_have_text("Slack: not in the channel", timeout=15_000)
    assert layout_problems(alice, ".jp-CopilotRoom-header") == []
    screenshot(alice.locator(".jp-CopilotRoom-header"), "slack-header-not-in-channel")
    alice.locator(".jp-CopilotRoom-switcher").click()
    unlink = menu.locator(".lm-Menu-item", has_text="Unlink the Slack Channel (C0OTHER)")
    expect(unlink).to_be_visible()
    screenshot(menu, "slack-channel-menu")
    unlink.click()
    alice.locator(".jp-CopilotRoom-switcher").click()
    expect(menu.locator(".lm-Menu-item", has_text="Link a Slack Channel…")).to_be_visible()
    expect(menu.locator(".lm-Menu-item", has_text="Unlink the Slack Channel")).to_have_count(0)
    alice.keyboard.press("Escape")
    expect(front).to_have_count(0)  # unlinked: the channel's trouble is no longer the room's
