"""The `CopilotRoom` server extension: configuration (`c.CopilotRoom.*`), wiring, start and stop."""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

from jupyter_server.extension.application import ExtensionApp
from traitlets import Bool, Dict, Float, Integer, List, TraitError, Unicode, default, validate
from traitlets.config import Configurable

from . import metrics
from .access.approval_policy import parse_policy
from .access.claim_notice import announcement, claim_page_path, claim_urls, write_claim_page
from .access.copilot_seats import CopilotSeats
from .access.hub_grants import hub_server_name
from .access.identity import SERVER_OWNER, HostClaim, provider_verifies_users
from .agent.acp.agent_spec import parse_agents
from .agent.agent_traits import agent_traits
from .agent.notebook_mcp import NotebookToolsServer
from .agent.seam import COPILOT, Agent, AgentSettings
from .api import RoomsAPI
from .doctor import Setup, examined
from .eventlog import EventEmitter
from .fronts.front_settings import front_secret_variables, front_traits
from .fronts.github.github_settings import parse_github
from .fronts.server_fronts import ServerFronts
from .fronts.slack.slack_settings import parse_slack
from .fronts.teams.teams_settings import parse_teams
from .handlers.notebook_tools import tools_url
from .handlers.room_handler import HubGrants, RoomContext
from .handlers.routes import routes
from .notebooks.at_stop import hold, keep
from .room.budgets.budget_caps import Budgets
from .room.live.document import DEFAULT_WINDOW, MIN_WINDOW
from .room.live.sync import CLIENT_BUFFER_BYTES
from .room.persistence.redaction import Redactor
from .room_config import RoomConfig
from .room_factory import RoomFactory
from .room_registry import Rooms
from .settings import FROM_OTHER_TRAITS, RoomSettings, settings_traits
from .statefiles import default_state_dir, move_legacy_state, prepare_state_dir
from .worker_threads import release_at_exit

#: jupyter_server's contents service events (`ContentsManager.emit`): a save names its path.
CONTENTS_EVENTS = "https://events.jupyter.org/jupyter_server/contents_service/v1"

#: The traits an agent's settings (`AgentSettings`) take as they are.
AGENT_TRAITS = ("model", "cli_path", "github_host", "signin_timeout", "model_timeout")
#: Traits checked when set, by what parses them, and the words put before a parser's error.
VALIDATED = {"agents": (parse_agents, ""), "budgets": (Budgets.from_config, "")}
VALIDATED["approval_policy"] = (parse_policy, "c.CopilotRoom.approval_policy: ")

#: The configuration declared as data: the room settings' starting values
#: (`c.CopilotRoom.admission`, ...), the agent (`c.CopilotRoom.model`, `.agents`, ...) and the
#: outside fronts (`c.CopilotRoom.github`, ...).
RoomSettingsConfig = type(
    "RoomSettingsConfig", (Configurable,), {**settings_traits(), **agent_traits(), **front_traits()}
)


