"""Nothing is approved unseen (issue 27): a card shows a long text only in part, says how much it
hides, and the whole of it is one request away while the card is open, for everyone who sees the
card. The REAL runtime asks to run a 20,000-character command."""

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.room.cards.card_content import DISPLAY_LIMIT, HELD_LIMIT, shown

from .harness.helpers import eventually, finished, ready

END = "END-OF-THE-LONG-COMMAND"
COMMAND = "echo " + "x" * (20_000 - len("echo  ") - len(END)) + " " + END


@pytest.fixture
def room_config(request):
    # Only the test that needs the model starts the real runtime (it costs seconds).
    return request.getfixturevalue("copilot_config") if "model" in request.fixturenames else {}


def long_command(request):
    if request.tool_results:
        return Reply("Done.")
    return Reply(tool_calls=(ToolCall("bash", {"command": COMMAND, "description": "long echo"}),))


async def test_a_long_command_says_how_much_it_hides_and_opens_in_full_while_open(api, room, model):
    assert len(COMMAND) == 20_000
    model.script = long_command
    await ready(api, room)
    prompt = (await api("bob", "POST", "prompts", body={"text": "run the long one"})).json["id"]
    await eventually(lambda: len(room.document.approvals) == 1, timeout=30, what="the card")
    [(card_id, card)] = room.document.approvals.to_py().items()
    assert card["summary"] == COMMAND[:DISPLAY_LIMIT]
    hidden = {"summary": {"shown": DISPLAY_LIMIT, "total": 20_000}}
    assert card["details"]["truncated"] == hidden
    [entry] = [e for e in room.document.transcript.to_py() if e["id"] == card_id]
    assert entry["body"] == card["summary"] and entry["details"]["truncated"] == hidden
    assert END not in room.transcript.read_text(), "the transcript holds what the card showed"

    for user in ("bob", "carol", "alice"):  # the author, a viewer, a host: all see the card
        whole = await api(user, "GET", "approvals", card_id, "details")
        assert whole.code == 200, (user, whole)
        assert whole.json["id"] == card_id and whole.json["summary"] == COMMAND
        assert "truncated" not in whole.json["details"] and "truncated" not in whole.json
    assert (await api("dave", "GET", "approvals", card_id, "details")).code == 403
    assert (await api("bob", "GET", "approvals", "nosuchcard", "details")).code == 404

    await api("bob", "POST", "approvals", card_id, body={"decision": "approve"})
    await eventually(lambda: prompt in finished(room), timeout=30, what="the turn")
    gone = await api("carol", "GET", "approvals", card_id, "details")
    assert gone.code == 404 and gone.json["error"] == "request_not_open", gone


def test_a_card_within_the_limit_is_shown_as_it_is():
    details = {"intention": "list", "diff": "-a\n+b\n"}
    content = shown("ls", details)
    assert (content.summary, content.details, content.whole) == ("ls", details, {})
    assert content.in_full() == {"summary": "ls", "details": details}


def test_every_long_text_of_a_card_is_cut_named_and_kept_whole():
    diff, code = "+" * (DISPLAY_LIMIT + 1), "y" * (3 * DISPLAY_LIMIT)
    content = shown("write x", {"diff": diff, "code": code, "path": "x"})
    assert content.details == {
        "diff": diff[:DISPLAY_LIMIT],
        "code": code[:DISPLAY_LIMIT],
        "path": "x",
        "truncated": {
            "diff": {"shown": DISPLAY_LIMIT, "total": DISPLAY_LIMIT + 1},
            "code": {"shown": DISPLAY_LIMIT, "total": 3 * DISPLAY_LIMIT},
        },
    }
    assert content.in_full() == {
        "summary": "write x",
        "details": {"diff": diff, "code": code, "path": "x"},
    }


def test_the_room_keeps_no_more_than_its_limit_of_a_huge_text_and_says_so():
    huge = "z" * (HELD_LIMIT + 10)
    content = shown(huge, {})
    assert len(content.whole["summary"]) == HELD_LIMIT
    assert content.in_full() == {
        "summary": huge[:HELD_LIMIT],
        "details": {},
        "truncated": {"summary": {"shown": HELD_LIMIT, "total": HELD_LIMIT + 10}},
    }
