"""A card as the room posts it to Teams (`fronts/teams/adaptive_cards.py`), checked by Microsoft's
own renderer (npm `adaptivecards`, default HostConfig, markdown-it as its Markdown) and by the
Adaptive Cards 1.5 schema the fake Teams holds every card to: valid, within the renderer's 5
actions, and no link, mention or formatting from anyone's text."""

import json

import pytest
from tornado.httpclient import AsyncHTTPClient

from jupyter_copilot_room.fronts.chat.chat_service import CardView
from jupyter_copilot_room.fronts.teams import adaptive_cards, limits

from .harness.fake_teams import FakeTeams
from .harness.helpers import served
from .harness.teams_cards import refusal, rendered

HOSTILE = "[Approve safely](https://evil) <a href=https://evil>x</a> <at>Everyone</at> **bold**"
APPROVE = (("Approve", "approve"), ("Reject", "reject"))
FORMATTING = {"a", "at", "strong", "em", "b", "i", "code", "pre", "h1", "ul", "ol", "li", "img"}


def card(title="The agent asks", summary="", code=False, choices=APPROVE, settled=None):
    return adaptive_cards.card_attachment(
        CardView("c1", title, summary, code, choices, settled=settled)
    )["content"]


def question(choices):
    return card(
        "Bob's turn asks", "Which?", choices=tuple((c, str(i)) for i, c in enumerate(choices))
    )


def test_hostile_text_in_a_card_renders_with_no_link_mention_or_formatting():
    cards = [
        card(HOSTILE, f"echo '{HOSTILE}'\n  {HOSTILE}", code=True),
        card(settled=f"Approved by {HOSTILE}"),
        question([HOSTILE, f"**{HOSTILE}**"] * 4),
    ]
    for shown in rendered(cards)["cards"]:
        assert shown["errors"] == [] and shown["links"] == []
        assert not FORMATTING & set(shown["tags"]), shown["tags"]
        assert HOSTILE in shown["text"]


def test_32_choices_are_one_drop_down_and_one_button_by_index():
    choices = [f"choice {i}" for i in range(32)]
    content = question(choices)
    (answer,) = content["actions"]
    assert answer["type"] == "Action.Submit" and answer["data"] == {"card": "c1"}
    (drop_down,) = [e for e in content["body"] if e["type"] == "Input.ChoiceSet"]
    assert drop_down["style"] == "compact" and drop_down["id"] == adaptive_cards.ANSWER
    assert drop_down["choices"] == [{"title": c, "value": str(i)} for i, c in enumerate(choices)]
    for i in range(32):  # Teams merges the inputs into the button's data, by id
        picked = answer["data"] | {drop_down["id"]: drop_down["choices"][i]["value"]}
        assert adaptive_cards.clicked(picked) == ("c1", str(i))
    assert adaptive_cards.clicked(answer["data"]) == ("c1", "")  # nothing chosen
    (shown,) = rendered([content])["cards"]
    assert shown["errors"] == [] and "select" in shown["tags"]
    assert (
        refusal(
            {
                "attachments": [
                    adaptive_cards.card_attachment(
                        CardView(
                            "c1", "t", "", False, tuple((c, str(i)) for i, c in enumerate(choices))
                        )
                    )
                ]
            }
        )
        is None
    )


@pytest.mark.parametrize(
    "choices",
    [
        ["same", "same", "same"],
        [f"{'x' * 299}{i}" for i in range(3)],
        [f"{'y' * 299}{i}" for i in range(6)],
        ["", " ", "\x00"],
        [f"choice {i}" for i in range(limits.MAX_ACTIONS)],
    ],
    ids=["equal", "300 characters", "300 characters, 6", "empty", "as many as buttons"],
)
def test_equal_long_and_empty_choices_make_valid_cards_within_the_renderers_actions(choices):
    content = question(choices)
    (shown,) = rendered([content])["cards"]
    assert shown["errors"] == []
    assert len(content.get("actions", [])) <= limits.MAX_ACTIONS
    assert (
        refusal({"attachments": [{"contentType": adaptive_cards.CONTENT_TYPE, "content": content}]})
        is None
    )
    values = [a["data"].get(adaptive_cards.ANSWER) for a in content["actions"]]
    if len(choices) > limits.MAX_ACTIONS:
        (drop_down,) = [e for e in content["body"] if e["type"] == "Input.ChoiceSet"]
        values = [c["value"] for c in drop_down["choices"]]
    assert values == [str(i) for i in range(len(choices))]


def test_the_renderer_and_the_schema_refuse_what_teams_refuses():
    six = card(choices=tuple((str(i), str(i)) for i in range(6)))
    six["actions"] = [*six.get("actions", []), *[{"type": "Action.Submit", "title": "more"}] * 6]
    misspelt = {
        "type": "AdaptiveCard",
        "version": "1.5",
        "body": [{"type": "TextBlok", "text": "x"}],
    }
    shown_six, shown_misspelt = rendered([six, misspelt])["cards"]
    assert any("actions" in e.lower() for e in shown_six["errors"])
    assert shown_misspelt["errors"]
    attachment = {"contentType": adaptive_cards.CONTENT_TYPE}
    assert "at most 5 actions" in refusal({"attachments": [attachment | {"content": six}]})
    assert "body/0" in refusal({"attachments": [attachment | {"content": misspelt}]})


@pytest.fixture
def teams(jp_asyncio_loop):
    yield from served(FakeTeams(), jp_asyncio_loop)


async def test_the_fake_connector_answers_a_bad_card_400_and_a_big_message_413(teams):
    teams.access_tokens.add("token")
    url = f"{teams.service_url}v3/conversations/19:room@thread.tacv2/activities"
    six = card(choices=tuple((str(i), str(i)) for i in range(5)))
    six["actions"].append({"type": "Action.Submit", "title": "sixth"})
    attachment = {"contentType": adaptive_cards.CONTENT_TYPE, "content": six}
    big = {"type": "message", "text": "x" * (limits.MESSAGE_BYTES // 2)}
    good = {"type": "message", "attachments": [attachment | {"content": card()}]}
    answers = []
    for body in [{"type": "message", "attachments": [attachment]}, big, good]:
        answer = await AsyncHTTPClient().fetch(
            url,
            method="POST",
            body=json.dumps(body),
            headers={"Authorization": "Bearer token", "Content-Type": "application/json"},
            raise_error=False,
        )
        answers.append((answer.code, json.loads(answer.body).get("error", {}).get("code")))
    assert answers == [(400, "BadArgument"), (413, "MessageSizeTooBig"), (201, None)]
    assert [r["status"] for r in teams.refused] == [400, 413]


def test_a_question_too_big_for_one_message_keeps_to_it_and_says_what_is_left_out():
    content = question([f"{i} {'z' * 1000}" for i in range(2000)])
    assert limits.size(content) <= limits.CARD_BYTES
    (drop_down,) = [e for e in content["body"] if e["type"] == "Input.ChoiceSet"]
    shown = drop_down["choices"]
    assert 0 < len(shown) < 2000 and all(len(c["title"]) <= limits.LABELS[-1] for c in shown)
    assert [c["value"] for c in shown] == [str(i) for i in range(len(shown))]
    assert f"{2000 - len(shown)} more choices" in json.dumps(content["body"])
    (rendered_card,) = rendered([content])["cards"]
    assert rendered_card["errors"] == []
