"""The `CopilotRoom` server extension: configuration (`c.CopilotRoom.*`), wiring, start and stop."""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_server.extension.application import ExtensionApp
from jupyter_server.utils import url_path_join
from traitlets import Bool, Dict, Enum, Float, Int, List, Type, Unicode, default

from .access.admissions import AdmissionBook, Policy, load_decisions
from .access.hub import hub_server_name
from .access.identity import HostClaim, provider_verifies_users
from .access.settings import RoomSettings, SettingsStore
from .agent.base import Agent, AgentSettings
from .agent.catalog import Catalog
from .agent.notebooks import NotebookEditor
from .handlers import room_handlers
from .room.room import Room
from .statefiles import prepare_state_dir

_POLICIES = [policy.value for policy in Policy]


class CopilotRoom(ExtensionApp):
    """One Copilot agent, one repository, everyone in the room."""

    name = "jupyter_copilot_room"
    description = __doc__

    hosts = List(
        Unicode(),
        config=True,
        help="Usernames that are always hosts. On JupyterHub the server's owner is added.",
    )
    members = List(Unicode(), config=True, help="Usernames admitted as members without asking.")
    viewers = List(Unicode(), config=True, help="Usernames admitted as viewers without asking.")
    member_groups = List(
        Unicode(),
        config=True,
        help="JupyterHub groups whose members are admitted as room members without asking.",
    )
    viewer_groups = List(
        Unicode(),
        config=True,
        help="JupyterHub groups whose members are admitted as viewers without asking.",
    )
    websocket_recheck_interval = Float(
        60.0,
        config=True,
        help="Seconds between re-checks of each open room websocket's user: someone who lost "
        "access (a revoked JupyterHub share, a removed hub group) is disconnected.",
    )
    admission = Enum(
        _POLICIES,
        default_value="ask-host",
        config=True,
        help="What happens to a verified user nobody decided on yet: 'ask-host' (wait at the "
        "door for a host), 'viewer', 'member' or 'refuse'.",
    )
    guest_admission = Enum(
        _POLICIES,
        default_value="ask-host",
        config=True,
        help="The same policy for unverified guests (anonymous users of a token-protected server).",
    )
    repository = Unicode(
        config=True, help="The repository the agent works in. Default: the server's root_dir."
    )
    state_dir = Unicode(
        config=True,
        help="Where the room keeps its transcript, admissions and settings. "
        "Default: <repository>/.copilot-room/ (git-ignored).",
    )
    permission_timeout = Float(
        120.0,
        config=True,
        help="Seconds a permission request waits for its author or a host; then it is rejected.",
    )
    question_timeout = Float(
        60.0, config=True, help="Seconds a question from the agent waits for an answer."
    )
    max_prompt_chars = Int(
        20_000, config=True, help="The longest prompt the room accepts, in characters."
    )
    turn_timeout = Float(
        600.0,
        config=True,
        help="Seconds a turn may run; then the room aborts it and marks it failed.",
    )
    auto_approve_notebook_edits = Bool(
        False,
        config=True,
        help="Let the agent's notebook edits through without asking (hosts can change this in "
        "the room); shell commands and other kinds always ask.",
    )
    model = Unicode("", config=True, help="The model the agent session uses (agent issue).")
    provider = Dict(
        config=True,
        help="Bring-your-own-key provider for the agent, e.g. {'type': 'openai', 'base_url': "
        "..., 'api_key': ...}.",
    )
    cli_path = Unicode("", config=True, help="Path to the Copilot runtime binary.")
    agent_class = Type(
        "jupyter_copilot_room.agent.copilot.CopilotAgent",
        klass=Agent,
        allow_none=True,
        config=True,
        help="The agent the room drives, as a subclass of jupyter_copilot_room.agent.base.Agent.",
    )

    @default("repository")
    def _default_repository(self) -> str:
        return self.serverapp.root_dir if self.serverapp else os.getcwd()

    @default("state_dir")
    def _default_state_dir(self) -> str:
        return str(Path(self.repository) / ".copilot-room")

    def initialize_settings(self) -> None:
        state_dir = prepare_state_dir(Path(self.state_dir).expanduser())
        hosts = set(self.hosts)
        if hub_owner := os.environ.get("JUPYTERHUB_USER"):
            hosts.add(hub_owner)
        decisions, claimed = load_decisions(state_dir / "admissions.json")
        configured = RoomSettings(
            **{name: getattr(self, name) for name in RoomSettings.model_fields}
        )
        settings = SettingsStore(state_dir / "settings.json", configured)
        book = AdmissionBook(
            hosts=frozenset(hosts),
            members=frozenset(self.members),
            viewers=frozenset(self.viewers),
            policy=Policy(settings.current.admission),
            guest_policy=Policy(settings.current.guest_admission),
            decisions=decisions,
            claimed_hosts=claimed,
        )
        claim = HostClaim() if not hosts and not claimed else None
        catalog = Catalog(Path(self.repository)).refresh()
        self.room = Room(
            state_dir=state_dir,
            book=book,
            settings=settings,
            agent=self._make_agent(state_dir, catalog),
            catalog=catalog,
            claim=claim,
        )
        self.users_verified = provider_verifies_users(self.serverapp.identity_provider)
        if claim is not None:
            self._announce_claim_link(claim)

    def _make_agent(self, state_dir: Path, catalog: Catalog) -> Agent | None:
        if self.agent_class is None:
            return None
        return self.agent_class(
            AgentSettings(
                repository=Path(self.repository),
                state_dir=state_dir,
                model=self.model,
                provider=dict(self.provider),
                cli_path=self.cli_path,
                catalog=catalog,
                notebooks=NotebookEditor(lambda: self.serverapp.web_app.settings),
                log=self.log,
            )
        )

    def _announce_claim_link(self, claim: HostClaim) -> None:
        url = url_path_join(self.serverapp.connection_url, "copilot-room/claim")
        token = self.serverapp.identity_provider.token
        query = f"?secret={claim.secret}" + (f"&token={token}" if token else "")
        self.log.info(
            "No host is configured for the Copilot room. Open this one-time link to become "
            "its host:\n    %s%s",
            url,
            query,
        )

    def initialize_handlers(self) -> None:
        gates = {
            "member_groups": list(self.member_groups),
            "viewer_groups": list(self.viewer_groups),
            # this server, as JupyterHub names it in scope filters (`server=alice/`)
            "server": hub_server_name(),
        }
        self.handlers.extend(
            room_handlers(self.room, self.users_verified, gates, self.websocket_recheck_interval)
        )

    async def _start_jupyter_server_extension(self, serverapp) -> None:
        await self.room.ensure_started()

    async def stop_extension(self) -> None:
        await self.room.stop()
