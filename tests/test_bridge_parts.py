"""The chat bridge's pure parts: long text cut to a service's limit, one-time link codes, a
card's buttons and the click that names them (`fronts/chat/`, `fronts/slack/block_kit.py`)."""

import asyncio
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.errors import Conflict, InsufficientStorage, InvalidRequest, NotFound
from jupyter_copilot_room.fronts.chat import chat_front, linked_people
from jupyter_copilot_room.fronts.chat.channel_links import ChannelLinks
from jupyter_copilot_room.fronts.chat.channel_mirror import split_to
from jupyter_copilot_room.fronts.chat.chat_front import ChatFront
from jupyter_copilot_room.fronts.chat.chat_service import CardView
from jupyter_copilot_room.fronts.chat.linked_people import LinkedPeople
from jupyter_copilot_room.fronts.reach import ServiceRefusal, ServiceWaiting, reach, retry_seconds
from jupyter_copilot_room.fronts.slack.block_kit import card_blocks, clicked
from jupyter_copilot_room.fronts.teams import adaptive_cards
from jupyter_copilot_room.fronts.teams.teams_settings import OPENID_URL, parse_teams


@given(st.text(alphabet=st.sampled_from("ab \n"), max_size=400), st.integers(4, 60))
def test_long_text_is_cut_to_the_limit_and_nothing_is_lost(text, limit):
    parts = split_to(text, limit)
    assert "".join(parts) == text
    assert all(0 < len(part) <= limit for part in parts)


def test_a_link_code_asks_its_owner_once_for_ten_minutes(tmp_path, monkeypatch):
    people = LinkedPeople(tmp_path / "people.json", {"slack": {"U1": "alice"}})
    assert people.username("slack", "U1") == "alice"
    first = people.code_for("bob")["code"]
    second = people.code_for("bob")["code"]

    def send(user, code):
        return people.present("slack", user, f"@{user}", code, "D1", None)

    assert send("U2", first).ask is None  # a newer code replaced it
    ask = send("U2", second.lower()).ask
    assert (ask.username, ask.user, ask.name) == ("bob", "U2", "@U2")
    assert people.username("slack", "U2") is None, "an ask links nobody"
    assert send("U3", second).ask is None  # spent
    assert people.asks_for("bob") == [ask] and people.asks_for("carol") == []
    people.settle(ask, allow=True)
    assert people.asks_for("bob") == [] and people.username("slack", "U2") == "bob"
    again = LinkedPeople(tmp_path / "people.json", {})  # kept, with the chat user's name
    assert again.links_of("bob") == [{"service": "slack", "user": "U2", "name": "@U2"}]

    late = send("U4", people.code_for("carol")["code"]).ask
    clock = linked_people.time.monotonic() + linked_people.CODE_LASTS
    monkeypatch.setattr(linked_people.time, "monotonic", lambda: clock)
    assert people.asks_for("carol") == [], "an ask lasts as long as its code"
    with pytest.raises(NotFound):
        people.ask("carol", late.id)
    assert send("U4", people.code_for("carol")["code"]).ask is not None


def test_wrong_codes_are_limited_per_chat_user_for_ten_minutes(tmp_path, monkeypatch):
    people = LinkedPeople(tmp_path / "people.json", {})
    now = [1000.0]
    monkeypatch.setattr(linked_people.time, "monotonic", lambda: now[0])
    for _ in range(linked_people.WRONG_CODES):
        assert people.present("slack", "U9", "U9", "NOPE", "D9", None).retry_in == 0
    code = people.code_for("bob")["code"]
    limited = people.present("slack", "U9", "U9", code, "D9", None)
    assert limited.ask is None and limited.retry_in == linked_people.WRONG_CODES_WINDOW
    assert people.present("teams", "U9", "U9", code, "D9", None).ask is not None  # another
    now[0] += linked_people.WRONG_CODES_WINDOW
    assert people.present("slack", "U9", "U9", people.code_for("bob")["code"], "D9", None).ask


