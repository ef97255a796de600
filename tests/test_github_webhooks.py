"""What comes in from GitHub, against a running server, the real Copilot runtime with the
scripted model, and the fake GitHub: GitHub's own recorded deliveries (`@octokit/webhooks-examples`)
in both content types a hook may use, comments edited and deleted, mentions only in prose, and
the round cap between two agents. Most tests hear by webhook alone (the room polls once, at the
link); one hears an edit by polling."""

import copy
import json
from pathlib import Path
from urllib.parse import urlencode

import pytest

from jupyter_copilot_room.agent.scripted_model import Reply
from jupyter_copilot_room.fronts.github.markers import marker_of

from .harness import people
from .harness.fake_github_rest import API, FakeGitHub, delivery, sign
from .harness.helpers import ask_to_run, eventually, served
from .test_github_pull import PULL, SECRET, TOKEN, linked, markers, task_states

PARTNERS = Path(__file__).parent / "partners"  # pinned in its package-lock.json
FORM = "application/x-www-form-urlencoded"
EXAMPLES = PARTNERS / "node_modules/@octokit/webhooks-examples/api.github.com/index.json"
#: Who comments here, as the room knows them (GitHub's example user is Codertocat).
LOGINS = {"Codertocat": "bob", "bob": "bob", "agent-one": "bob", "agent-two": "erin"}


def example(event: str, action: str) -> dict:
    """GitHub's recorded delivery of `event`/`action`, on this test's repository and pull
    request (its comment as it is on GitHub, whose id the room hears)."""
    recorded = json.loads(EXAMPLES.read_text())
    (kind,) = [e for e in recorded if e["name"] == event]
    payload = copy.deepcopy(next(x for x in kind["examples"] if x["action"] == action))
    payload["repository"]["full_name"] = "acme/lab"
    payload["issue" if event == "issue_comment" else "pull_request"]["number"] = PULL
    return payload


@pytest.fixture
def github(jp_asyncio_loop):
    fake = FakeGitHub(repository="acme/lab", token=TOKEN)
    fake.permissions.update(dict.fromkeys(LOGINS, "write"))
    yield from served(fake, jp_asyncio_loop)


@pytest.fixture
def poll_interval():
    return 3600.0  # the link's first poll only: what the room hears comes by webhook


