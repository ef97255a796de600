"""The room in Microsoft Teams, end to end: a real server, the real Copilot runtime with the
scripted model, and a local fake of Teams (`harness/fake_teams.py`: the Bot Connector REST API,
Bot Framework's signing keys, and Entra ID's token endpoint over TLS). The room posts through
the Microsoft 365 Agents SDK's connector client with a token MSAL got; Teams' calls reach the
room's messaging endpoint signed as Bot Framework signs them. The same scenarios as Slack's
(`test_slack_bridge.py`), where Teams has them: Teams has no socket to drop, so the outage is the
connector's."""

import json

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.fronts.chat import channel_mirror
from jupyter_copilot_room.fronts.teams import limits

from .harness import people
from .harness.fake_teams import FakeTeams
from .harness.helpers import READY, ask_to_run, ask_which, eventually, served
from .harness.teams_cards import rendered

CHANNEL = "19:room@thread.tacv2"
TEAMS_PEOPLE = {"aad-bob": "bob", "aad-erin": "erin", "aad-carol": "carol"}


@pytest.fixture
def teams(jp_asyncio_loop):
    yield from served(FakeTeams(), jp_asyncio_loop)


@pytest.fixture
def room_config(copilot_config, teams, monkeypatch):
    monkeypatch.setenv("TEAMS_APP_SECRET", teams.secret)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", teams.ca_file)  # MSAL trusts the fake's login
    settings = {
        "app_id": teams.app_id,
        "tenant_id": teams.tenant,
        "rooms": {"main": CHANNEL},
        "people": TEAMS_PEOPLE,
        "service_url": teams.service_url,
        "login_url": teams.login_url,
        "openid_url": teams.openid_url,
    }
    return {**copilot_config, "members": [people.MEMBER, "erin"], "teams": settings}


@pytest.fixture
def endpoint(http_server_client, jp_http_port, jp_base_url):
    """The room's messaging endpoint, as Teams is told it (the server listens once a test
    holds its client)."""
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}copilot-room/teams/messages"


async def ready(room, teams):
    await room.ensure_started()
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=READY)
    await eventually(lambda: teams.tokens_issued >= 1, timeout=15)


def posts_in(teams, channel):
    """The messages the bot started in `channel` (a prompt's post each)."""
    return [s for s in teams.sent if s["verb"] == "send" and s["conversation"] == channel]


def posts(teams):
    return posts_in(teams, CHANNEL)


def prompt_post(teams, text):
    return next(teams.message(s["made"]) for s in posts(teams) if text in s["body"]["text"])


def in_thread(teams, root):
    return teams.thread(CHANNEL, root)


def texts(messages):
    return [m.get("text") or "" for m in messages]


def card_of(teams, root):
    return next(m for m in in_thread(teams, root) if m.get("attachments"))


def card_data(card, answer):
    """What Teams sends when `answer` is picked: a button's data, or the one button's data with
    the drop-down's value merged in by the input's id (a question of many choices)."""
    content = card["attachments"][0]["content"]
    drop_down = [e for e in content["body"] if e["type"] == "Input.ChoiceSet"]
    if drop_down:
        (action,) = content["actions"]
        return action["data"] | {drop_down[0]["id"]: answer}
    return next(a["data"] for a in content["actions"] if a["data"]["answer"] == answer)


async def asked(teams, endpoint, user, text):
    """`user` mentions the bot with `text`: the id of the room's post of it (its thread)."""
    await teams.mention(endpoint, user, CHANNEL, text)
    await eventually(lambda: any(text in s["body"]["text"] for s in posts(teams)), timeout=30)
    return prompt_post(teams, text)["id"]


async def card_in(teams, root):
    """The card the turn of `root` posted in its thread, once it is there."""
    await eventually(lambda: any(m.get("attachments") for m in in_thread(teams, root)), 30)
    return card_of(teams, root)


def said_to(teams, user):
    """What the bot told `user` alone (their one-to-one chat), joined."""
    return "\n".join(texts(teams.personal(f"29:{user}")))


