"""The room in Slack, end to end: a real server, the real Copilot runtime with the scripted
model, and a local fake of Slack (`harness/fake_slack.py`: the Web API and Socket Mode) that the
room reaches through Slack's own SDK. People act by mentioning the bot and clicking buttons on
the fake; the room answers there, under the same rules as the panel."""

import json

import pytest

from jupyter_copilot_room import export
from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.fronts.chat import channel_mirror

from .harness import people, slack_fixtures
from .harness.helpers import ask_to_run, ask_which, eventually, link_notes
from .harness.slack_fixtures import CHANNEL, button, card_message, prompt_message, ready

slack, room_config = slack_fixtures.slack, slack_fixtures.room_config  # fixtures, used below


def prompts(room):
    return [e for e in room.document.transcript.to_py() if e["kind"] == "prompt"]


async def test_a_mapped_persons_mention_is_their_prompt_and_the_reply_reaches_the_thread(
    room, slack, model
):
    model.script = lambda request: Reply("Hello from the room, in Slack.")
    await ready(room, slack)

    await slack.mention("UBOB", CHANNEL, "say hello")

    await eventually(lambda: any("say hello" in m["text"] for m in slack.messages), timeout=30)
    asked = prompt_message(slack, "say hello")
    assert "Bob" in asked["text"] or "bob" in asked["text"]
    await eventually(
        lambda: any("Hello from the room" in m["text"] for m in slack.thread(asked["ts"])),
        timeout=30,
    )
    await eventually(lambda: any(m["text"] == "Completed." for m in slack.thread(asked["ts"])))
    (prompt,) = prompts(room)
    assert prompt["author"] == "bob"
    record = next(
        line for line in room.transcript.path.read_text().splitlines() if "prompt.submitted" in line
    )
    assert '"source":"slack"' in record
    assert prompt["origin"] == "slack"  # the panel says "from Slack"


async def test_an_export_says_a_slack_prompt_came_from_slack(api, room, slack, model):
    model.script = lambda request: Reply("Done.")
    await ready(room, slack)
    await slack.mention("UBOB", CHANNEL, "say where")
    await eventually(lambda: prompts(room), timeout=30)

    lines = (await api("bob", "GET", "transcript")).text.splitlines()
    (submitted,) = [json.loads(n) for n in lines if '"prompt.submitted"' in n]
    assert submitted["payload"]["origin"] == "slack"
    cells = json.loads(export.to_notebook(export.parse("\n".join(lines)), now=0.0))["cells"]
    (asked,) = [c for c in cells if c["metadata"].get("copilot_room", {}).get("kind") == "prompt"]
    assert asked["metadata"]["copilot_room"]["origin"] == "slack"


async def test_a_card_is_answered_in_slack_by_its_author_and_refused_to_another_member(
    room, slack, model
):
    model.script = ask_to_run
    await ready(room, slack)
    await slack.mention("UBOB", CHANNEL, "run the tests")
    await eventually(lambda: any("run the tests" in m["text"] for m in slack.messages), timeout=30)
    thread = prompt_message(slack, "run the tests")["ts"]
    await eventually(lambda: any(m.get("blocks") for m in slack.thread(thread)), timeout=30)
    card = card_message(slack, thread)
    assert "echo 3 passed" in str(card["blocks"])

    await slack.click("UERIN", card["ts"], "approve", button(card, "approve")["value"], CHANNEL)
    await eventually(lambda: any(e["user"] == "UERIN" for e in slack.ephemerals))
    (whisper,) = [e for e in slack.ephemerals if e["user"] == "UERIN"]
    assert whisper["text"] == "Waiting on bob or a host."
    pending = next(e for e in room.document.transcript.to_py() if e["kind"] == "permission")
    assert pending["state"] == "pending"

    await slack.click("UBOB", card["ts"], "approve", button(card, "approve")["value"], CHANNEL)
    await eventually(
        lambda: any(m["text"] == "Completed." for m in slack.thread(thread)), timeout=30
    )
    assert "approved by bob" in slack.message(card["ts"])["text"].lower()
    assert any("It printed: 3 passed" in m["text"] for m in slack.thread(thread))


