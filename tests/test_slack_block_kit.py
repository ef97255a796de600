"""A card's Block Kit (`fronts/slack/block_kit.py`) within Slack's published limits, as slack_sdk's
own models check them, whatever the card holds; and the fake Slack refusing, as Slack does, what
is not (`invalid_blocks`, `msg_too_long`), through Slack's own Web API client."""

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    SectionBlock,
    StaticSelectElement,
)
from slack_sdk.models.blocks.basic_components import Option
from slack_sdk.web.async_client import AsyncWebClient

from jupyter_copilot_room.fronts.chat.chat_service import CardView
from jupyter_copilot_room.fronts.slack import block_kit
from jupyter_copilot_room.fronts.slack.block_kit import card_blocks, clicked, fallback_text

from .harness.fake_slack import FakeSlack
from .harness.helpers import served

APPROVE = (("Approve", "approve"), ("Reject", "reject"))
CARD = "0f" * 16  # a card's id, as the room makes them


def question(choices, summary="Which one, <!channel>?"):
    indexed = tuple((label, str(n)) for n, label in enumerate(choices))
    return CardView(CARD, "bob's turn asks <@U123>", summary, False, indexed)


def valid(blocks):
    """`blocks` as slack_sdk's models read them, each checked (`to_dict` checks what it holds)."""
    for given in blocks:
        parsed = Block.parse(given)
        assert parsed is not None
        parsed.validate_json()
        assert parsed.to_dict() == given
    return blocks


def elements(blocks):
    (actions,) = [b for b in blocks if b["type"] == "actions"]
    return actions["elements"]


def test_the_limits_are_slacks_as_its_sdk_knows_them():
    assert SectionBlock.text_max_length == block_kit.SECTION_TEXT
    assert ActionsBlock.elements_max_length == block_kit.ACTIONS_ELEMENTS
    assert ButtonElement.text_max_length == block_kit.BUTTON_TEXT
    assert ButtonElement.value_max_length == block_kit.BUTTON_VALUE
    assert StaticSelectElement.options_max_length == block_kit.SELECT_OPTIONS
    assert StaticSelectElement.option_groups_max_length == block_kit.SELECT_GROUPS
    assert Option.label_max_length == block_kit.OPTION_TEXT
    assert Option.value_max_length == block_kit.OPTION_VALUE
    assert block_kit.MAX_BUTTONS <= block_kit.ACTIONS_ELEMENTS


def test_an_approval_has_two_buttons_and_its_command_in_one_code_block():
    card = CardView(CARD, "The agent asks: shell", "echo '```' <!here>", True, APPROVE)
    blocks = valid(card_blocks(card))
    assert [e["action_id"] for e in elements(blocks)] == ["approve", "reject"]
    assert blocks[1]["text"]["text"] == "```\necho '`\u200b`\u200b`' &lt;!here&gt;\n```"
    assert [clicked(e) for e in elements(blocks)] == [(CARD, "approve"), (CARD, "reject")]


@pytest.mark.parametrize("count", [1, 5])
def test_a_few_choices_are_buttons_each_its_own(count):
    blocks = valid(card_blocks(question(["the same"] * count)))
    assert [e["action_id"] for e in elements(blocks)] == [str(n) for n in range(count)]
    assert [clicked(e) for e in elements(blocks)] == [(CARD, str(n)) for n in range(count)]


@pytest.mark.parametrize("count", [6, 32, 100])
def test_more_choices_are_a_menu(count):
    blocks = valid(card_blocks(question([f"option {n}" for n in range(count)])))
    (menu,) = elements(blocks)
    assert menu["type"] == "static_select" and len(menu["options"]) == count
    chosen = [clicked({"selected_option": o}) for o in menu["options"]]
    assert chosen == [(CARD, str(n)) for n in range(count)]