def prompts(room):
    return [e for e in room.document.transcript.to_py() if e["kind"] == "prompt"]


async def test_a_mapped_persons_mention_is_their_prompt_and_the_reply_reaches_the_thread(
    room, teams, model, endpoint
):
    model.script = lambda request: Reply("Hello from the room, in Teams.")
    await ready(room, teams)

    await teams.mention(endpoint, "bob", CHANNEL, "say hello")

    await eventually(lambda: any("say hello" in s["body"]["text"] for s in posts(teams)), 30)
    asked = prompt_post(teams, "say hello")
    assert "Bob" in asked["text"] or "bob" in asked["text"]
    await eventually(lambda: "Completed." in texts(in_thread(teams, asked["id"])), timeout=30)
    assert any("Hello from the room, in Teams." in t for t in texts(in_thread(teams, asked["id"])))
    (prompt,) = prompts(room)
    assert prompt["author"] == "bob"
    record = next(
        line for line in room.transcript.path.read_text().splitlines() if "prompt.submitted" in line
    )
    assert '"source":"teams"' in record


async def test_a_card_is_answered_in_teams_by_its_author_and_refused_to_another_member(
    room, teams, model, endpoint
):
    model.script = ask_to_run
    await ready(room, teams)
    root = await asked(teams, endpoint, "bob", "run the tests")
    card = await card_in(teams, root)
    content = card["attachments"][0]["content"]
    assert card["attachments"][0]["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert "echo 3 passed" in json.dumps(content["body"])
    assert [a["title"] for a in content["actions"]] == ["Approve", "Reject"]

    await teams.submit(endpoint, "erin", CHANNEL, card["id"], root, card_data(card, "approve"))
    await eventually(lambda: teams.personal("29:erin"), timeout=10)
    assert texts(teams.personal("29:erin")) == ["Waiting on bob or a host."]
    pending = next(e for e in room.document.transcript.to_py() if e["kind"] == "permission")
    assert pending["state"] == "pending"

    await teams.submit(endpoint, "bob", CHANNEL, card["id"], root, card_data(card, "approve"))
    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=30)
    settled = teams.message(card["id"])
    assert "approved by bob" in json.dumps(settled["attachments"][0]["content"]).lower()
    assert "actions" not in settled["attachments"][0]["content"]
    assert any("It printed: 3 passed" in t for t in texts(in_thread(teams, root)))


async def test_unmapped_viewer_and_linked_people(api, room, teams, model, endpoint):
    model.script = lambda request: Reply("Linked and answered.")
    await ready(room, teams)

    await teams.mention(endpoint, "stranger", CHANNEL, "delete everything")
    await teams.mention(endpoint, "carol", CHANNEL, "delete everything")
    await eventually(lambda: teams.personal("29:stranger") and teams.personal("29:carol"))
    assert "Link a Teams Account" in teams.personal("29:stranger")[0]["text"]
    assert texts(teams.personal("29:carol")) == ["Viewers can watch the room but not act in it."]
    assert prompts(room) == [] and room.turns.queue.next_up() is None

    code = (await api("dave", "POST", "link-code")).json
    await teams.personal_message(endpoint, "dave", f"link {code['code']}")
    await eventually(lambda: "allows it in JupyterLab" in said_to(teams, "dave"))  # it asks
    (ask,) = (await api("dave", "GET", "chat-links")).json["asks"]
    assert (ask["service"], ask["name"]) == ("teams", "Dave"), ask  # as Teams names them
    answered = await api(
        "dave", "POST", "chat-links", "asks", ask["id"], body={"decision": "allow"}
    )
    assert answered.code == 200, answered
    await eventually(lambda: "act as Dave" in said_to(teams, "dave"))
    await teams.personal_message(endpoint, "other", f"link {code['code']}")
    await eventually(
        lambda: any("unknown or expired" in t for t in texts(teams.personal("29:other")))
    )
    await teams.mention(endpoint, "dave", CHANNEL, "say hi")  # dave waits at the door: refused
    await eventually(
        lambda: any("waiting for a host" in t for t in texts(teams.personal("29:dave")))
    )
    assert prompts(room) == []