async def test_unmapped_viewer_and_linked_people(api, room, slack, model):
    model.script = lambda request: Reply("Linked and answered.")
    await ready(room, slack)

    await slack.mention("USTRANGER", CHANNEL, "delete everything")
    await slack.mention("UCAROL", CHANNEL, "delete everything")
    await eventually(lambda: len(slack.ephemerals) == 2)
    stranger, carol = slack.ephemerals
    assert "`link &lt;code&gt;`" in stranger["text"] and stranger["user"] == "USTRANGER"
    assert "Viewers can watch the room but not act in it." in carol["text"]
    assert prompts(room) == [] and room.turns.queue.next_up() is None

    code = (await api("dave", "POST", "link-code")).json
    assert code["expires_in"] == 600
    await slack.message_event("UDAVE", "DDAVE", f"link {code['code']}", channel_type="im")
    await eventually(lambda: any("allows it in JupyterLab" in e["text"] for e in slack.ephemerals))
    (ask,) = (await api("dave", "GET", "chat-links")).json["asks"]
    allowed = await api("dave", "POST", "chat-links", "asks", ask["id"], body={"decision": "allow"})
    assert allowed.code == 200, allowed
    await eventually(lambda: any("act as Dave" in e["text"] for e in slack.ephemerals))
    await slack.message_event("UOTHER", "DOTHER", f"link {code['code']}", channel_type="im")
    await eventually(lambda: any("unknown or expired" in e["text"] for e in slack.ephemerals))
    await slack.mention("UDAVE", CHANNEL, "say hi")  # dave waits at the door: refused
    await eventually(lambda: any("waiting for a host" in e["text"] for e in slack.ephemerals))
    assert prompts(room) == []


async def test_a_duplicate_delivery_queues_nothing_twice(room, slack, model):
    model.script = lambda request: Reply("Once.")
    await ready(room, slack)

    event_id = await slack.mention("UBOB", CHANNEL, "say once")
    await slack.mention("UBOB", CHANNEL, "say once", event_id=event_id, retry_attempt=1)

    await eventually(lambda: any(m["text"] == "Completed." for m in slack.messages), timeout=30)
    await slack.mention("UBOB", CHANNEL, "say later")  # after the retry: its turn is a marker
    await eventually(lambda: [m["text"] for m in slack.messages].count("Completed.") == 2, 30)
    assert [p["body"] for p in prompts(room)] == ["say once", "say later"]
    assert len([m for m in slack.messages if "say once" in m["text"]]) == 1


async def test_a_socket_dropped_mid_turn_loses_nothing(room, slack, model, caplog):
    model.script = ask_to_run
    await ready(room, slack)
    await slack.mention("UBOB", CHANNEL, "run the tests")
    await eventually(lambda: any(m.get("blocks") for m in slack.messages), timeout=30)

    await slack.drop(stay_away=True)
    await eventually(
        lambda: room.document.meta.get("fronts") == {"slack": "disconnected"}, timeout=10
    )
    await eventually(lambda: slack.refused, timeout=30)  # the SDK tried while Slack was away
    slack.come_back()
    await slack.connected(timeout=30)  # the SDK reconnects by itself
    failed = [r for r in caplog.records if "Failed to connect" in r.getMessage()]
    assert failed and not any(r.exc_info for r in caplog.records), "one line, no traceback"
    await eventually(lambda: not room.document.meta.get("fronts"), timeout=10)
    thread = prompt_message(slack, "run the tests")["ts"]
    card = card_message(slack, thread)
    await slack.click("UBOB", card["ts"], "approve", button(card, "approve")["value"], CHANNEL)

    await eventually(
        lambda: any(m["text"] == "Completed." for m in slack.thread(thread)), timeout=30
    )
    assert len([m for m in slack.messages if m.get("blocks")]) == 1  # the card once


async def test_a_429_is_waited_out_for_its_retry_after(room, slack, model):
    model.script = lambda request: Reply("After the limit.")
    await ready(room, slack)
    slack.rate_limit("chat.postMessage", 1, times=1)

    await slack.mention("UBOB", CHANNEL, "say later")

    await eventually(lambda: any(m["text"] == "Completed." for m in slack.messages), timeout=30)
    assert slack.limited == ["chat.postMessage"]
    assert len([m for m in slack.messages if "say later" in m["text"]]) == 1


async def test_a_question_is_answered_by_a_reply_in_the_turns_thread_or_a_button(
    room, slack, model
):
    model.script = ask_which
    await ready(room, slack)
    await slack.mention("UBOB", CHANNEL, "pick a colour")
    await eventually(lambda: any(m.get("blocks") for m in slack.messages), timeout=30)
    thread = prompt_message(slack, "pick a colour")["ts"]
    card = card_message(slack, thread)
    actions = next(b for b in card["blocks"] if b["type"] == "actions")
    assert [e["text"]["text"] for e in actions["elements"]] == ["red", "blue"]
    assert [e["action_id"] for e in actions["elements"]] == ["0", "1"]

    await slack.message_event("UERIN", CHANNEL, "blue", thread_ts=thread)  # not hers to answer
    await eventually(lambda: any(e["user"] == "UERIN" for e in slack.ephemerals))
    await slack.message_event("UBOB", CHANNEL, "green, actually", thread_ts=thread)

    await eventually(
        lambda: any(m["text"] == "Completed." for m in slack.thread(thread)), timeout=30
    )
    assert any("green, actually" in m["text"] for m in slack.thread(thread))
    assert "answered by bob" in slack.message(card["ts"])["text"].lower()


