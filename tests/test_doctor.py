"""`jupyter copilot-room doctor` and hosts' `GET doctor` (issue 54): the setup the server reads,
checked against the local fakes (Slack, GitHub, Teams' Entra ID) and the scripted ACP agent.
A good setup is all ok (exit 0); each thing that cannot work is one clear line with what to do
(exit 1); no token's value is ever printed."""

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
import yaml
from traitlets.config import Config

from jupyter_copilot_room.agent.login_variables import TOKEN_VARIABLES
from jupyter_copilot_room.doctor.checkup import public_url
from jupyter_copilot_room.fronts.slack.slack_settings import BOT_SCOPES

from .harness import people
from .harness.fake_github_rest import FakeGitHub
from .harness.fake_slack import FakeSlack
from .harness.fake_teams import FakeTeams
from .harness.helpers import served
from .harness.server import BIN, python_path

SCRIPTED = Path(__file__).parent / "agents" / "scripted_acp_agent.py"
GITHUB_TOKEN = "gh-doctor-token-7f3e9a"
SLACK_BOT, SLACK_APP = "xoxb-doctor-1a2b3c", "xapp-doctor-4d5e6f"
HOOK_SECRET = "hook-secret-8c7d6e"
SECRETS = (GITHUB_TOKEN, SLACK_BOT, SLACK_APP, HOOK_SECRET, "teams-secret")


@pytest.fixture
def slack(jp_asyncio_loop):
    yield from served(FakeSlack(bot_token=SLACK_BOT, app_token=SLACK_APP), jp_asyncio_loop)


@pytest.fixture
def github(jp_asyncio_loop):
    fake = FakeGitHub(repository="acme/lab", token=GITHUB_TOKEN)
    fake.permissions[fake.bot_login] = "write"
    fake.seats["acme"] = {"alice", "bob"}
    yield from served(fake, jp_asyncio_loop)


@pytest.fixture
def teams(jp_asyncio_loop):
    yield from served(FakeTeams(), jp_asyncio_loop)


@pytest.fixture
def setup(slack, github, teams):
    """`c.CopilotRoom` for every front and an ACP agent, each at its fake."""
    return {
        "github": {
            "repository": "acme/lab",
            "api_url": github.base_url,
            "webhook_secret_env": "HOOK_SECRET",
            "seat_check": {"org": "acme", "token_env": "GITHUB_ADMIN_TOKEN"},
        },
        "slack": {"api_url": slack.api_url},
        "teams": {
            "app_id": teams.app_id,
            "tenant_id": teams.tenant,
            "login_url": teams.login_url,
            "service_url": teams.service_url,
            "openid_url": teams.openid_url,
        },
        "agents": {
            "scripted": {
                "acp": [sys.executable, str(SCRIPTED)],
                "title": "Scripted",
                "asks": "own",
                "env": {"SCRIPTED_ACP_AUTH": "scripted-key"},
            }
        },
    }


