"""GitHub readers know people by their logins: a post that names a room person says `@login`
where one is mapped in `c.CopilotRoom.github["people"]`, the room's display name otherwise, and
never a hex username (a guest's on a server without a hub). End to end: a real server, the real
Copilot runtime with the scripted model, and the fake GitHub."""

import pytest

from jupyter_copilot_room.fronts.github.github_settings import GitHubSettings
from jupyter_copilot_room.fronts.github.markers import marker_of

from .harness import people
from .harness.fake_github_rest import FakeGitHub
from .harness.helpers import READY, ask_to_run, eventually, served

TOKEN, PULL, LOGIN = "gh-test-token", 7, "callirrhoe"


@pytest.fixture
def github(jp_asyncio_loop):
    fake = FakeGitHub(repository="acme/lab", token=TOKEN)
    fake.permissions.update({"alice": "admin", LOGIN: "write", "erin": "maintain"})
    yield from served(fake, jp_asyncio_loop)


@pytest.fixture
def room_config(copilot_config, github, monkeypatch):
    """The guest (a hex username) is a member whose GitHub login is mapped; erin writes too."""
    monkeypatch.setenv("COPILOT_ROOM_GITHUB_TOKEN", TOKEN)
    settings = {
        "repository": "acme/lab",
        "api_url": github.base_url,
        "poll_interval": 0.2,
        "people": {LOGIN: people.GUEST, "erin": "erin"},
    }
    return {**copilot_config, "members": [people.MEMBER, "erin", people.GUEST], "github": settings}


def written(github) -> list[str]:
    return [body for _, body in github.written]


async def test_a_refusal_on_github_names_the_asker_by_their_login_not_their_username(
    api, github, room, model
):
    model.script = ask_to_run
    github.add_pull(PULL)
    await room.ensure_started()
    await eventually(lambda: room.document.meta.get("state") == "idle", timeout=READY)
    assert (await api(people.HOST, "POST", "github", "pull", body={"number": PULL})).code == 200
    await eventually(lambda: any((marker_of(b) or {}).get("card") for b in written(github)))
    name = next(marker_of(b)["card"]["name"] for b in written(github) if marker_of(b))
    github.comment(LOGIN, f"@{name} run the tests")
    await eventually(lambda: any("input-required" in b for b in written(github)), timeout=30)

    github.comment("erin", "/approve t1")  # a writer, but not the card's author

    await eventually(lambda: any("reply_to" in (marker_of(b) or {}) for b in written(github)))
    (refusal,) = [b for b in written(github) if "reply_to" in (marker_of(b) or {})]
    assert f"Only @\u200b{LOGIN} (who asked for this turn) or a host may answer" in refusal
    assert all(people.GUEST not in body for body in written(github))


def test_a_login_is_named_only_where_it_acts_as_that_person():
    mapped = GitHubSettings(repository="acme/lab", people={"octo": "6e62", "erin": "erin"})
    assert (mapped.login_of("6e62"), mapped.login_of("erin"), mapped.login_of("bob")) == (
        "octo",
        "erin",
        None,
    )
    matched = GitHubSettings(repository="acme/lab", people={"octo": "bob"}, match_logins=True)
    assert (matched.login_of("carol"), matched.login_of("bob")) == ("carol", "octo")
    assert matched.login_of("octo") is None  # the login octo acts as bob, not as octo