def test_a_cards_buttons_name_the_card_and_the_answer():
    card = CardView("c1", "The agent asks", "rm -rf build", True, (("Approve", "approve"),))
    blocks = card_blocks(card)
    (button,) = blocks[-1]["elements"]
    assert clicked(button) == ("c1", "approve")
    assert clicked({"value": "not ours"}) is None
    assert "```\nrm -rf build\n```" in blocks[1]["text"]["text"]
    settled = card_blocks(CardView("c1", "", "", False, (), settled="Approved by bob"))
    assert settled == [{"type": "section", "text": {"type": "mrkdwn", "text": "*Approved by bob*"}}]


def test_a_teams_card_submits_the_card_and_the_answer_and_says_who_answered():
    choices = (("Approve", "approve"), ("Reject", "reject"))
    attachment = adaptive_cards.card_attachment(
        CardView("c1", "The agent asks", "rm -rf build", True, choices)
    )
    assert attachment["contentType"] == "application/vnd.microsoft.card.adaptive"
    card = attachment["content"]
    assert card["body"][1] == {
        "type": "TextBlock",
        "text": "rm -rf build",
        "wrap": True,
        "fontType": "Monospace",
    }
    approve, reject = card["actions"]
    assert adaptive_cards.clicked(approve["data"]) == ("c1", "approve")
    assert (approve["style"], reject["style"]) == ("positive", "destructive")
    assert adaptive_cards.clicked({"msteams": {"type": "imBack"}}) is None
    assert adaptive_cards.clicked("approve") is None
    settled = adaptive_cards.card_attachment(
        CardView("c1", "", "", False, (), settled="Approved by bob")
    )["content"]
    assert "actions" not in settled and settled["body"][0]["text"] == "Approved by bob"


def test_teams_settings_name_what_is_wrong():
    assert parse_teams({}) is None
    settings = parse_teams({"app_id": "a", "tenant_id": "t", "service_url": "http://x"})
    assert settings is not None
    assert (settings.service_url, settings.openid_url) == ("http://x/", OPENID_URL)
    for wrong, said in [
        ({"app_id": "a"}, "tenant_id is required"),
        ({"app_id": "a", "tenant_id": "t", "secret": "s"}, "unknown keys ['secret']"),
        ({"app_id": "a", "tenant_id": "t", "rooms": {"a": "19:x", "b": "19:x"}}, "one channel"),
        ({"app_id": "a", "tenant_id": "t", "people": {"x": 1}}, "maps strings to strings"),
    ]:
        with pytest.raises(ValueError, match=re.escape(said)):
            parse_teams(wrong)


class _Slack:
    name = "slack"

    def channel_id(self, given):
        return given.strip().upper() if given.strip().upper().startswith("C") else None


class _NoRoomLoaded:
    def once_started(self, name, then):
        pass  # a room asleep shows nothing


def test_channel_links_keep_the_hosts_changes_over_the_configuration(tmp_path):
    configured = {"main": "C0MAIN", "lab": "C0LAB"}

    def links():
        return ChannelLinks(_Slack(), _NoRoomLoaded(), configured, tmp_path)

    recorded = []
    first = links()
    assert first.linked == configured
    asyncio.run(first.unlink("main"))
    assert asyncio.run(first.link("lab", " c0main ", recorded.append)) == "C0MAIN"  # free now
    with pytest.raises(Conflict) as taken:
        asyncio.run(first.link("main", "C0MAIN", recorded.append))
    assert taken.value.code == "channel_taken"
    with pytest.raises(InvalidRequest):
        asyncio.run(first.link("main", "#general", recorded.append))
    assert recorded == ["C0MAIN"]  # a line for the change alone, after its checks

    def disk_full(channel):
        raise InsufficientStorage("The disk is full.")

    with pytest.raises(InsufficientStorage):  # no line, no change
        asyncio.run(first.link("main", "C0NEW", disk_full))
    assert first.linked == {"lab": "C0MAIN"} and first.in_channel("C0NEW") is None

    again = links()  # a restart: the hosts' links win over `rooms`
    assert again.linked == {"lab": "C0MAIN"}
    assert again.in_channel("C0MAIN").name == "lab" and again.in_channel("C0LAB") is None
    assert json.loads((tmp_path / "slack-channels.json").read_text()) == {
        "main": None,
        "lab": "C0MAIN",
    }