def test_past_a_hundred_choices_the_menu_groups_them():
    blocks = valid(card_blocks(question([f"option {n}" for n in range(250)])))
    (menu,) = elements(blocks)
    groups = menu["option_groups"]
    assert [g["label"]["text"] for g in groups] == ["1-100", "101-200", "201-250"]
    options = [o for g in groups for o in g["options"]]
    assert [clicked({"selected_option": o}) for o in options] == [
        (CARD, str(n)) for n in range(250)
    ]


@pytest.mark.parametrize("count", [2, 32])
def test_a_long_or_hostile_label_is_cut_and_escaped_and_its_value_still_names_it(count):
    choices = ["<!channel> " + "x" * 300] * count
    blocks = valid(card_blocks(question(choices)))
    shown = elements(blocks)[0]
    label = shown["text"]["text"] if count == 2 else shown["options"][0]["text"]["text"]
    assert label.startswith("&lt;!channel&gt; xx") and label.endswith("…") and len(label) <= 75


def test_long_texts_fit_their_section_and_every_text_is_escaped():
    card = question(["a"], summary="<@U1> " * 1000)
    blocks = valid(card_blocks(card))
    assert all(len(b["text"]["text"]) <= block_kit.SECTION_TEXT for b in blocks if "text" in b)
    assert blocks[0]["text"]["text"] == "*bob's turn asks &lt;@U123&gt;*"
    assert fallback_text(card) == "bob's turn asks &lt;@U123&gt;"
    settled = CardView(CARD, "x", "", False, (), settled="Approved by <!here> **bob**")
    assert valid(card_blocks(settled))[0]["text"]["text"] == "*Approved by &lt;!here&gt; *bob**"
    assert fallback_text(settled) == "Approved by &lt;!here&gt; *bob*"


def test_a_click_not_ours_names_nothing():
    assert clicked({"value": "not json"}) is None
    assert clicked({"selected_option": {"value": '{"card": "x"}'}}) is None
    assert clicked({}) is None


# -- the fake refuses what Slack refuses


@pytest.fixture
def fake(jp_asyncio_loop):
    yield from served(FakeSlack(), jp_asyncio_loop)


def buttons(count, action_id=None):
    made = [
        {
            "type": "button",
            "action_id": action_id or f"b{n}",
            "text": {"type": "plain_text", "text": "Go"},
            "value": str(n),
        }
        for n in range(count)
    ]
    return [{"type": "actions", "elements": made}]


@pytest.mark.parametrize(
    ("text", "blocks", "error"),
    [
        ("ok", buttons(26), "invalid_blocks"),  # at most 25 elements
        ("ok", buttons(2, action_id="same"), "invalid_blocks"),  # action_ids are unique
        (
            "ok",
            [{"type": "section", "text": {"type": "mrkdwn", "text": "x" * 3001}}],
            "invalid_blocks",
        ),
        (
            "ok",
            [{"type": "section", "text": {"type": "mrkdwn", "text": "a"}, "extra": 1}],
            "invalid_blocks",
        ),
        ("ok", [{"type": "no such block"}], "invalid_blocks"),
        ("x" * 40_001, None, "msg_too_long"),
    ],
    ids=[
        "26 buttons",
        "one action_id twice",
        "a long section",
        "a field Slack lacks",
        "no block",
        "long text",
    ],
)
async def test_the_fake_refuses_what_slack_refuses(fake, text, blocks, error):
    web = AsyncWebClient(token=fake.bot_token, base_url=fake.api_url)
    with pytest.raises(SlackApiError) as refused:
        await web.chat_postMessage(channel="C1", text=text, blocks=blocks)
    assert refused.value.response["error"] == error
    assert fake.messages == [] and [r[1] for r in fake.rejected] == [error]
    posted = await web.chat_postMessage(channel="C1", text="x" * 40_000, blocks=buttons(25))
    with pytest.raises(SlackApiError) as refused:
        await web.chat_update(channel="C1", ts=posted["ts"], text=text, blocks=blocks)
    assert refused.value.response["error"] == error
    assert fake.message(posted["ts"])["versions"] == [("x" * 40_000, buttons(25))]
