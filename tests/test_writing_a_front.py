"""docs/architecture.md's "Writing a front" example, run as written: a turn driven through
`jupyter_copilot_room.api` alone, against a real server and the real Copilot runtime."""

import asyncio
import re
from pathlib import Path

import pytest

from jupyter_copilot_room.api import Front, Person, Refused, rooms_of
from jupyter_copilot_room.api import follow as follow_module

from .harness import people
from .harness.helpers import READY, ask_to_run, eventually

DOC = Path(__file__).parents[1] / "docs" / "architecture.md"


def front_example():
    """The section's one Python block, as a module's namespace."""
    section = DOC.read_text().split("## Writing a front", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(code.splitlines()) <= 70, "the example stays short enough to read whole"
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    return namespace


@pytest.fixture
def room_config(copilot_config):
    return {**copilot_config, "members": [people.MEMBER, "erin"]}


async def test_the_writing_a_front_example_drives_a_turn(jp_serverapp, room, model):
    model.script = ask_to_run
    await rooms_of(jp_serverapp).open("main")
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=READY)

    ended = await front_example()["drive_a_turn"](jp_serverapp)

    assert ended == {"state": "completed", "source": "chat"}
    tool = [e for e in room.document.transcript.to_py() if e["kind"] == "tool"]
    assert "3 passed" in tool[-1]["body"] + str(tool[-1].get("result", ""))


async def test_a_front_is_refused_what_rest_refuses(jp_serverapp, room):
    rooms = rooms_of(jp_serverapp)
    with pytest.raises(Refused) as unknown:
        await rooms.open("no-such-room")
    assert (unknown.value.status, unknown.value.code) == (404, "unknown_room")

    main = await rooms.open("main")
    viewer, stranger = Person(people.VIEWER, source="slack"), Person("zoe", source="slack")
    assert "watch" in main.can(viewer) and "submit" not in main.can(viewer)
    assert "watch" not in main.can(stranger), "someone not admitted may do nothing here"
    with pytest.raises(Refused) as unread:
        main.follow(viewer)  # a person follows the transcript as their role lets them
    assert (unread.value.status, unread.value.code) == (403, "forbidden")
    assert main.card(Front("slack"), "no-such-card") is None
    with pytest.raises(Refused) as forged:
        await main.submit(viewer, "delete everything")
    assert (forged.value.status, forged.value.code) == (403, "forbidden")
    with pytest.raises(Refused) as empty:
        await main.submit(Person(people.MEMBER), "   ")
    assert (empty.value.status, empty.value.code) == (400, "empty_prompt")
    with pytest.raises(Refused) as garbled:
        await main.say(Person(people.MEMBER), "\ud800")  # no UTF-8 holds a lone surrogate
    assert garbled.value.status == 400
    assert room.turns.queue.next_up() is None


async def test_what_a_person_says_carries_their_source_and_follow_goes_on_live(jp_serverapp):
    room = await rooms_of(jp_serverapp).open("main")
    seen = []

    async def follow():
        async for record in room.follow(Front("teams")):
            seen.append(record)
            if record["kind"] == "chat.message" and record["payload"]["text"] == "second":
                return

    first = await room.say(Person(people.MEMBER, display_name="Bob B.", source="teams"), "first")
    following = asyncio.create_task(follow())
    await eventually(lambda: any(r["kind"] == "chat.message" for r in seen))
    await room.say(Person(people.HOST), "second")
    await asyncio.wait_for(following, 5)

    chats = [r for r in seen if r["kind"] == "chat.message"]
    assert [(c["payload"]["text"], c["actor"], c.get("source")) for c in chats] == [
        ("first", people.MEMBER, "teams"),
        ("second", people.HOST, None),
    ]
    assert chats[0]["payload"]["id"] == first
    seqs = [r["seq"] for r in seen]
    assert seqs == sorted(set(seqs)) == list(range(seqs[0], seqs[0] + len(seqs)))
    again = room.follow(Person(people.MEMBER), after=chats[0]["seq"])  # as a member reads it
    later = [r async for r in _until_kind(again, "chat.message")]
    assert later[-1]["payload"]["text"] == "second"


async def _until_kind(records, kind):
    async for record in records:
        yield record
        if record["kind"] == kind:
            await records.aclose()
            return


async def test_a_follower_that_falls_behind_reads_on_from_the_file_and_misses_nothing(
    jp_serverapp, monkeypatch, caplog
):
    """A front stuck on a slow service holds a bounded number of records: past it, it is told
    and reads on from the transcript, every record once and in order."""
    monkeypatch.setattr(follow_module, "LIVE_LIMIT", 5)
    room = await rooms_of(jp_serverapp).open("main")
    records = room.follow(Front("slack"), after=room.last_seq())
    await room.say(Person(people.MEMBER), "line 0")
    said = [await _next_chat(records)]  # following live from here, and not reading for a while
    for n in range(1, 40):
        await room.say(Person(people.MEMBER), f"line {n}")
    said += [await _next_chat(records) for _ in range(1, 40)]
    await records.aclose()
    assert said == [f"line {n}" for n in range(40)]
    assert "fell more than 5 records behind" in caplog.text


async def _next_chat(records) -> str:
    while (record := await asyncio.wait_for(anext(records), 5))["kind"] != "chat.message":
        pass
    return record["payload"]["text"]