@pytest.fixture
def environment(tmp_path, teams):
    """The doctor's environment: the fronts' secrets, no Copilot login, a home of its own."""
    env = {k: v for k, v in os.environ.items() if k not in TOKEN_VARIABLES}
    env.pop("JUPYTER_CONFIG_PATH", None)
    return {
        **env,
        "PYTHONPATH": python_path(),
        "HOME": str(tmp_path / "home"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "COPILOT_ROOM_GITHUB_TOKEN": GITHUB_TOKEN,
        "GITHUB_ADMIN_TOKEN": GITHUB_TOKEN,
        "HOOK_SECRET": HOOK_SECRET,
        "SLACK_BOT_TOKEN": SLACK_BOT,
        "SLACK_APP_TOKEN": SLACK_APP,
        "TEAMS_APP_SECRET": teams.secret,
        "REQUESTS_CA_BUNDLE": teams.ca_file,  # MSAL trusts the fake's Entra ID
        "JUPYTERHUB_PUBLIC_URL": "https://hub.example.org",
        "JUPYTERHUB_SERVICE_PREFIX": "/user/alice/",
    }


async def doctor(environment: dict, *args: str) -> tuple[int, str]:
    """`jupyter copilot-room doctor`, run as a host runs it; its exit status and output."""
    process = await asyncio.create_subprocess_exec(
        str(BIN / "jupyter-copilot-room"),
        "doctor",
        *args,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 120)
    said = out.decode()
    assert not any(secret in said for secret in SECRETS), said
    return process.returncode, said


def lines(said: str, mark: str) -> list[str]:
    return [line for line in said.splitlines() if line.startswith(mark)]


async def test_a_good_setup_read_from_the_config_path_is_all_ok(setup, environment):
    config = Path(environment["JUPYTER_CONFIG_DIR"])
    config.mkdir()
    (config / "jupyter_server_config.json").write_text(json.dumps({"CopilotRoom": setup}))
    code, said = await doctor(environment)
    assert code == 0, said
    assert lines(said, "NO") == []
    oks = "\n".join(lines(said, "ok"))
    for found in (
        "Copilot runtime: 1.0.102",
        "Model: no Copilot login in the environment: demo mode",
        "GitHub token: the token in COPILOT_ROOM_GITHUB_TOKEN is copilot-room-bot's",
        "GitHub repository: copilot-room-bot has write on acme/lab",
        "GitHub comments: webhooks signed with the secret in HOOK_SECRET, and polling every 15 s",
        "GitHub seat check: the token in GITHUB_ADMIN_TOKEN reads acme's Copilot seats (2)",
        "Slack bot token: the token in SLACK_BOT_TOKEN is the bot room-bot's",
        "Slack scopes: all the manifest's",
        "Slack Socket Mode: opens with the app token in SLACK_APP_TOKEN",
        "Teams token: Entra ID gives the app",
        "Teams endpoint: set the bot's messaging endpoint to "
        "https://hub.example.org/user/alice/copilot-room/teams/messages",
        "Agent scripted: Scripted (decides some commands itself) starts and answers initialize; "
        "authentication it announces: scripted-key",
    ):
        assert found in oks, said


def bad_slack_token(setup, environment, fakes):
    environment["SLACK_BOT_TOKEN"] = "xoxb-not-the-bots"
    return "Slack bot token: Slack refuses the token in SLACK_BOT_TOKEN (invalid_auth)"


def slack_scope_missing(setup, environment, fakes):
    fakes["slack"].scopes.remove("users:read")
    return "Slack scopes: the bot token lacks users:read"


def github_token_without_write(setup, environment, fakes):
    fakes["github"].permissions["copilot-room-bot"] = "read"
    return "GitHub repository: copilot-room-bot has read on acme/lab; the room needs write"


def seat_scope_missing(setup, environment, fakes):
    fakes["github"].billing_refused.add("acme")
    return "GitHub seat check: the token in GITHUB_ADMIN_TOKEN cannot read acme's Copilot seats"


def teams_token_refused(setup, environment, fakes):
    environment["TEAMS_APP_SECRET"] = "not-the-apps-secret"
    return "Teams token: Entra ID refused the bot's credentials"


def acp_agent_does_not_start(setup, environment, fakes):
    broken = [sys.executable, "-c", "import sys; sys.exit(3)"]
    setup["agents"]["broken"] = {"acp": broken, "title": "Broken", "asks": "own"}
    return "Agent broken: Broken ("


@pytest.mark.parametrize(
    "fault",
    [
        bad_slack_token,
        slack_scope_missing,
        github_token_without_write,
        seat_scope_missing,
        teams_token_refused,
        acp_agent_does_not_start,
    ],
)
async def test_each_fault_is_one_clear_line_and_exit_1(
    fault, setup, environment, slack, github, teams, tmp_path
):
    expected = fault(setup, environment, {"slack": slack, "github": github, "teams": teams})
    config = tmp_path / "doctor_config.py"
    config.write_text(f"c.CopilotRoom.update({setup!r})\n")
    code, said = await doctor(environment, f"--config={config}")
    assert code == 1, said
    [failed] = lines(said, "NO")
    assert failed.startswith(f"NO  {expected}"), said
    todo = said.splitlines()[said.splitlines().index(failed) + 1]
    assert todo.startswith("    to do: "), said


async def test_a_wrong_configuration_is_its_one_line(environment, tmp_path):
    config = tmp_path / "doctor_config.py"
    config.write_text("c.CopilotRoom.slack = {'bot_token_env': 'GH_TOKEN'}\n")
    code, said = await doctor(environment, f"--config={config}")
    assert code == 1
    assert lines(said, "NO") == [
        "NO  Configuration: c.CopilotRoom.slack: bot_token_env = 'GH_TOKEN': the Copilot login "
        "reads GH_TOKEN too: with it set, the Slack bot's token would become the seat that pays "
        "and demo mode ends; name another variable, e.g. SLACK_BOT_TOKEN"
    ], said


@pytest.mark.parametrize(
    ("server", "environ", "url"),
    [
        ({}, {}, ""),
        ({"custom_display_url": "https://lab.example.org"}, {}, "https://lab.example.org/"),
        ({"custom_display_url": "https://x.org/", "base_url": "/a/b/"}, {}, "https://x.org/a/b/"),
        (
            {},
            {"JUPYTERHUB_PUBLIC_URL": "https://h.org/", "JUPYTERHUB_SERVICE_PREFIX": "/user/a/"},
            "https://h.org/user/a/",
        ),
    ],
)
def test_the_public_address_comes_from_the_hub_or_the_servers_configuration(server, environ, url):
    config = Config()
    config.ServerApp.update(server)
    assert public_url(config.ServerApp, environ) == url


def test_the_scopes_checked_are_the_manifests_in_the_docs():
    hosts = (Path(__file__).parents[1] / "docs" / "hosts.md").read_text()
    manifest = hosts.split("```yaml\n", 1)[1].split("```", 1)[0]
    scopes = yaml.safe_load(manifest)["oauth_config"]["scopes"]["bot"]
    assert tuple(scopes) == BOT_SCOPES


class TestGetDoctor:
    @pytest.fixture
    def room_config(self, slack, monkeypatch):
        monkeypatch.setenv("SLACK_BOT_TOKEN", SLACK_BOT)
        monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-not-the-apps")
        return {"members": [people.MEMBER], "slack": {"api_url": slack.api_url}}

    async def test_hosts_get_the_same_report_as_json(self, api, room):
        r = await api(people.HOST, "GET", "doctor")
        assert r.code == 200, r
        checks = {check["name"]: check for check in r.json["checks"]}
        assert set(checks["Slack Socket Mode"]) == {"name", "ok", "said", "todo"}
        assert checks["Slack bot token"]["ok"] is True
        assert checks["Slack Socket Mode"]["ok"] is False
        assert "SLACK_APP_TOKEN" in checks["Slack Socket Mode"]["todo"]
        assert not any(secret in r.text for secret in (SLACK_BOT, "xapp-not-the-apps"))

    async def test_a_member_is_refused_as_the_room_refuses(self, api, room):
        r = await api(people.MEMBER, "GET", "doctor")
        assert (r.code, r.json) == (
            403,
            {"error": "forbidden", "message": "Only a host can do that."},
        )
