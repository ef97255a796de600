"""The configuration of the room's outside fronts (`c.CopilotRoom.github`, `.slack`, `.teams`):
declared once, each checked as it is set (a wrong one stops the server, saying what is wrong).
They are traits, not a class, so `CopilotRoom` stays one object: `app.py` builds its
configuration base from these and the room settings' traits (`settings.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from traitlets import Dict, HasTraits, TraitError

from .github.github_settings import parse_github
from .slack.slack_settings import parse_slack
from .teams.teams_settings import parse_teams


class FrontSetting(Dict):
    """One front's dict, parsed by its front's parser as it is set: the trait checks itself, so
    no method on the app has to."""

    def __init__(self, parse: Callable[[Any], object], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parse = parse

    def validate(self, obj: HasTraits | None, value: Any) -> Any:
        value = super().validate(obj, value)
        try:
            self.parse(value)
        except (ValueError, TypeError) as err:
            raise TraitError(f"c.CopilotRoom.{self.name}: {err}") from None
        return value


def front_traits() -> dict[str, FrontSetting]:
    """The configurable traits of `c.CopilotRoom` that configure the outside fronts."""
    return {
        "github": FrontSetting(
            parse_github,
            config=True,
            help="The room on GitHub: {'repository': 'owner/name', 'token_env': "
            "'COPILOT_ROOM_GITHUB_TOKEN', 'api_url': None, 'poll_interval': 15, "
            "'webhook_secret_env': None, 'people': {login: username}, 'match_logins': False, "
            "'max_rounds': 6, 'seat_check': {'org': ..., 'token_env': ...}}. Only logins in "
            "people act, unless match_logins (safe only when the hub signs people in with "
            "GitHub) lets a login act as the same username. With a repository, hosts link a room "
            "to one of its pull requests (POST github/pull) and comments there give the room "
            "tasks; with a seat check, only people with an active Copilot seat in the org may "
            "prompt or come in. Tokens are named by their variable, never one the Copilot login "
            "reads (COPILOT_GITHUB_TOKEN, GH_TOKEN, GITHUB_TOKEN).",
        ),
        "slack": FrontSetting(
            parse_slack,
            config=True,
            help="The room in Slack (Socket Mode): {'bot_token_env': 'SLACK_BOT_TOKEN', "
            "'app_token_env': 'SLACK_APP_TOKEN', 'rooms': {'main': 'C0123'}, 'people': {'U01': "
            "'alice'}, 'api_url': None}: prompts by mention, each turn in a thread, cards with "
            "buttons. Tokens are named by their variable.",
        ),
        "teams": FrontSetting(
            parse_teams,
            config=True,
            help="The room in Microsoft Teams (a bot whose messaging endpoint is "
            "copilot-room/teams/messages): {'app_id': ..., 'tenant_id': ..., 'secret_env': "
            "'TEAMS_APP_SECRET', 'rooms': {'main': '19:...@thread.tacv2'}, 'people': {<Entra "
            "object id>: 'alice'}, 'service_url': None, 'login_url': None, 'openid_url': None}: "
            "prompts by mention, each turn in a thread, cards with buttons. The secret is named by "
            "its variable.",
        ),
    }


def front_secret_variables(github: Any, slack: Any, teams: Any) -> list[str]:
    """The variables holding the fronts' tokens and secrets, as configured: the room redacts
    their values wherever the agent's words could show them, as it does the Copilot login's."""
    names: list[str] = []
    if (hub := parse_github(github)) is not None:
        names += [hub.token_env, *([hub.webhook_secret_env] if hub.webhook_secret_env else [])]
        names += [hub.seat_check.token_env] if hub.seat_check is not None else []
    if (chat := parse_slack(slack)) is not None:
        names += [chat.bot_token_env, chat.app_token_env]
    if (bot := parse_teams(teams)) is not None:
        names.append(bot.secret_env)
    return names