async def test_only_teams_in_the_bots_tenant_is_heard_and_each_activity_once(
    room, teams, model, endpoint
):
    model.script = lambda request: Reply("Once.")
    await ready(room, teams)
    said = await teams.mention(endpoint, "bob", CHANNEL, "say once")
    again = {**said}
    assert await teams.deliver(endpoint, again) in (200, 201, 202)  # Teams retried it

    await eventually(lambda: any("say once" in s["body"]["text"] for s in posts(teams)), 30)
    root = prompt_post(teams, "say once")["id"]
    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=30)
    await teams.mention(endpoint, "bob", CHANNEL, "say later")  # after the retry: a marker
    await eventually(lambda: any("say later" in s["body"]["text"] for s in posts(teams)), 30)
    assert [p["body"] for p in prompts(room)] == ["say once", "say later"]
    assert len([s for s in posts(teams) if "say once" in s["body"]["text"]]) == 1

    other = {**said, "id": "9000001", "text": "<at>Copilot room</at> say forged"}
    refused = [
        await teams.deliver(endpoint, other, token=""),
        await teams.deliver(endpoint, other, token=teams.token_for(forged=True)),
        await teams.deliver(endpoint, other, token=teams.token_for(expired=True)),
        await teams.deliver(endpoint, other, token=teams.token_for(audience="another-bot")),
        await teams.deliver(endpoint, other, token=teams.token_for("https://evil.example/")),
    ]
    assert refused == [401] * 5
    for channel_id, tenant in [("webchat", teams.tenant), ("msteams", "another-tenant")]:
        elsewhere = {**other, "channelId": channel_id}
        elsewhere["conversation"] = {**other["conversation"], "tenantId": tenant}
        assert await teams.deliver(endpoint, elsewhere) == 401
    too_long = b" " * (2**20 + 1)  # cut off before it is read: the server holds no more
    for body in [b"not json", b"[" * 100_000 + b"]" * 100_000, too_long]:
        assert await teams.deliver(endpoint, other, body=body) == 400
    assert len(prompts(room)) == 2  # each refusal was answered before anything was queued


async def test_a_connector_outage_mid_turn_and_a_429_lose_nothing(room, teams, model, endpoint):
    model.script = ask_to_run
    await ready(room, teams)
    root = await asked(teams, endpoint, "bob", "run the tests")
    card = await card_in(teams, root)

    teams.fail_next(times=2, status=502)  # the card's edit and what follows wait it out
    await teams.submit(endpoint, "bob", CHANNEL, card["id"], root, card_data(card, "approve"))
    await eventually(lambda: room.document.meta.get("fronts") == {"teams": "disconnected"}, 10)
    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=30)
    await eventually(lambda: not room.document.meta.get("fronts"), timeout=10)
    assert len([m for m in in_thread(teams, root) if m.get("attachments")]) == 1  # the card once
    assert texts(in_thread(teams, root)).count("Completed.") == 1

    model.script = lambda request: Reply("After the limit.")
    teams.rate_limit(1, times=1)
    await teams.mention(endpoint, "bob", CHANNEL, "say later")
    await eventually(lambda: any("say later" in s["body"]["text"] for s in posts(teams)), 30)
    later = prompt_post(teams, "say later")["id"]
    await eventually(lambda: "Completed." in texts(in_thread(teams, later)), timeout=30)
    assert teams.limited == 1
    assert len([s for s in posts(teams) if "say later" in s["body"]["text"]]) == 1