async def test_a_long_reply_is_split_to_slacks_limit_and_streams_by_edits(room, slack, model):
    long = " ".join(f"word{n}" for n in range(1200))  # about 9 000 characters
    model.script = lambda request: Reply(long, chunk_size=300, delay=0.1)  # about 3 s
    await ready(room, slack)

    await slack.mention("UBOB", CHANNEL, "say a lot")

    await eventually(lambda: any(m["text"] == "Completed." for m in slack.messages), timeout=30)
    thread = prompt_message(slack, "say a lot")["ts"]
    parts = [
        m["text"]
        for m in slack.thread(thread)
        if m["text"].startswith("word") or "word" in m["text"][:8]
    ]
    assert all(len(part) <= 3000 for part in parts) and len(parts) >= 3
    assert " ".join(part.strip() for part in parts) == long  # cut at spaces, which Slack trims
    versions = [text for text, _ in slack.thread(thread)[0]["versions"]]
    assert versions[0] == "…" and len(versions) >= 3  # posted at once, edited as it streamed
    assert versions[-1] == parts[0]
    assert len(versions) <= 3 + 4  # about one edit a second: 3 s of streaming, then the whole


async def test_a_bad_token_is_one_line_and_the_header_says_so(
    api, room, slack, model, monkeypatch, caplog
):
    slack.bot_token = "xoxb-another"  # Slack no longer takes the room's token

    def refusals():
        return [r for r in caplog.records if "Slack refused" in r.getMessage()]

    await eventually(refusals, timeout=15)
    await room.ensure_started()  # a room that starts after the refusal shows it too
    await eventually(lambda: room.document.meta.get("fronts") == {"slack": "bad token"}, timeout=15)
    lines = refusals()
    assert len(lines) == 1 and "invalid_auth" in lines[0].getMessage()
    assert not any(r.exc_info for r in caplog.records if r.name.startswith("jupyter_copilot"))
    model.script = lambda request: Reply("The room works without Slack.")
    assert (await api(people.MEMBER, "POST", "prompts", body={"text": "hello"})).code == 202
    await eventually(
        lambda: any(e["kind"] == "assistant" for e in room.document.transcript.to_py()), timeout=30
    )


async def test_a_host_links_and_unlinks_the_rooms_channel(api, room, slack, model, state_dir):
    model.script = lambda request: Reply("Where am I?")
    await ready(room, slack)
    assert (await api(people.HOST, "GET", "room")).json["channels"] == {"slack": CHANNEL}

    refused = await api(people.MEMBER, "PUT", "channels/slack", body={"channel": "C0NEW"})
    assert refused.code == 403
    for service, channel, code in [("slack", "C0 NEW", 400), ("irc", "C0NEW", 404)]:
        answer = await api(people.HOST, "PUT", f"channels/{service}", body={"channel": channel})
        assert answer.code == code
    linked = await api(people.HOST, "PUT", "channels/slack", body={"channel": "C0NEW"})
    assert linked.code == 200 and linked.json == {"service": "slack", "channel": "C0NEW"}
    assert (await api(people.MEMBER, "GET", "room")).json["channels"] == {"slack": "C0NEW"}
    assert room.document.meta.get("channels") == {"slack": "C0NEW"}  # every panel, at once
    assert link_notes(room)[-1] == (
        people.HOST,
        "{0} linked this room to the Slack channel C0NEW: its turns are posted there.",
    )
    again = await api(people.HOST, "PUT", "channels/slack", body={"channel": "C0NEW"})
    assert again.code == 200 and len(link_notes(room)) == 1, "no change, no line"

    await slack.mention("UBOB", "C0NEW", "say where")  # the new channel's mention is a prompt
    await eventually(lambda: any(m["text"] == "Completed." for m in slack.messages), timeout=30)
    assert [m["channel"] for m in slack.messages if "say where" in m["text"]] == ["C0NEW"]
    await slack.mention("UBOB", CHANNEL, "say here")  # the old one is no room's now
    await eventually(lambda: any("linked to no room" in e["text"] for e in slack.ephemerals))

    assert (await api(people.HOST, "DELETE", "channels/slack")).code == 204
    assert (await api(people.HOST, "GET", "room")).json["channels"] == {"slack": None}
    assert room.document.meta.get("channels") == {"slack": None}
    assert link_notes(room)[-1] == (
        people.HOST,
        "{0} unlinked this room from the Slack channel C0NEW.",
    )
    saved = json.loads((state_dir / "bridges" / "slack-channels.json").read_text())
    assert saved == {"main": None}  # kept: a restart does not link the configured one again
    shown = len(slack.messages)
    assert (await api(people.MEMBER, "POST", "prompts", body={"text": "say nowhere"})).code == 202
    await eventually(
        lambda: len([e for e in room.document.transcript.to_py() if e["kind"] == "assistant"]) == 2,
        timeout=30,
    )
    # A later marker: linked again elsewhere, the room's next turn reaches that channel whole. A
    # mirror the unlink left running would have posted the turn before (the records before) by
    # then; a new link starts after it, so nothing of it goes anywhere.
    linked = await api(people.HOST, "PUT", "channels/slack", body={"channel": "C0THIRD"})
    assert linked.code == 200, linked
    assert (await api(people.MEMBER, "POST", "prompts", body={"text": "say there"})).code == 202
    await eventually(lambda: any("say there" in m["text"] for m in slack.messages), timeout=30)
    there = next(m for m in slack.messages if "say there" in m["text"])
    await eventually(lambda: "Completed." in [m["text"] for m in slack.thread(there["ts"])], 30)
    assert {m["channel"] for m in slack.messages[shown:]} == {"C0THIRD"}


