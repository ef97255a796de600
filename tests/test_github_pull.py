"""The room on a pull request, end to end: a real server, the real Copilot runtime with the
scripted model, and a local fake of GitHub's REST API (`harness/fake_github_rest.py`) that the
room reaches through githubkit. People act by commenting on the fake; the room answers there."""

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.fronts.github.markers import marker_of

from .harness import people
from .harness.fake_github_rest import FakeGitHub, delivery, sign
from .harness.helpers import READY, ask_to_run, eventually, link_notes, served

TOKEN, SECRET = "gh-test-token", "hook-secret-5b1e"
PULL = 7


@pytest.fixture
def github(jp_asyncio_loop):
    fake = FakeGitHub(repository="acme/lab", token=TOKEN)
    fake.permissions.update({"alice": "admin", "bob": "write", "erin": "maintain", "carol": "read"})
    yield from served(fake, jp_asyncio_loop)


@pytest.fixture
def github_settings(github):
    return {
        "repository": "acme/lab",
        "api_url": github.base_url,
        "poll_interval": 0.2,
        "match_logins": True,  # the test server's usernames are the fake's logins
        "webhook_secret_env": "HOOK_SECRET",
    }


@pytest.fixture
def room_config(copilot_config, github_settings, monkeypatch):
    monkeypatch.setenv("COPILOT_ROOM_GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("HOOK_SECRET", SECRET)
    return {**copilot_config, "members": [people.MEMBER, "erin"], "github": github_settings}


def markers(github, comment_id=None):
    """The markers of every body the room wrote, in order (of one comment's, if given)."""
    return [
        marker_of(body) for cid, body in github.written if comment_id is None or cid == comment_id
    ]


def task_states(github, task="t1"):
    return [
        m["state"] for m in markers(github) if m and m.get("task") == task and "reply_to" not in m
    ]


async def linked(api, github, room):
    github.add_pull(PULL)
    await room.ensure_started()
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=READY)
    r = await api(people.HOST, "POST", "github", "pull", body={"number": PULL})
    assert r.code == 200, r
    await eventually(lambda: any(m and "card" in m for m in markers(github)), timeout=10)
    return next(m for m in markers(github) if m and "card" in m)["card"]["name"]


async def test_a_host_links_the_room_and_its_card_is_posted_once(api, github, room):
    github.add_pull(PULL)
    member = await api(people.MEMBER, "POST", "github", "pull", body={"number": PULL})
    assert member.code == 403
    missing = await api(people.HOST, "POST", "github", "pull", body={"number": 99})
    assert (missing.code, missing.json["error"]) == (404, "no_pull")

    r = await api(people.HOST, "POST", "github", "pull", body={"number": PULL})

    assert r.code == 200
    assert r.json == {
        "number": PULL,
        "url": f"https://github.example/acme/lab/pull/{PULL}",
        "state": "open",
    }
    await eventually(lambda: github.comments_by(github.bot_login), timeout=10)
    (card,) = github.comments_by(github.bot_login)
    data = marker_of(card["body"])
    assert data == {"card": {"name": "copilot-room", "skills": []}}
    assert card["body"].count("<!-- copilot-room ") == 1
    assert "@copilot-room" in card["body"].split("-->", 1)[1]  # prose for people

    again = await api(people.HOST, "POST", "github", "pull", body={"number": PULL})
    assert again.code == 200
    await github.polled()
    assert len(github.comments_by(github.bot_login)) == 1
    put_on = (people.HOST, f"{{0}} put this room on pull request #{PULL}.")
    assert link_notes(room) == [put_on], "the audit trail: once, naming the host"
    gone = await api(people.HOST, "DELETE", "github", "pull")
    assert gone.code == 204
    assert link_notes(room) == [
        put_on,
        (people.HOST, f"{{0}} took this room off pull request #{PULL}."),
    ]


async def test_a_writers_task_runs_and_its_card_is_approved_on_the_pull_request(
    api, github, room, model
):
    model.script = ask_to_run
    name = await linked(api, github, room)

    asked = github.comment("bob", f"@{name} run the tests please")

    await eventually(lambda: "input-required" in task_states(github), timeout=30)
    entry = next(e for e in room.document.transcript.to_py() if e["kind"] == "prompt")
    assert (entry["author"], entry["link"]) == ("bob", asked["html_url"])
    waiting = markers(github)[-1]
    assert waiting == {"task": "t1", "state": "input-required", "agent": name, "round": 2}
    assert "echo 3 passed" in github.written[-1][1]
    how = (
        "To answer: `/approve t1` or `/reject t1 [reason]`, by @\u200bbob (who asked for this turn)"
    )
    assert how + " or a host, with write access" in github.written[-1][1]  # not the command alone

    github.comment("bob", "/approve")

    await eventually(lambda: "completed" in task_states(github), timeout=30)
    assert task_states(github) == ["submitted", "working", "input-required", "working", "completed"]
    last = [body for _, body in github.written if marker_of(body).get("state") == "completed"][-1]
    assert "It printed: 3 passed" in last
    prompt = next(e for e in room.document.transcript.to_py() if e["kind"] == "permission")
    assert prompt["state"] == "approved"