async def test_a_team_the_bot_is_not_in_holds_the_rooms_lines_until_it_is_back(
    api, room, teams, model, monkeypatch
):
    """The connector's 403 (the app was removed from the team): the header says so, and the
    room's lines follow, once, when the bot may post again."""
    monkeypatch.setattr(channel_mirror, "READ_AGAIN", 1.0)
    model.script = lambda request: Reply("Heard you.")
    await ready(room, teams)
    teams.fail_next(times=2, status=403)
    assert (await api(people.MEMBER, "POST", "prompts", body={"text": "anyone?"})).code == 202
    await eventually(lambda: room.document.meta.get("fronts") == {"teams": "not in the channel"})
    await eventually(lambda: any("anyone?" in s["body"]["text"] for s in posts(teams)), 15)
    root = prompt_post(teams, "anyone?")["id"]
    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=15)
    await eventually(lambda: not room.document.meta.get("fronts"), timeout=5)
    assert len([s for s in posts(teams) if "anyone?" in s["body"]["text"]]) == 1


async def test_a_wrong_secret_is_one_line_and_the_header_says_so(api, room, teams, model, caplog):
    teams.secret = "rotated"  # Entra ID no longer takes the room's secret
    await room.ensure_started()
    await eventually(lambda: room.document.meta.get("fronts") == {"teams": "bad token"}, 15)
    lines = [r for r in caplog.records if "Teams:" in r.getMessage() and r.levelname == "ERROR"]
    assert len(lines) == 1 and "invalid_client" in lines[0].getMessage()
    assert "teams-secret" not in caplog.text
    assert not any(r.exc_info for r in caplog.records if r.name.startswith("jupyter_copilot"))
    model.script = lambda request: Reply("The room works without Teams.")
    assert (await api(people.MEMBER, "POST", "prompts", body={"text": "hello"})).code == 202
    await eventually(
        lambda: any(e["kind"] == "assistant" for e in room.document.transcript.to_py()), timeout=30
    )


async def test_a_question_is_answered_by_a_reply_in_the_turns_thread(room, teams, model, endpoint):
    model.script = ask_which
    await ready(room, teams)
    root = await asked(teams, endpoint, "bob", "pick a colour")
    card = await card_in(teams, root)
    actions = card["attachments"][0]["content"]["actions"]
    assert [a["title"] for a in actions] == ["red", "blue"]

    await teams.reply(endpoint, "erin", CHANNEL, root, "blue")  # not hers to answer
    await eventually(lambda: "Waiting on bob" in said_to(teams, "erin"))
    await teams.reply(endpoint, "bob", CHANNEL, root, "green, actually")

    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=30)
    assert any("green, actually" in t for t in texts(in_thread(teams, root)))
    settled = json.dumps(teams.message(card["id"])["attachments"][0]["content"])
    assert "answered by bob" in settled.lower()


async def test_a_host_links_the_room_to_a_channel_as_teams_links_it(
    api, room, teams, model, endpoint
):
    model.script = lambda request: Reply("Here now.")
    await ready(room, teams)
    other = "19:other@thread.tacv2"
    as_copied = "19%3aother%40thread.tacv2;messageid=1700000000000"  # "Get link to channel"
    linked = await api(people.HOST, "PUT", "channels/teams", body={"channel": as_copied})
    assert linked.json == {"service": "teams", "channel": other}
    wrong = await api(people.HOST, "PUT", "channels/teams", body={"channel": "C0123ABCD"})
    assert (wrong.code, wrong.json["error"]) == (400, "invalid_channel")

    await teams.mention(endpoint, "bob", other, "say here")
    await eventually(lambda: any("say here" in s["body"]["text"] for s in posts_in(teams, other)))
    assert not any("say here" in s["body"]["text"] for s in posts(teams))  # not in CHANNEL


HOSTILE = "[Approve safely](https://evil) <a href=https://evil>x</a> <at>Everyone</at> **bold**"
FORMATTING = {"a", "at", "strong", "em", "b", "i", "code", "pre", "img", "ul", "ol", "li", "h1"}