async def test_a_channel_the_bot_is_not_in_holds_the_rooms_lines_until_it_is_invited(
    api, room, slack, model, monkeypatch
):
    """A host links a channel but forgets to invite the bot: the header says so, and once the
    bot is in, what the room said meanwhile follows, once."""
    monkeypatch.setattr(channel_mirror, "READ_AGAIN", 1.0)
    model.script = lambda request: Reply("Heard you.")
    await ready(room, slack)
    slack.outside.add("C0OUT")
    linked = await api(people.HOST, "PUT", "channels/slack", body={"channel": "C0OUT"})
    assert linked.code == 200, linked
    assert (await api(people.MEMBER, "POST", "prompts", body={"text": "anyone?"})).code == 202
    await eventually(
        lambda: room.document.meta.get("fronts") == {"slack": "not in the channel"}, timeout=15
    )

    def tries():
        return [c for c in slack.calls if c[0] == "chat.postMessage" and c[1]["channel"] == "C0OUT"]

    await eventually(lambda: len(tries()) >= 2, timeout=10)  # tried again, refused again
    assert not [m for m in slack.messages if m["channel"] == "C0OUT"]

    slack.outside.discard("C0OUT")  # someone invites the bot
    await eventually(lambda: any("asked: anyone?" in m["text"] for m in slack.messages), 15)
    [message] = [m for m in slack.messages if "asked: anyone?" in m["text"]]
    await eventually(lambda: "Completed." in [m["text"] for m in slack.thread(message["ts"])], 15)
    await eventually(lambda: not room.document.meta.get("fronts"), timeout=5)
    assert [m["channel"] for m in slack.messages if "anyone?" in m["text"]] == ["C0OUT"]


class TestALinkedRoomSleeps:
    @pytest.fixture
    def room_config(self, room_config):
        return {**room_config, "room_idle_timeout": 2.0}

    async def test_it_unloads_while_quiet_and_its_next_turn_still_reaches_the_channel(
        self, api, room, room_app, slack, model, jp_root_dir, state_dir
    ):
        """A channel that follows a room is no visit: the room unloads when quiet as any other,
        and the turn that loads it again is in its channel all the same."""
        model.script = lambda request: Reply("Awake again.")
        await ready(room, slack)
        (jp_root_dir / "side").mkdir()
        made = await api(people.HOST, "POST", "rooms", body={"name": "side", "repository": "side"})
        assert made.code == 201, made
        linked = await api(
            people.HOST, "PUT", "rooms", "side", "channels/slack", body={"channel": "C0SIDE"}
        )
        assert linked.json == {"service": "slack", "channel": "C0SIDE"}, linked

        await eventually(lambda: room_app.rooms.loaded("side") is None, 20, what="side unloads")
        talk = await slack.message_event("UBOB", "C0SIDE", "lunch, anyone?")  # the channel's own
        # The front took it (its id is among the deliveries it keeps), then handled it: slack_sdk
        # hands each message a task of its own, so a later event would prove nothing.
        taken = state_dir / "bridges" / "slack-deliveries.json"
        await eventually(lambda: taken.exists() and talk in json.loads(taken.read_text())["seen"])
        [front] = [b.front for b in room_app.fronts.bridges if b.service.name == "slack"]
        await front.settled()
        assert room_app.rooms.loaded("side") is None, "no room opens for it"
        asked = await api(people.MEMBER, "POST", "rooms", "side", "prompts", body={"text": "wake"})
        assert asked.code == 202, asked
        await eventually(lambda: any("asked: wake" in m["text"] for m in slack.messages), 15)
        [message] = [m for m in slack.messages if "asked: wake" in m["text"]]
        assert message["channel"] == "C0SIDE"
        await eventually(
            lambda: "Completed." in [m["text"] for m in slack.thread(message["ts"])], 60
        )
