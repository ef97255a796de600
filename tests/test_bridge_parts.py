"""The chat bridge's pure parts: long text cut to a service's limit, one-time link codes, a
card's buttons and the click that names them (`bridges/`, `slack/block_kit.py`)."""

from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.bridges import linked_people
from jupyter_copilot_room.bridges.channel_mirror import split_to
from jupyter_copilot_room.bridges.chat_service import CardView
from jupyter_copilot_room.bridges.linked_people import LinkedPeople
from jupyter_copilot_room.slack.block_kit import card_blocks, clicked


@given(st.text(alphabet=st.sampled_from("ab \n"), max_size=400), st.integers(4, 60))
def test_long_text_is_cut_to_the_limit_and_nothing_is_lost(text, limit):
    parts = split_to(text, limit)
    assert "".join(parts) == text
    assert all(0 < len(part) <= limit for part in parts)


def test_a_link_code_works_once_for_ten_minutes_and_for_whom_it_was_made(tmp_path, monkeypatch):
    people = LinkedPeople(tmp_path / "people.json", {"slack": {"U1": "alice"}})
    assert people.username("slack", "U1") == "alice"
    first = people.code_for("bob")["code"]
    second = people.code_for("bob")["code"]
    assert people.redeem("slack", "U2", first) is None  # a newer code replaced it
    assert people.redeem("slack", "U2", second.lower()) == "bob"
    assert people.redeem("slack", "U3", second) is None  # spent
    assert LinkedPeople(tmp_path / "people.json", {}).username("slack", "U2") == "bob"  # kept

    late = people.code_for("carol")["code"]
    clock = linked_people.time.monotonic() + linked_people.CODE_LASTS
    monkeypatch.setattr(linked_people.time, "monotonic", lambda: clock)
    assert people.redeem("slack", "U4", late) is None


def test_a_cards_buttons_name_the_card_and_the_answer():
    card = CardView("c1", "The agent asks", "rm -rf build", True, (("Approve", "approve"),))
    blocks = card_blocks(card)
    (button,) = blocks[-1]["elements"]
    assert clicked(button) == ("c1", "approve")
    assert clicked({"value": "not ours"}) is None
    assert "```rm -rf build```" in blocks[1]["text"]["text"]
    settled = card_blocks(CardView("c1", "", "", False, (), settled="Approved by bob"))
    assert settled == [{"type": "section", "text": {"type": "mrkdwn", "text": "*Approved by bob*"}}]
