"""A knock at the door lasts while the person's panel keeps asking (`room/people/door.py`): a
browser closed at the door leaves no card behind for the hosts, and `GET rooms` tells someone who
knocks from someone whose role there is only what the door would say."""

from jupyter_copilot_room.room.people.door import Door

from .harness.helpers import eventually


async def test_a_knock_lasts_from_the_last_visit_and_ends_by_itself():
    changed = []
    door = Door(changed.append, lasts=0.3)
    door.knock("dave")
    assert "dave" in door
    await eventually(lambda: changed == ["dave"], timeout=5, what="the knock to end")
    assert "dave" not in door
    door.knock("erin")
    door.leave("erin")  # let in before the knock ended: nothing is told later
    door.knock("fay")
    door.close()
    assert "erin" not in door and "fay" not in door


def door_card(room, username):
    """Who may answer `username`'s knock, as the hosts' panels see it (None: no card)."""
    return (room.document.participants.to_py() or {})[username].get("answerers")


async def test_a_person_who_stops_knocking_leaves_no_card_and_the_next_visit_knocks_again(
    api, room
):
    room.people.door.lasts = 0.5  # a knock ends 0.5 s after the last visit (90 s by default)
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "pending"
    assert door_card(room, "dave"), "dave knocks: the hosts see his card"
    rooms = {r["name"]: r for r in (await api("dave", "GET", "rooms")).json["rooms"]}
    assert (rooms["main"]["role"], rooms["main"]["at_the_door"]) == ("pending", True)
    assert (await api("alice", "GET", "rooms")).json["rooms"][0]["waiting_on_you"] == 1

    # His browser closed: no more visits, and the card goes by itself.
    await eventually(lambda: not door_card(room, "dave"), timeout=5, what="the card to go")
    participants = room.document.participants.to_py()
    assert participants["dave"]["role"] == "pending" and not participants["dave"]["online"]
    assert (await api("alice", "GET", "rooms")).json["rooms"][0]["waiting_on_you"] == 0
    rooms = {r["name"]: r for r in (await api("dave", "GET", "rooms")).json["rooms"]}
    assert rooms["main"]["at_the_door"] is False, "listing rooms is no knock"

    await api("dave", "GET", "room")  # he is back
    assert door_card(room, "dave")
    r = await api("alice", "POST", "admissions", "dave", body={"decision": "member"})
    assert r.code == 200
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "member"
    assert "dave" not in room.people.door


async def test_a_panel_closed_at_the_door_takes_the_knock_away_at_once(api, room):
    """The panel says `DELETE door` as its tab closes: the hosts' card goes then, not after the
    knock's 90 s. Anyone may say it of themselves; it changes nobody's role."""
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "pending"
    assert door_card(room, "dave")
    assert (await api("dave", "DELETE", "door")).code == 204
    participants = room.document.participants.to_py()
    assert not participants["dave"].get("answerers") and not participants["dave"]["online"]
    assert participants["dave"]["role"] == "pending"
    assert (await api("alice", "GET", "rooms")).json["rooms"][0]["waiting_on_you"] == 0
    assert (await api("bob", "DELETE", "door")).code == 204  # a member: nothing to take away
    await api("dave", "GET", "room")  # his next visit knocks again
    assert door_card(room, "dave")


async def test_the_rooms_people_are_those_admitted_with_it_open_never_someone_at_the_door(
    api, room, connect
):
    """`GET rooms`' `people` (the switcher's list): dave knocking is shown online to the hosts
    (his card), yet he is at the door, not in the room; bob with the room open is."""
    assert (await api("dave", "GET", "room")).json["me"]["role"] == "pending"
    await connect("bob")
    await eventually(lambda: "bob" in room.records.sync.connected(), what="bob's connection served")
    participants = room.document.participants.to_py()
    assert participants["dave"]["online"] and door_card(room, "dave"), "dave knocks meanwhile"
    [main] = (await api("alice", "GET", "rooms")).json["rooms"]
    assert main["people"] == [{"username": "bob", "name": "Bob", "role": "member"}]
