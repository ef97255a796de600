"""The room on a pull request when things go wrong: GitHub rate-limits, answers 502, refuses the
token, or the server restarts mid-task. The room keeps working, says so in its header, and
handles every comment once (the scripted test agent: `say`, `wait`; the fake GitHub of
`harness/fake_github_rest.py`)."""

import asyncio

import pytest
from tornado.httpclient import AsyncHTTPClient, HTTPRequest

from jupyter_copilot_room.fronts.github.markers import marker_of

from .harness import people
from .harness.fake_github_rest import FakeGitHub, delivery
from .harness.helpers import eventually, served

TOKEN = "gh-test-token"
PULL = 7


@pytest.fixture
def github(jp_asyncio_loop):
    fake = FakeGitHub(repository="acme/lab", token=TOKEN)
    fake.permissions.update({"alice": "admin", "bob": "write"})
    fake.add_pull(PULL)
    yield from served(fake, jp_asyncio_loop)


def settings(github):
    url = github.base_url
    return {"repository": "acme/lab", "api_url": url, "poll_interval": 0.2, "match_logins": True}


def states(github, task):
    return [
        m["state"]
        for _, body in github.written
        if (m := marker_of(body)) and m.get("task") == task and "reply_to" not in m
    ]


def card_name(github):
    return next(m["card"]["name"] for _, b in github.written if "card" in (m := marker_of(b)))


class TestFaults:
    @pytest.fixture
    def room_config(self, github, monkeypatch):
        monkeypatch.setenv("COPILOT_ROOM_GITHUB_TOKEN", TOKEN)
        return {"github": settings(github)}

    async def test_a_rate_limit_and_a_502_are_waited_out_and_nothing_is_lost(
        self, api, github, room
    ):
        assert (await api(people.HOST, "POST", "github", "pull", body={"number": PULL})).code == 200
        await eventually(lambda: github.written, timeout=10)
        name = card_name(github)

        github.rate_limit(1.5)
        github.comment("bob", f"@{name} say hello")
        await eventually(lambda: room.document.meta.get("fronts") == {"github": "waiting"})
        assert states(github, "t1") == []  # nothing acted on while GitHub cannot answer
        await eventually(lambda: states(github, "t1")[-1:] == ["completed"], timeout=10)
        assert room.document.meta.get("fronts") == {}

        github.fail_next(3, status=502)
        github.comment("bob", f"@{name} say again")
        await eventually(lambda: room.document.meta.get("fronts") == {"github": "waiting"})
        await eventually(lambda: states(github, "t2")[-1:] == ["completed"], timeout=40)
        prompts = [e for e in room.document.transcript.to_py() if e["kind"] == "prompt"]
        assert [p["body"] for p in prompts] == ["say hello", "say again"]
        assert states(github, "t1") == ["submitted", "working", "completed"]

    async def test_a_bad_token_is_one_line_and_the_header_says_so(
        self, api, github, room, monkeypatch, caplog
    ):
        github.token = "another-token"  # GitHub no longer takes the room's
        r = await api(people.HOST, "POST", "github", "pull", body={"number": PULL})
        assert (r.code, r.json["error"]) == (503, "github_refused")
        assert "Bad credentials" in r.json["message"]
        github.token = TOKEN
        assert (await api(people.HOST, "POST", "github", "pull", body={"number": PULL})).code == 200
        github.token = "another-token"
        await eventually(lambda: room.document.meta.get("fronts") == {"github": "bad token"})
        tried = len(github.requests)  # each try is refused at its first request
        await eventually(lambda: len(github.requests) >= tried + 2)  # tried again: one line
        lines = [r for r in caplog.records if "GitHub for the room" in r.getMessage()]
        assert len(lines) == 1 and "bad token" in lines[0].getMessage()
        assert not any(r.exc_info for r in caplog.records if r.name.startswith("jupyter_copilot"))
        assert room.turns.queue.next_up() is None


async def test_a_restart_mid_task_goes_on_and_handles_nothing_twice(servers, github):
    server = servers(room={"github": settings(github)}, env={"COPILOT_ROOM_GITHUB_TOKEN": TOKEN})
    await server.start_async()
    r = await server.call(people.HOST, "POST", "github/pull", {"number": PULL})
    assert r.code == 200
    await eventually(lambda: github.written, timeout=20)
    name = card_name(github)
    github.comment("bob", f"@{name} wait")
    github.comment("bob", f"@{name} say after the restart")
    await eventually(lambda: states(github, "t1")[-1:] == ["working"], timeout=20)
    await eventually(lambda: states(github, "t2") == ["submitted"], timeout=20)

    await asyncio.to_thread(server.stop)
    github.comment("bob", f"@{name} say while it was down")
    await server.start_async()

    await eventually(lambda: states(github, "t3")[-1:] == ["completed"], timeout=30)
    assert states(github, "t1") == ["submitted", "working", "failed"]  # the stop cut its turn
    assert states(github, "t2") == ["submitted", "working", "completed"]
    cards = [body for _, body in github.written if "card" in marker_of(body)]
    assert len(cards) == 2 and len(github.comments_by(github.bot_login)) == 4  # edited, not again
    transcript = await server.call(people.HOST, "GET", "transcript")
    prompts = [line for line in transcript.body.decode().splitlines() if "prompt.submitted" in line]
    assert len(prompts) == 3
    await asyncio.to_thread(server.stop)


async def test_deliveries_github_retries_across_a_restart_act_once(servers, github):
    secret = "hook-secret-5b1e"
    room = {"github": settings(github) | {"webhook_secret_env": "HOOK_SECRET"}}
    server = servers(room=room, env={"COPILOT_ROOM_GITHUB_TOKEN": TOKEN, "HOOK_SECRET": secret})
    await server.start_async()
    assert (await server.call(people.HOST, "POST", "github/pull", {"number": PULL})).code == 200
    await eventually(lambda: github.written, timeout=20)
    name = card_name(github)

    async def deliver(headers, body):
        request = HTTPRequest(
            f"{server.url}/copilot-room/github/webhook", "POST", headers=headers, body=body
        )
        return (await AsyncHTTPClient().fetch(request)).code

    comment = github.comment("bob", "I will ask for it later")
    created = delivery(*github.webhook_payload(comment), secret, form=True)
    changes = github.edit(comment, f"@{name} say hello")
    edited = delivery(*github.webhook_payload(comment, "edited", changes), secret, form=True)
    assert await deliver(*created) == await deliver(*edited) == 204
    await eventually(lambda: states(github, "t1")[-1:] == ["completed"], timeout=20)

    await asyncio.to_thread(server.stop)
    await server.start_async()
    assert await deliver(*edited) == await deliver(*created) == 204  # GitHub retries them
    await github.polled()  # and several polls

    assert {m["task"] for _, b in github.written if "task" in (m := marker_of(b))} == {"t1"}
    transcript = await server.call(people.HOST, "GET", "transcript")
    prompts = [line for line in transcript.body.decode().splitlines() if "prompt.submitted" in line]
    assert len(prompts) == 1
    await asyncio.to_thread(server.stop)