class CopilotRoom(ExtensionApp, RoomSettingsConfig):  # type: ignore[valid-type,misc]
    """One Copilot agent, one repository, everyone in the room."""

    name = "jupyter_copilot_room"
    description = __doc__

    hosts = List(
        Unicode(),
        config=True,
        help="Usernames that are always hosts. On JupyterHub the server's owner is added.",
    )
    room_creators = List(
        Unicode(),
        config=True,
        help="Usernames who may create rooms (POST copilot-room/api/rooms) besides the server's "
        "hosts, who always may.",
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
    client_buffer_bytes = Integer(
        CLIENT_BUFFER_BYTES,
        min=64 * 1024,
        config=True,
        help="Bytes of document updates the server queues for one websocket client that does not "
        "keep up (a suspended laptop) before it closes that socket; the client reconnects and "
        "syncs afresh. The default, 1 MiB, is minutes of a streamed reply and bounds what 50 "
        "stalled clients cost the server to about 50 MiB.",
    )
    document_window = Integer(
        DEFAULT_WINDOW,
        min=MIN_WINDOW,
        config=True,
        help="Transcript entries the live room document holds (the newest); older ones are "
        "archived and served page by page (GET history, the panel's 'show earlier'), so a room "
        "kept for months joins and restarts as fast as a new one. transcript.jsonl stays "
        "complete.",
    )
    redact_event_personal_data = Bool(
        False,
        config=True,
        help="Replace usernames and people's text (prompts, answers, replies) with "
        "'[redacted]' in the room's Jupyter Events (the transcript keeps them: it is the "
        "audit trail by username). The schemas mark these fields personal-data.",
    )
    repository = Unicode(
        config=True, help="The repository the agent works in. Default: the server's root_dir."
    )
    state_dir = Unicode(
        config=True,
        help="Where the room keeps its transcript, admissions and settings. Keep it outside the "
        "repository, where the agent works. Default: Jupyter's data directory, "
        "copilot_room/<repository name>-<hash>/ (a 0.1 room's <repository>/.copilot-room/ is "
        "moved there once).",
    )
    room_idle_timeout = Float(
        1800.0,
        min=0,
        config=True,
        help="Seconds a room's agent may sit idle (no turn, nothing queued) before it stops; its "
        "runtime process ends and the room shows 'sleeping'. The next prompt starts it again, "
        "resuming the room's Copilot session. 0: never stop.",
    )
    max_active_rooms = Integer(
        None,
        min=1,
        allow_none=True,
        config=True,
        help="How many rooms may have their agent's session open at once (default: no limit). "
        "Every room's session is in the server's one Copilot runtime process, and each room "
        "beyond the first adds a few MB to it (benchmarks/rooms.py). With a limit, a room that "
        "needs its agent while all are open takes the place of the one idle longest; if every "
        "one is busy, it shows 'held' and its prompt starts when one is free.",
    )
    budgets = Dict(
        config=True,
        help="Optional daily caps (UTC days) on what prompts may cost: {'per_person': {...}, "
        "'room': {...}}, each in 'ai_credits', 'premium_requests' and/or 'tokens' (in + out), "
        "e.g. {'per_person': {'ai_credits': 20}, 'room': {'tokens': 5000000}}. A prompt "
        "beyond a cap is refused until the next midnight UTC; a host may lift one person's cap "
        "for the day.",
    )

    @validate("agents", "budgets", "approval_policy")
    def _valid_config(self, proposal: dict) -> dict:
        """A wrong agent, cap or policy stops the server at start, saying what is wrong (the
        bad key), not at the first prompt."""
        check, prefix = VALIDATED[proposal["trait"].name]
        try:
            check(proposal["value"])
        except ValueError as err:
            raise TraitError(f"{prefix}{err}") from None
        return proposal["value"]

    def _link_jupyter_server_extension(self, serverapp) -> None:
        """A configuration the room cannot run with stops the server, saying what is wrong:
        jupyter_server would log it and serve on without it (a front's token variable that the
        Copilot login reads too among them), a room nobody configured."""
        try:
            super()._link_jupyter_server_extension(serverapp)
        except TraitError as err:
            self._refuse_to_start(err)

    def initialize(self) -> None:  # type: ignore[override]  # ExtensionApp.initialize's own
        try:
            super().initialize()
        except TraitError as err:
            self._refuse_to_start(err)

    def _refuse_to_start(self, err: TraitError) -> None:
        self.log.critical("Copilot room: the server does not start: %s", err)
        raise SystemExit(1)

    @default("repository")
    def _default_repository(self) -> str:
        return self.serverapp.root_dir if self.serverapp else os.getcwd()

    @default("state_dir")
    def _default_state_dir(self) -> str:
        return str(default_state_dir(Path(self.repository)))

    def initialize_settings(self) -> None:
        serverapp = self.serverapp
        assert serverapp is not None and serverapp.event_logger is not None  # made before us
        if Path(self.state_dir) == default_state_dir(Path(self.repository)):
            move_legacy_state(Path(self.repository), Path(self.state_dir))  # a 0.1 room's state
        state_dir = prepare_state_dir(Path(self.state_dir).expanduser())
        self.acp_agents = parse_agents(self.agents)
        if self.default_agent != COPILOT and self.default_agent not in self.acp_agents:
            raise TraitError(
                f"c.CopilotRoom.default_agent = {self.default_agent!r} names no agent "
                f"('{COPILOT}' or one of c.CopilotRoom.agents: {sorted(self.acp_agents)})"
            )
        hosts = set(self.hosts)
        if hub_owner := os.environ.get("JUPYTERHUB_USER"):
            hosts.add(hub_owner)
        claim = HostClaim() if not hosts else None  # dropped at start if someone claimed it
        if not provider_verifies_users(serverapp.identity_provider):
            hosts.add(SERVER_OWNER.username)  # kernels and scripts holding the server's token
        github = parse_github(self.github)
        #: Who has a Copilot seat, when `github["seat_check"]` asks (every room's admissions ask).
        self.seats = CopilotSeats.configured(github)
        #: The notebook tools every ACP agent of the server uses, as an MCP server.
        self.notebook_tools = NotebookToolsServer(lambda: tools_url(serverapp), self.log)
        self.factory = RoomFactory(self._room_config(frozenset(hosts)))
        self.threads = self.factory.threads  # every room's side threads
        self.room = self.factory.shared(Path(self.repository), state_dir, claim=claim)
        self.rooms = Rooms(
            root=Path(serverapp.root_dir),
            main=self.room,
            main_repository=Path(self.repository),
            build=lambda record, folder, room_state: self.factory.shared(
                folder, room_state, name=record.name
            ),
            door=self.factory.door,
            creators=frozenset(self.room_creators),
            idle_timeout=self.room_idle_timeout,
        )
        self.rooms.load()
        #: The public in-process API (`api/`): REST, the websocket and every front use it.
        self.api = RoomsAPI(self.rooms, self.threads)
        self.api.setup_report = lambda: examined(Setup.of(self, serverapp))  # `GET doctor`
        if self.seats is not None:
            self.seats.on_answer = self.rooms.show_again
        self.fronts = ServerFronts(
            self.api, state_dir, github, parse_slack(self.slack), parse_teams(self.teams)
        )
        self.metrics = metrics.watch(self.room)  # on jupyter_server's /metrics (main's only)
        serverapp.event_logger.add_listener(schema_id=CONTENTS_EVENTS, listener=self._saved)
        self.users_verified = provider_verifies_users(serverapp.identity_provider)
        self._claim_page: Path | None = None
        if claim is not None:
            # Request logs mask the claim link's secret the way jupyter_server masks tokens.
            scrubbed = serverapp.web_app.settings.get("extra_log_scrub_param_keys", [])
            self.settings["extra_log_scrub_param_keys"] = [*scrubbed, "secret"]

    def _room_config(self, hosts: frozenset[str]) -> RoomConfig:
        """What the rooms are built from: read here once, so the factory never sees the app."""
        serverapp = self.serverapp
        assert serverapp is not None and serverapp.event_logger is not None
        state_dir = Path(self.state_dir).expanduser()
        return RoomConfig(
            repository=Path(self.repository),
            state_dir=state_dir,
            server_settings=lambda: serverapp.web_app.settings,
            hosts=hosts,
            members=frozenset(self.members),
            viewers=frozenset(self.viewers),
            seats=self.seats,
            settings=RoomSettings(
                **{n: getattr(self, FROM_OTHER_TRAITS.get(n, n)) for n in RoomSettings.model_fields}
            ),
            budgets=Budgets.from_config(self.budgets),
            client_buffer_bytes=self.client_buffer_bytes,
            document_window=self.document_window,
            idle_timeout=self.room_idle_timeout,
            max_active_rooms=self.max_active_rooms,
            agent=AgentSettings(
                repository=Path(self.repository),
                state_dir=state_dir,
                runtime_directory=state_dir / "copilot",  # main's, shared by every room
                models=tuple(self.models),
                provider=dict(self.provider),
                agent_env=tuple(self.agent_env),
                log=self.log,
                **{n: getattr(self, n) for n in AGENT_TRAITS},
            ),
            own_agent=cast(type[Agent] | None, self.agent_class),
            acp_agents=self.acp_agents,
            notebook_tools=self.notebook_tools,
            events=EventEmitter(
                serverapp.event_logger, redact_personal_data=self.redact_event_personal_data
            ),
            redactor=Redactor.of_server(
                os.environ,
                key_variable=self.provider.get("api_key_env", ""),
                server_token=getattr(serverapp.identity_provider, "token", "") or "",
                passed=[
                    *(name for spec in self.acp_agents.values() for name in spec.env_from),
                    *front_secret_variables(self.github, self.slack, self.teams),
                ],
            ),
            log=self.log,
        )

    async def _saved(self, logger: object, schema_id: str, data: dict) -> None:
        """jupyter_server's contents service saved a file for someone: during a turn it is
        theirs, never the turn's (`checkpoints/file_share.py`)."""
        if data.get("action") == "save" and self.serverapp is not None:
            path = Path(self.serverapp.root_dir) / str(data.get("path", ""))
            for _, room in self.rooms:
                room.checkpoints.person_saved(path)

    def _announce_claim(self, secret: str) -> None:
        """After the server printed its URLs: how to become the host, the secret's middle hidden
        (the whole of it in a page only the server's user can read)."""
        assert self.serverapp is not None
        page = claim_page_path(self.serverapp)
        write_claim_page(page, secret, claim_urls(self.serverapp, secret))
        self._claim_page = page
        self.log.info(announcement(self.serverapp, secret, page))

    def initialize_handlers(self) -> None:
        grants = HubGrants(
            member_groups=tuple(self.member_groups),
            viewer_groups=tuple(self.viewer_groups),
            server=hub_server_name(),  # as JupyterHub names it in scope filters (`server=alice/`)
        )
        context = RoomContext(
            self.api,
            self.users_verified,
            grants,
            self.websocket_recheck_interval,
            self.notebook_tools,
        )
        self.handlers.extend(routes(context))

    async def _start_jupyter_server_extension(self, serverapp) -> None:
        """Start main (the other rooms load when used; main's refusal, e.g. a full disk, is
        logged and refuses only its own routes) and print main's claim link once main has
        started: now, or on the request that starts it."""
        self.room.startup.when_started(self._announce_claim_if_unclaimed)
        await self.rooms.start()  # main only: the others load when used

    def _announce_claim_if_unclaimed(self) -> None:
        """Main's transcript says whether someone claimed it (main has started)."""
        if self.room.claim is not None and self.room.claim.secret:
            self._announce_claim(self.room.claim.secret)

    async def stop_extension(self) -> None:
        web = self.serverapp.web_app.settings if self.serverapp else {}
        notebooks = hold(web)  # before any await: see notebooks/at_stop.py
        release_at_exit()  # AnyIO workers left behind would hold the process's exit
        await keep(web, notebooks, self.log)
        await self.threads.stop()
        await self.fronts.stop()
        await self.rooms.stop()
        metrics.unwatch(self.metrics)
        if self._claim_page is not None:
            self._claim_page.unlink(missing_ok=True)
