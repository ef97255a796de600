"""A front's token can never become the Copilot login (issue 54): a front's variable that the
login reads too (`COPILOT_GITHUB_TOKEN`, `GH_TOKEN`, `GITHUB_TOKEN`) stops the server at start,
saying why and what to name instead; and `GET room`'s agent says where its model access came
from (the login's variable, never its value; the provider; the demo)."""

import re

import pytest

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.copilot.model_access import DEMO_SOURCE, TOKEN_VARIABLES
from jupyter_copilot_room.fronts.github.github_settings import parse_github
from jupyter_copilot_room.fronts.slack.slack_settings import parse_slack
from jupyter_copilot_room.fronts.teams.teams_settings import parse_teams

from .harness import config
from .harness.helpers import eventually
from .harness.server import JupyterServer

TEAMS = {"app_id": "a", "tenant_id": "t"}
REFUSED = [
    (parse_github, {"repository": "acme/lab", "token_env": "GITHUB_TOKEN"}, "the PR bot's token"),
    (parse_github, {"seat_check": {"org": "acme", "token_env": "GH_TOKEN"}}, "seat check's"),
    (parse_slack, {"bot_token_env": "COPILOT_GITHUB_TOKEN"}, "the Slack bot's token"),
    (parse_slack, {"app_token_env": "GITHUB_TOKEN"}, "the Slack app token"),
    (parse_teams, {**TEAMS, "secret_env": "GH_TOKEN"}, "the Teams app's secret"),
]


@pytest.mark.parametrize(("parse", "value", "whose"), REFUSED)
def test_a_front_variable_the_copilot_login_reads_is_refused_with_why(parse, value, whose):
    with pytest.raises(ValueError, match="the Copilot login reads") as refused:
        parse(value)
    said = str(refused.value)
    assert whose in said and "the seat that pays and demo mode ends" in said
    assert "name another variable, e.g." in said


def test_the_pr_bots_token_has_a_variable_of_its_own_by_default():
    settings = parse_github({"repository": "acme/lab", "seat_check": {"org": "acme"}})
    assert settings.token_env == "COPILOT_ROOM_GITHUB_TOKEN"
    assert settings.seat_check.token_env == "COPILOT_ROOM_GITHUB_TOKEN"
    assert settings.token_env not in TOKEN_VARIABLES


def test_a_server_configured_with_a_colliding_token_does_not_start(tmp_path):
    github = {"repository": "acme/lab", "token_env": "GITHUB_TOKEN"}
    server = JupyterServer(tmp_path, room={"github": github}, env={"GITHUB_TOKEN": "ghp-x"})
    server.launch()
    try:
        code = server.process.wait(timeout=60)
    finally:
        server.kill()
    assert code == 1, server.tail()
    said = server.log.read_text()
    assert re.search(
        r"c\.CopilotRoom\.github: token_env = 'GITHUB_TOKEN': the Copilot login reads "
        r"GITHUB_TOKEN too: with it set, the PR bot's token would become the seat that pays and "
        r"demo mode ends; name another variable, e.g\. COPILOT_ROOM_GITHUB_TOKEN",
        said,
    ), server.tail()


@pytest.fixture
def room_config(request, monkeypatch):
    for variable in TOKEN_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    if "provider" in request.node.name:
        return request.getfixturevalue("copilot_config")
    if "variable" in request.node.name:
        monkeypatch.setenv("GH_TOKEN", "gho-secret-login-token-5a6b7c")
    return {"agent_class": CopilotAgent}


async def agent_source(api, room) -> str:
    await api("alice", "GET", "room")
    await eventually(lambda: room.document.meta.get("agent_source"), timeout=60, what="access")
    described = (await api("alice", "GET", "room")).json
    return described["agent"]["agent_source"]


async def test_get_room_says_the_demo_model_answers(api, room):
    assert await agent_source(api, room) == DEMO_SOURCE


async def test_get_room_names_the_provider_and_its_key_variable(api, room, model):
    source = await agent_source(api, room)
    host = model.base_url.split("//")[1].split("/")[0]
    assert source == f"c.CopilotRoom.provider at {host}, its key from {config.MODEL_KEY_ENV}"


async def test_get_room_names_the_variable_of_the_login_never_its_value(api, room):
    assert await agent_source(api, room) == "a Copilot login from GH_TOKEN"
    described = (await api("alice", "GET", "room")).text
    assert "gho-secret-login-token-5a6b7c" not in described
    assert "gho-secret-login-token-5a6b7c" not in room.document.ydoc.get_update().decode("latin-1")
