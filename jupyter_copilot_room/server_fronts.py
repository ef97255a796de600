"""The fronts a server runs from its configuration (`c.CopilotRoom.github`, `.slack`,
`.teams`): built once the rooms' API exists, started on the server's loop, stopped before the
rooms. Each is a client of the API (`api/`); the ones whose settings are commands are reachable
through it (`api/fronts.py`)."""

from __future__ import annotations

from pathlib import Path

from tornado.ioloop import IOLoop

from .api import RoomsAPI
from .bridges.linked_people import LinkedPeople
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
        chats = {"slack": slack, "teams": teams}
        people = LinkedPeople(
            state_dir / "bridges" / "people.json",
            {name: chat.people for name, chat in chats.items() if chat is not None},
        )
        if any(chats.values()):
            api.fronts.links = people
            api.fronts.chats = tuple(name for name, chat in chats.items() if chat is not None)
        self.slack = (
            None if slack is None else SlackBridge(slack, api, people, state_dir / "bridges")
        )
        self.teams = None
        if teams is not None:
            self.teams = api.fronts.teams = TeamsBridge(teams, api, people, state_dir / "bridges")
        api.fronts.channels = {
            name: bridge.links
            for name, bridge in (("slack", self.slack), ("teams", self.teams))
            if bridge is not None
        }
        # They start with the server's loop, also in a server that is never "started" (an
        # in-process test), and reach rooms through the API, which loads them when needed.
        IOLoop.current().add_callback(self._start)

    def _start(self) -> None:
        if self.pulls is not None:
            self.pulls.start()
        if self.slack is not None:
            self.slack.start()
        if self.teams is not None:
            self.teams.start()

    async def stop(self) -> None:
        if self.pulls is not None:
            await self.pulls.stop()
        if self.slack is not None:
            await self.slack.stop()
        if self.teams is not None:
            await self.teams.stop()
