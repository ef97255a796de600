"""Each supported ACP agent's profile (`agent/acp/agent_profiles.py`): the settings the room
writes in the agent's home so that it asks before every command and write, and the refusal of an
agent the room knows no profile for unless the host accepts it as it is."""

import json
import tomllib
from pathlib import Path

import pytest

from jupyter_copilot_room.agent.acp.agent_profiles import CODEX_SAFE, profile_of
from jupyter_copilot_room.agent.acp.agent_spec import AcpAgentSpec


@pytest.mark.parametrize(
    ("command", "profile"),
    [
        (["/opt/copilot", "--acp"], "copilot"),
        (["/x/node_modules/.bin/claude-agent-acp"], "claude-code"),
        (["codex-acp"], "codex"),
        (["gemini", "--acp"], "gemini-cli"),
        (["gemini"], None),  # not serving ACP
        (["python", "my_agent.py"], None),
    ],
)
def test_an_agent_is_known_by_its_command(command, profile):
    known = profile_of(tuple(command))
    assert (known.name if known else None) == profile


def test_an_agent_without_a_profile_runs_only_when_the_host_accepts_it_as_it_is():
    unknown = AcpAgentSpec.parse("mine", {"acp": ["python", "agent.py"], "title": "Mine"})
    assert "c.CopilotRoom.agents['mine']['asks'] = 'own'" in unknown.refusal()
    assert "\n" not in unknown.refusal(), "one line"
    accepted = AcpAgentSpec.parse("mine", {"acp": ["python", "agent.py"], "asks": "own"})
    assert accepted.refusal() is None
    assert accepted.shown_title == "mine (decides some commands itself)"
    claude = AcpAgentSpec.parse("claude", {"acp": ["claude-agent-acp"], "title": "Claude Code"})
    assert (claude.refusal(), claude.shown_title) == (None, "Claude Code")
    with pytest.raises(ValueError, match=r"\['asks'\] must be 'own'"):
        AcpAgentSpec.parse("mine", {"acp": ["x"], "asks": "always"})


def test_claude_codes_settings_ask_before_every_command_and_change(tmp_path):
    profile = profile_of(("claude-agent-acp",))
    start = profile.start(tmp_path, {})
    settings = json.loads((tmp_path / ".claude" / "settings.json").read_text())
    assert {"Bash", "Write", "Edit", "NotebookEdit"} <= set(settings["permissions"]["ask"])
    assert settings["disableAllHooks"] is True
    assert start.env == {"CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}
    # The repository's settings are not read; its mode is the room's, set on every session.
    assert profile.session_meta == {"claudeCode": {"options": {"settingSources": ["user"]}}}
    assert profile.session_mode == "default"


def test_codexs_home_is_the_rooms_with_the_hosts_provider_and_every_command_asking(tmp_path):
    hosts = tmp_path / "hosts-codex"
    hosts.mkdir()
    (hosts / "config.toml").write_text(
        'model = "gpt-5.4"\n[projects."/repo"]\ntrust_level = "trusted"\n'
    )
    home = tmp_path / "home"
    start = profile_of(("codex-acp",)).start(home, {"CODEX_HOME": str(hosts)})
    assert start.env == {"CODEX_HOME": str(home / ".codex")}
    assert tomllib.loads((home / ".codex" / "config.toml").read_text())["model"] == "gpt-5.4"
    overrides = dict(arg.split("=", 1) for arg in start.args[1::2])
    assert overrides == {"approval_policy": '"untrusted"', "sandbox_mode": '"danger-full-access"'}
    rules = (home / ".codex" / "rules" / "default.rules").read_text()
    assert 'prefix_rule(pattern=["ls"], decision="prompt")' in rules
    assert rules.count("prefix_rule") == len(CODEX_SAFE)
    # An "always" Codex appended to its rules in an earlier run is gone at the next start.
    (home / ".codex" / "rules" / "default.rules").write_text(
        'prefix_rule(pattern=["rm"], decision="allow")\n'
    )
    profile_of(("codex-acp",)).start(home, {"CODEX_HOME": str(hosts)})
    assert "allow" not in (home / ".codex" / "rules" / "default.rules").read_text()


def test_gemini_clis_policy_asks_for_every_command_and_write(tmp_path):
    """At the admin tier, which no user or repository policy outranks; the room's reads are
    not offered (Gemini cannot create a file through them), nor MCP (it needs trust)."""
    profile = profile_of(("gemini", "--acp"))
    start = profile.start(tmp_path, {})
    assert start.args[0] == "--admin-policy"
    policy = tomllib.loads(Path(start.args[1]).read_text())
    rules = {str(rule["toolName"]): rule for rule in policy["rule"]}
    assert rules["run_shell_command"]["decision"] == "ask_user"
    assert rules["run_shell_command"]["argsPattern"] == ".*", "its 'safe' commands too"
    assert rules["['write_file', 'replace', 'invoke_agent']"]["decision"] == "ask_user"
    assert profile.auth_method == "gemini-api-key"
    assert not profile.room_reads and "trusted folder" in profile.no_mcp


def test_an_agent_without_a_configured_title_is_called_by_its_profiles_not_its_key():
    copilot = AcpAgentSpec.parse("copilot-acp", {"acp": ["copilot", "--acp"]})
    assert (copilot.title, copilot.shown_title) == ("Copilot CLI", "Copilot CLI")
    named = AcpAgentSpec.parse("copilot-acp", {"acp": ["copilot", "--acp"], "title": "Ours"})
    assert named.title == "Ours"  # the host's title wins