def test_the_first_contact_waits_out_an_absent_service_and_stops_at_a_refusal(tmp_path):
    """Slack or Teams down when the server starts: the header says so until it answers; a bad
    token is said once and not tried again."""
    links = ChannelLinks(_Slack(), _NoRoomLoaded(), {}, tmp_path)
    answers = [ServiceWaiting("unreachable"), ServiceWaiting("ratelimited", retry_after=0), None]
    seen = []

    async def first_call():
        seen.append(links.status)
        if answer := answers.pop(0):
            raise answer

    assert asyncio.run(links.reach(first_call)) is None
    assert seen == [None, "disconnected", "disconnected"] and links.status is None
    refusal = ServiceRefusal("invalid_auth", token=True)
    tries = []

    async def refused():
        tries.append(1)
        raise refusal

    assert asyncio.run(links.reach(refused)) is refusal
    assert links.status == "bad token" and len(tries) == 1


def test_a_retry_after_is_its_seconds_or_one():
    """Slack and Teams send seconds; a date (HTTP allows one) or nothing waits a second."""
    assert [retry_seconds(v) for v in ["2", "0.5", "-3", None, ""]] == [2.0, 0.5, 0.0, 1.0, 1.0]
    assert retry_seconds("Wed, 21 Oct 2026 07:28:00 GMT") == 1.0


def test_a_delivery_seen_before_a_restart_is_not_handled_after_it(tmp_path):
    file = tmp_path / "slack-deliveries.json"
    links = ChannelLinks(_Slack(), _NoRoomLoaded(), {}, tmp_path)

    def front():
        return ChatFront(_Slack(), None, LinkedPeople(tmp_path / "people.json", {}), links, file)

    before = front()
    assert before.first_time("Ev1") and not before.first_time("Ev1")
    after = front()  # the server started again
    assert not after.first_time("Ev1") and after.first_time("Ev2")
    many = front()
    for n in range(chat_front.REMEMBERED + 5):
        many.first_time(f"Ev{n + 3}")
    assert front().first_time("Ev1")  # the oldest are forgotten: the file stays small


def test_reach_waits_the_retry_after_else_doubles_up_to_its_cap_and_hands_on_a_refusal():
    """`fronts/reach.py`: the one loop every front calls a service through."""
    failures = [
        ServiceWaiting("down"),
        ServiceWaiting("down"),
        ServiceWaiting("rate limited", retry_after=0.0005),
        ServiceWaiting("down"),
        ServiceWaiting("down"),
    ]
    waits, answered = [], []

    async def call():
        if failures:
            raise failures.pop(0)
        return "posted"

    def waited(waiting, seconds):
        waits.append((waiting.reason, seconds))

    got = asyncio.run(reach(call, waited, lambda: answered.append(1), first=0.001, cap=0.004))
    assert got == "posted" and answered == [1]
    assert waits == [
        ("down", 0.001),
        ("down", 0.002),
        ("rate limited", 0.0005),  # the service's word wins over the backoff
        ("down", 0.004),  # the backoff went on doubling meanwhile, to its cap
        ("down", 0.004),
    ]

    floor = []
    failures.append(ServiceWaiting("rate limited", retry_after=0.0))
    asyncio.run(reach(call, lambda w, s: floor.append(s), floor=0.002))
    assert floor == [0.002], "never sooner than the floor (the pull request's poll interval)"

    async def refused():
        raise ServiceRefusal("bad credentials", status=401, token=True)

    with pytest.raises(ServiceRefusal) as refusal:
        asyncio.run(reach(refused, waited))
    assert (refusal.value.status, refusal.value.token) == (401, True)
    assert len(waits) == 5, "a refusal is not tried again"
