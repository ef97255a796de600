"""The fronts a server runs from its configuration (`c.CopilotRoom.github`, `.slack`,
`.teams`): built once the rooms' API exists, started on the server's loop, stopped before the
rooms. Each is a client of the API (`api/`); the ones whose settings are commands are reachable
through it (`api/fronts.py`)."""

from __future__ import annotations

from pathlib import Path

from tornado.ioloop import IOLoop

from ..api import RoomsAPI
from .chat.chat_bridge import ChatBridge
from .chat.linked_people import LinkedPeople
from .github.github_settings import GitHubSettings
from .github.pull_requests import PullRequests
from .slack.slack_bridge import SlackBridge
from .slack.slack_settings import SlackSettings
from .teams.teams_bridge import TeamsBridge
from .teams.teams_settings import TeamsSettings


class ServerFronts:
    def __init__(
        self,
        api: RoomsAPI,
        state_dir: Path,
        github: GitHubSettings | None,
        slack: SlackSettings | None,
        teams: TeamsSettings | None,
    ):
        self.pulls = None
        if github is not None and github.repository:
            self.pulls = api.fronts.pulls = PullRequests(github, api, state_dir)
        self.bridges: list[ChatBridge] = []
        chats = {name: chat for name, chat in (("slack", slack), ("teams", teams)) if chat}
        if chats:  # who is who in them, and each room's channel there
            state = state_dir / "bridges"
            people = LinkedPeople(state / "people.json", {n: c.people for n, c in chats.items()})
            api.fronts.links = people
            if slack is not None:
                self.bridges.append(SlackBridge(slack, api, people, state))
            if teams is not None:
                api.fronts.teams = bridge = TeamsBridge(teams, api, people, state)
                self.bridges.append(bridge)
            api.fronts.channels = {b.service.name: b.links for b in self.bridges}
        # They start with the server's loop, also in a server that is never "started" (an
        # in-process test), and reach rooms through the API, which loads them when needed.
        IOLoop.current().add_callback(self._start)

    def _start(self) -> None:
        if self.pulls is not None:
            self.pulls.start()
        for bridge in self.bridges:
            bridge.start()

    async def stop(self) -> None:
        if self.pulls is not None:
            await self.pulls.stop()
        for bridge in self.bridges:
            await bridge.stop()