async def test_a_readers_mention_is_rejected_and_nothing_is_queued(api, github, room):
    name = await linked(api, github, room)

    github.comment("carol", f"@{name} delete the tests")

    await eventually(lambda: task_states(github) == ["rejected"], timeout=10)
    body = github.written[-1][1]
    assert "carol cannot write to acme/lab" in body
    assert room.turns.queue.next_up() is None
    assert not [e for e in room.document.transcript.to_py() if e["kind"] == "prompt"]


async def test_an_approve_from_someone_the_card_does_not_wait_on_changes_nothing(
    api, github, room, model
):
    model.script = ask_to_run
    name = await linked(api, github, room)
    github.comment("bob", f"@{name} run the tests")
    await eventually(lambda: "input-required" in task_states(github), timeout=30)

    github.comment("erin", "/approve t1")  # a member who writes, but not the card's author
    github.comment("carol", "/approve")  # a reader

    await eventually(lambda: len([m for m in markers(github) if "reply_to" in m]) == 2, timeout=10)
    refusals = [body for _, body in github.written if "reply_to" in marker_of(body)]
    assert all(
        "Only @\u200bbob (who asked for this turn) or a host may answer" in r for r in refusals
    )
    card = next(e for e in room.document.transcript.to_py() if e["kind"] == "permission")
    assert card["state"] == "pending"
    assert task_states(github)[-1] == "input-required"


async def test_the_round_cap_fails_a_task_that_goes_on_too_long(api, github, room, model):
    model.script = ask_to_run
    room_app_settings = room  # the cap is 2: the mention (1), the room's Message (2)
    name = await linked(api, github, room_app_settings)
    github.comment("bob", f"@{name} run the tests")
    await eventually(lambda: "input-required" in task_states(github), timeout=30)

    github.comment("bob", "/approve")

    await eventually(lambda: task_states(github)[-1] == "failed", timeout=10)
    (failed,) = [m for m in markers(github) if m.get("state") == "failed"]
    assert failed["round"] == 2
    assert "cap of 2 rounds" in github.written[-1][1]
    card = next(e for e in room.document.transcript.to_py() if e["kind"] == "permission")
    assert card["state"] == "pending"  # the room did not act on the comment past the cap
    await github.polled()
    assert task_states(github)[-1] == "failed"  # a terminal task takes no further Message


@pytest.fixture
def capped(github_settings):
    github_settings["max_rounds"] = 2


test_the_round_cap_fails_a_task_that_goes_on_too_long = pytest.mark.usefixtures("capped")(
    test_the_round_cap_fails_a_task_that_goes_on_too_long
)


async def test_a_comment_seen_by_poll_and_by_webhook_is_handled_once(
    api, github, room, model, jp_fetch
):
    model.script = lambda request: Reply("Hello from the room.")
    name = await linked(api, github, room)
    comment = github.comment("bob", f"@{name} say hello")
    headers, body = delivery(*github.webhook_payload(comment), SECRET)
    headers["Authorization"] = ""  # GitHub holds no Jupyter login

    forged = headers | {"X-Hub-Signature-256": sign("wrong", body)}
    webhook = ("copilot-room", "github", "webhook")
    r = await jp_fetch(*webhook, method="POST", body=body, headers=forged, raise_error=False)
    assert r.code == 401
    for _ in range(2):
        r = await jp_fetch(*webhook, method="POST", body=body, headers=headers, raise_error=False)
        assert r.code == 204

    await eventually(lambda: "completed" in task_states(github), timeout=30)
    await github.polled()  # more polls
    prompts = [e for e in room.document.transcript.to_py() if e["kind"] == "prompt"]
    assert len(prompts) == 1
    assert len({m["task"] for m in markers(github) if m and "task" in m}) == 1


async def test_a_review_comment_opens_a_task_answered_in_its_thread(api, github, room, model):
    model.script = ask_to_run
    name = await linked(api, github, room)

    root = github.review_comment("bob", f"@{name} run the tests on this line", line=3)
    await eventually(lambda: "input-required" in task_states(github), timeout=30)
    github.review_comment("bob", "/approve", in_reply_to=root["id"])  # in the task's thread

    await eventually(lambda: "completed" in task_states(github), timeout=30)
    room_replies = [c for c in github.review_comments if c["user"]["login"] == github.bot_login]
    assert room_replies and all(c["in_reply_to_id"] == root["id"] for c in room_replies)
    on_the_pull = [c for c in github.issue_comments if c["user"]["login"] == github.bot_login]
    assert [marker_of(c["body"]).keys() for c in on_the_pull] == [{"card"}]  # the card alone
    assert task_states(github) == ["submitted", "working", "input-required", "working", "completed"]