@pytest.fixture
def room_config(copilot_config, github, poll_interval, monkeypatch):
    monkeypatch.setenv("COPILOT_ROOM_GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("HOOK_SECRET", SECRET)
    settings = {"repository": "acme/lab", "api_url": github.base_url, "people": LOGINS}
    settings |= {"poll_interval": poll_interval, "webhook_secret_env": "HOOK_SECRET"}
    return {**copilot_config, "members": [people.MEMBER, "erin"], "github": settings}


@pytest.fixture
def deliver(jp_fetch):
    """POST a delivery to the server's webhook as GitHub does: the answer's status."""

    async def post(event, payload, form=False, guid=None, headers=None, body=None):
        sent, signed = delivery(event, payload, SECRET, form=form, guid=guid)
        sent |= {"Authorization": "", **(headers or {})}  # GitHub holds no Jupyter login
        r = await jp_fetch(
            "copilot-room",
            "github",
            "webhook",
            method="POST",
            body=signed if body is None else body,
            headers=sent,
            raise_error=False,
        )
        return r.code

    return post


def prompts(room):
    return [e for e in room.document.transcript.to_py() if e["kind"] == "prompt"]


async def heard_so_far(github, deliver):
    """Until the room has handled every delivery before this one: it handles them in order, and
    a later `/approve` with nothing waiting gets the room's answer, an observed later marker."""
    marker = github.comment("bob", "/approve")
    assert await deliver(*github.webhook_payload(marker)) == 204
    await eventually(lambda: marker["id"] in [m.get("reply_to") for m in markers(github) if m])


@pytest.mark.parametrize("form", [False, True], ids=["json", "form"])
async def test_githubs_recorded_comment_deliveries_are_heard_created_edited_deleted(
    api, github, room, model, deliver, form
):
    model.script = lambda request: Reply("Hello from the room.")
    name = await linked(api, github, room)
    created = example("issue_comment", "created")  # "You are totally right! ..."
    edited = example("issue_comment", "edited")
    edited["comment"]["body"] = f"@{name} say hello"

    assert await deliver("issue_comment", created, form) == 204
    await heard_so_far(github, deliver)
    assert not prompts(room) and task_states(github) == []  # a plain comment asks nothing
    assert await deliver("issue_comment", edited, form, guid="edit-1") == 204

    await eventually(lambda: task_states(github)[-1:] == ["completed"], timeout=30)
    (prompt,) = prompts(room)
    assert (prompt["author"], prompt["body"]) == ("bob", "say hello")
    assert prompt["link"] == edited["comment"]["html_url"]
    again = copy.deepcopy(edited)
    again["comment"] |= {"body": f"@{name} say it twice", "updated_at": "2019-05-15T15:21:00Z"}
    assert await deliver("issue_comment", edited, form, guid="edit-1") == 204  # redelivered
    assert await deliver("issue_comment", again, form) == 204  # edited once more
    assert await deliver("issue_comment", example("issue_comment", "deleted"), form) == 204

    review = example("pull_request_review_comment", "created")  # "Maybe you should use ..."
    assert await deliver("pull_request_review_comment", review, form) == 204
    review_edit = example("pull_request_review_comment", "edited")  # recorded with the same time
    review_edit["comment"]["body"] = f"@{name} say hello on this line"
    review_edit["comment"]["pull_request_url"] = f"{API}/repos/acme/lab/pulls/{PULL}"
    github.review_comments.append(copy.deepcopy(review_edit["comment"]))  # on GitHub, as it is
    assert await deliver("pull_request_review_comment", review_edit, form) == 204

    await eventually(lambda: task_states(github, "t2")[-1:] == ["completed"], timeout=30)
    thread = [c for c in github.review_comments if c["user"]["login"] == github.bot_login]
    assert thread and {c["in_reply_to_id"] for c in thread} == {review_edit["comment"]["id"]}
    gone = example("pull_request_review_comment", "deleted")
    assert await deliver("pull_request_review_comment", gone, form) == 204
    await heard_so_far(github, deliver)  # an ended task's deleted comment changes nothing
    assert [p["body"] for p in prompts(room)] == ["say hello", "say hello on this line"]
    assert {m["task"] for m in markers(github) if m and "task" in m} == {"t1", "t2"}


async def test_a_webhook_in_neither_content_type_or_signed_otherwise_is_refused(
    api, github, room, deliver
):
    await linked(api, github, room)
    payload = example("issue_comment", "created")
    text = json.dumps(payload).encode()

    plain = await deliver("issue_comment", payload, headers={"Content-Type": "text/plain"})
    # what an HTTP client sends when not told (tornado's labels any POST a form): JSON it is
    unlabeled = await deliver("issue_comment", payload, headers={"Content-Type": FORM})
    no_field = urlencode({"body": text}).encode()
    empty_form = await deliver(
        "issue_comment",
        payload,
        form=True,
        body=no_field,
        headers={"X-Hub-Signature-256": sign(SECRET, no_field)},
    )
    resigned = await deliver(  # the JSON's signature on the form that carries it: not GitHub's
        "issue_comment", payload, form=True, headers={"X-Hub-Signature-256": sign(SECRET, text)}
    )

    assert (plain, unlabeled, empty_form, resigned) == (400, 204, 400, 401)


async def test_an_edit_that_makes_a_comment_a_mention_opens_its_task_once(
    api, github, room, model, deliver
):
    model.script = lambda request: Reply("Hello from the room.")
    name = await linked(api, github, room)
    plain = github.comment("bob", "Looks good to me")
    assert await deliver(*github.webhook_payload(plain)) == 204
    acted = github.comment("bob", f"@{name} say hello")
    assert await deliver(*github.webhook_payload(acted)) == 204
    await eventually(lambda: task_states(github)[-1:] == ["completed"], timeout=30)

    first = github.edit(plain, f"@{name} say it after all")
    assert await deliver(*github.webhook_payload(plain, "edited", first)) == 204
    await eventually(lambda: task_states(github, "t2")[-1:] == ["completed"], timeout=30)
    second = github.edit(plain, f"@{name} and once more")
    assert await deliver(*github.webhook_payload(plain, "edited", second)) == 204
    changed = github.edit(acted, f"@{name} say something else")
    assert await deliver(*github.webhook_payload(acted, "edited", changed)) == 204

    await heard_so_far(github, deliver)
    assert [p["body"] for p in prompts(room)] == ["say hello", "say it after all"]
    assert {m["task"] for m in markers(github) if m and "task" in m} == {"t1", "t2"}


@pytest.mark.parametrize("poll_interval", [0.2])
async def test_a_polled_comment_whose_updated_at_changed_is_an_edit(api, github, room, model):
    model.script = lambda request: Reply("Hello from the room.")
    name = await linked(api, github, room)
    plain = github.comment("bob", "I will ask later")
    await github.polled()  # polled as it is: nothing asked

    github.edit(plain, f"@{name} say hello")

    await eventually(lambda: task_states(github)[-1:] == ["completed"], timeout=30)
    github.edit(plain, f"@{name} say hello again")
    await github.polled()  # more polls
    assert [p["body"] for p in prompts(room)] == ["say hello"]


async def test_deleting_a_queued_tasks_comment_withdraws_it_and_a_running_one_goes_on(
    api, github, room, model, deliver, state_dir
):
    model.script = ask_to_run  # the first task waits on its card, so the second stays queued
    name = await linked(api, github, room)
    running = github.comment("bob", f"@{name} run the tests")
    assert await deliver(*github.webhook_payload(running)) == 204
    await eventually(lambda: task_states(github)[-1:] == ["input-required"], timeout=30)
    queued = github.comment("bob", f"@{name} then say hello")
    assert await deliver(*github.webhook_payload(queued)) == 204
    await eventually(lambda: task_states(github, "t2") == ["submitted"], timeout=10)

    github.delete(queued)
    gone = github.webhook_payload(queued, "deleted")
    assert await deliver(*gone, guid="gone-1") == 204
    github.delete(running)
    assert await deliver(*github.webhook_payload(running, "deleted")) == 204

    await eventually(lambda: task_states(github, "t2")[-1:] == ["canceled"], timeout=10)
    records = [json.loads(line) for line in room.transcript.read_text().splitlines()]
    (withdrawn,) = [r for r in records if r["kind"] == "prompt.withdrawn"]
    assert withdrawn["actor"] == "bob"  # as its author, through the room's API
    assert room.turns.queue.next_up() is None

    def t1():
        return [body for _, body in github.written if marker_of(body).get("task") == "t1"]

    await eventually(lambda: "was deleted" in t1()[-1], timeout=10)
    assert marker_of(t1()[-1])["state"] == "input-required"
    card = next(e for e in room.document.transcript.to_py() if e["kind"] == "permission")
    assert card["state"] == "pending"  # its turn goes on
    assert await deliver(*gone, guid="gone-1") == 204  # GitHub redelivers
    written = len(github.written)
    later = github.comment("bob", "looks good so far")  # passed over, after the redelivery
    assert await deliver(*github.webhook_payload(later)) == 204
    link = state_dir / "github" / "main.json"
    await eventually(lambda: str(later["id"]) in json.loads(link.read_text())["passed"])
    assert len(github.written) == written


@pytest.mark.parametrize("poll_interval", [0.2])
async def test_a_mention_in_indented_code_opens_nothing(api, github, room, model):
    model.script = lambda request: Reply("Hello from the room.")
    name = await linked(api, github, room)

    github.comment("bob", f"Try this:\n\n    @{name} delete everything\n")
    github.comment("bob", f"    @{name} delete everything")
    github.comment("bob", f"@{name} say hello")

    await eventually(lambda: task_states(github)[-1:] == ["completed"], timeout=30)
    assert [p["body"] for p in prompts(room)] == ["say hello"]
    assert {m["task"] for m in markers(github) if m and "task" in m} == {"t1"}


@pytest.mark.parametrize("poll_interval", [0.2])
async def test_two_agents_talking_through_a_task_stop_at_its_cap(api, github, room, model):
    model.script = lambda request: Reply("Hello from the room.")
    name = await linked(api, github, room)  # the cap is 6 rounds
    github.comment("bob", f"@{name} say hello")  # round 1; the room's Message, round 2
    await eventually(lambda: task_states(github)[-1:] == ["completed"], timeout=30)

    said, turns = [], []
    for turn in range(6):  # each agent answers the room's last reply
        before = len(github.written)
        agent = ("agent-one", "agent-two")[turn % 2]
        turns.append(github.comment(agent, f"@{name} task t1: your turn {turn}"))
        if turn < 3:
            await eventually(lambda b=before: len(github.written) > b, timeout=10)
            said.append(marker_of(github.written[-1][1]))
        else:
            await github.polled()

    replies, failed = said[:2], said[2]
    assert [m["reply_to"] for m in replies] and all(m["task"] == "t1" for m in replies)
    assert (failed["task"], failed["state"], failed["round"]) == ("t1", "failed", 6)
    assert "cap of 6 rounds" in github.written[-1][1]
    assert [m.get("state") for m in markers(github) if m.get("task") == "t1"].count("failed") == 1
    assert marker_of(github.written[-1][1]) == failed  # nothing after it
    (failure,) = [c for c in github.issue_comments if marker_of(c["body"]) == failed]
    assert turns[2]["id"] < failure["id"] < turns[3]["id"]  # a new comment below the last turn
