"""What crosses into Slack is the room's own words within Slack's limits, end to end:
a real server, the real Copilot runtime with the scripted model, and the fake Slack, which
refuses blocks slack_sdk's models reject (the fixture fails a test that sent any) and shows the
Slack markup that would be live in what it was sent (`markup`). Hostile text from the agent, a
shell command and people pings no one, disguises no link and ends no code block early; a
question's choices post whatever their number, sameness or length, and each answers as itself."""

import json

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.fronts.slack.mrkdwn import ZERO_WIDTH_SPACE, unescaped

from .harness import people, slack_fixtures
from .harness.helpers import eventually
from .harness.slack_fixtures import CHANNEL, button, card_message, prompt_message, ready

slack, room_config = slack_fixtures.slack, slack_fixtures.room_config  # fixtures, used below

PINGS = "<!channel> <!here> <@U123> <#C999> <https://evil|Approve safely>"
COMMAND = "echo <!channel> <@U123> <https://evil|Approve safely> && echo '```' ; rm -rf x"
REPLY = f"**Demo mode.** {PINGS} See [the docs](https://example.com/docs) and `a ``` b`."


def hostile(request):
    """The agent asks to run `COMMAND`, then answers with pings, Markdown and a link."""
    if request.tool_results:
        return Reply(REPLY)
    return Reply(tool_calls=(ToolCall("bash", {"command": COMMAND, "description": PINGS}),))


def code_of(text: str) -> str:
    """The code of a section that is one code block, as it shows; fails if it is not one."""
    assert text.startswith("```\n") and text.endswith("\n```"), text
    inner = text[4:-4]
    assert "```" not in inner and "``" not in inner, "a code block ended early"
    return unescaped(inner).replace(ZERO_WIDTH_SPACE, "")


def records(room, kind):
    lines = room.transcript.path.read_text().splitlines()
    return [r["payload"] for r in map(json.loads, lines) if r["kind"] == kind]


async def test_hostile_text_from_the_agent_a_command_and_people_reaches_slack_as_text(
    api, room, slack, model
):
    model.script = hostile
    await ready(room, slack)

    await slack.mention("UBOB", CHANNEL, f"run it {PINGS} **now**")  # as Slack sends mentions
    await eventually(lambda: any(m.get("blocks") for m in slack.messages), timeout=30)
    thread = prompt_message(slack, "run it")["ts"]
    card = card_message(slack, thread)
    assert COMMAND in code_of(card["blocks"][1]["text"]["text"])
    await slack.click("UERIN", card["ts"], "approve", button(card, "approve")["value"], CHANNEL)
    await slack.click("UBOB", card["ts"], "approve", button(card, "approve")["value"], CHANNEL)
    await eventually(lambda: any(m["text"] == "Completed." for m in slack.thread(thread)), 30)
    model.script = lambda request: Reply(REPLY)
    said = (await api(people.MEMBER, "POST", "prompts", body={"text": f"and {PINGS}"})).code
    assert said == 202
    await eventually(lambda: len([m for m in slack.messages if m["text"] == "Completed."]) == 2)

    assert slack.markup() == [], "no ping, no mention, no disguised link"
    asked = prompt_message(slack, "run it")["text"]
    assert asked.startswith("bob asked: run it &lt;!channel&gt;") and asked.endswith("*now*")
    reply = next(m for m in slack.thread(thread) if "Demo mode" in m["text"])["text"]
    assert reply.startswith("*Demo mode.* &lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt;")
    assert "the docs (https://example.com/docs)" in reply
    assert "```" not in reply and "**" not in reply
    assert "approved by bob" in slack.message(card["ts"])["text"].lower()
    assert [e["text"] for e in slack.ephemerals] == ["Waiting on bob or a host."]


CHOICES = {
    "32 choices": [f"option {n} <!here>" for n in range(32)],
    "two equal choices": ["the same", "the same"],
    "a 300-character choice": ["short", "long " * 59 + "end.."],
}


@pytest.mark.parametrize("choices", CHOICES.values(), ids=CHOICES.keys())
@pytest.mark.parametrize("picked", [0, -1], ids=["the first", "the last"])
async def test_a_question_posts_its_choices_and_a_click_answers_with_exactly_that_one(
    room, slack, model, choices, picked
):
    def asks(request):
        if request.tool_results:
            return Reply("Thanks.")
        question = {"question": "Which one, <!channel>?", "choices": choices}
        return Reply(tool_calls=(ToolCall("ask_user", question),))

    model.script = asks
    await ready(room, slack)
    await slack.mention("UBOB", CHANNEL, "ask me")
    await eventually(lambda: any(m.get("blocks") for m in slack.messages), timeout=30)
    card = card_message(slack, prompt_message(slack, "ask me")["ts"])
    (actions,) = [b for b in card["blocks"] if b["type"] == "actions"]

    index = range(len(choices))[picked]
    if len(choices) > 5:  # a menu, its options in order
        (menu,) = actions["elements"]
        assert menu["type"] == "static_select" and len(menu["options"]) == len(choices)
        action_id, value = "choice", menu["options"][index]["value"]
    else:
        assert [e["type"] for e in actions["elements"]] == ["button"] * len(choices)
        action_id = str(index)
        value = button(card, action_id)["value"]
    await slack.click("UBOB", card["ts"], action_id, value, CHANNEL)

    await eventually(lambda: records(room, "request.settled"), timeout=30)
    (settled,) = records(room, "request.settled")
    assert settled["outcome"] == "answered" and settled["answer"] == choices[index]
    assert slack.markup() == []