async def test_hostile_text_shows_as_written_in_every_message_and_card_the_room_posts(
    room, teams, model, endpoint
):
    """The agent's reply, its command on a card, the person's prompt, the settled line and
    every edit on the way: Microsoft's renderer (and its Markdown for messages) shows each with
    no link, no mention and no formatting, and the text as written."""

    def script(request):
        if request.tool_results:
            return Reply(f"Ran it. {HOSTILE}")
        command = ToolCall("bash", {"command": f"echo '{HOSTILE}'", "description": HOSTILE})
        return Reply(HOSTILE, tool_calls=(command,))

    model.script = script
    await ready(room, teams)
    await teams.mention(endpoint, "bob", CHANNEL, f"please run {HOSTILE}")
    await eventually(lambda: any("please run" in s["body"]["text"] for s in posts(teams)), 30)
    root = prompt_post(teams, "please run")["id"]
    card = await card_in(teams, root)
    await teams.submit(endpoint, "bob", CHANNEL, card["id"], root, card_data(card, "approve"))
    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=30)

    bodies = [s["body"] for s in teams.sent if s["verb"] != "create"]
    cards = [a["content"] for b in bodies for a in b.get("attachments") or []]
    shown = rendered(cards, [b.get("text") or "" for b in bodies])
    for seen in shown["cards"] + shown["markdown"]:
        assert seen.get("errors", []) == [] and seen["links"] == []
        assert not FORMATTING & set(seen["tags"]), seen["tags"]
    said = [seen["text"] for seen in shown["markdown"]]
    assert any(f"please run {HOSTILE}" in t for t in said)  # the person's prompt
    assert any(f"Ran it. {HOSTILE}" in t for t in said)  # the agent's reply
    assert any(f"echo '{HOSTILE}'" in seen["text"] for seen in shown["cards"])  # the command
    assert any(b.get("textFormat") == "markdown" for b in bodies if b.get("attachments"))
    assert teams.refused == []


@pytest.mark.parametrize(
    ("choices", "pick"),
    [
        ([f"choice {i}" for i in range(32)], 31),
        (["same", "same", "other"], 1),
        ([f"{'x' * 297}{i:03d}" for i in range(7)], 4),
    ],
    ids=["32 choices", "equal choices", "300-character choices"],
)
async def test_a_question_of_many_long_or_equal_choices_is_answered_with_exactly_the_pick(
    room, teams, model, endpoint, choices, pick
):
    def script(request):
        if request.tool_results:
            return Reply("You chose: " + " | ".join(request.tool_results))
        return Reply(tool_calls=(ToolCall("ask_user", {"question": "Which?", "choices": choices}),))

    model.script = script
    await ready(room, teams)
    root = await asked(teams, endpoint, "bob", "pick one")
    card = await card_in(teams, root)
    content = card["attachments"][0]["content"]
    assert len(content["actions"]) <= limits.MAX_ACTIONS
    (shown,) = rendered([content])["cards"]
    assert shown["errors"] == []

    await teams.submit(endpoint, "bob", CHANNEL, card["id"], root, card_data(card, str(pick)))
    await eventually(lambda: "Completed." in texts(in_thread(teams, root)), timeout=30)
    (question,) = [e for e in room.document.transcript.to_py() if e["kind"] == "question"]
    assert question["answer"] == choices[pick]
    assert teams.refused == []


async def test_teams_tells_a_guest_their_name_not_their_hex_username(api, room, teams, endpoint):
    await ready(room, teams)
    code = (await api(people.GUEST, "POST", "link-code")).json["code"]
    await teams.personal_message(endpoint, "guest", f"link {code}")
    await eventually(lambda: "allows it in JupyterLab" in said_to(teams, "guest"))
    (ask,) = (await api(people.GUEST, "GET", "chat-links")).json["asks"]
    decision = {"decision": "allow"}
    allowed = await api(people.GUEST, "POST", "chat-links", "asks", ask["id"], body=decision)
    assert allowed.code == 200, allowed
    name = people.DISPLAY_NAMES[people.GUEST]
    await eventually(
        lambda: f"act as {name} in the rooms, with {name}'s role" in said_to(teams, "guest")
    )
    assert people.GUEST not in said_to(teams, "guest")
