"""How the server builds a room: main, a created room and a side thread, all the same way.

A room gets the configured settings as its defaults, the server's hosts and allow lists, its own
folder, state and agent; the rooms share the agent slots, the redactor and the event log. A room
people share has its side threads wired in (`threads/`); a thread gets its own admissions, its
room's settings, and spends from its room's daily caps (`room/budgets/spending.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from .access.admissions import AdmissionBook, restore_decisions
from .access.identity import HostClaim
from .access.thread_admissions import ThreadAdmissions
from .agent.acp.acp_agent import AcpAgent
from .agent.acp.agent_processes import AgentProcesses
from .agent.agent_choice import AgentChoice
from .agent.seam import COPILOT, Agent, AgentSettings
from .catalog import Catalog
from .eventlog import EventEmitter
from .notebooks import NotebookEditor
from .room.budgets.budget_caps import Budgets
from .room.persistence.redaction import Redactor
from .room.room import Room
from .room.turns.agent_slots import AgentSlots
from .room_registry import MAIN
from .settings import FROM_OTHER_TRAITS, Policy, RoomSettings, SettingsStore
from .statefiles import read_json
from .threads import ThreadRegistry
from .threads.thread_records import Thread

if TYPE_CHECKING:
    from .app import CopilotRoom


class RoomFactory:
    def __init__(
        self, app: CopilotRoom, hosts: frozenset[str], events: EventEmitter, redactor: Redactor
    ):
        self.app = app  # its `c.CopilotRoom` configuration and its server
        self.hosts = hosts
        self.claimed_hosts: set[str] = set()  # main's claim makes a host of every room
        self.slots = AgentSlots(app.max_active_rooms)  # shared by every room
        self.events = events
        self.redactor = redactor
        self.threads = ThreadRegistry(self._thread)
        #: Every room's ACP agent processes: one per configured agent (HOME and log in main's
        #: state directory).
        self.acp_processes = AgentProcesses(
            Path(app.state_dir).expanduser() / "agents", Path(app.repository), app.log
        )

    def shared(
        self, repository: Path, state_dir: Path, claim: HostClaim | None = None, name: str = MAIN
    ) -> Room:
        """A room people share (main or created, not a side thread): its threads wired in."""
        room = self._build(repository, state_dir, claim=claim, name=name)
        room.turns.apply_thread = lambda turn: self.threads.of(room).apply_changes(turn)
        room.startup.when_started(lambda: self.threads.of(room).resume())
        return room

    def door(self, state_dir: Path) -> AdmissionBook:
        """Who a room not loaded admits, from the caches its last start and its hosts'
        decisions wrote (`settings.json`, `admissions.json`), with no replay: `GET rooms`. Caches
        that cannot be read leave the configuration's word (logged): the list must answer."""
        settings = self._settings(state_dir)
        try:
            settings.restore(read_json(settings.path) or {})
            book = self._book(settings)
            restore_decisions(state_dir / "admissions.json", book)
        except (OSError, ValueError) as err:
            self.app.log.warning(
                "The caches in %s cannot be read (%s): the room's list uses the "
                "configuration for it",
                state_dir,
                err,
            )
            return self._book(self._settings(state_dir))
        return book

    def _thread(
        self, room: Room, thread: Thread, folder: Path, state_dir: Path, book: ThreadAdmissions
    ) -> Room:
        built = self._build(
            folder,
            state_dir,
            name=f"{room.name}:thread-{thread.id}",
            book=book,
            settings=room.settings,
        )
        built.spending.spends_from(room.spending, thread.id)  # its room's caps
        return built

    def _build(
        self,
        repository: Path,
        state_dir: Path,
        claim: HostClaim | None = None,
        name: str = MAIN,
        book: AdmissionBook | None = None,
        settings: SettingsStore | None = None,
    ) -> Room:
        app = self.app
        serverapp = app.serverapp
        assert serverapp is not None
        settings = settings or self._settings(state_dir)
        book = book or self._book(settings)
        catalog = Catalog(repository).refresh()
        notebooks = NotebookEditor(
            lambda: serverapp.web_app.settings,
            repository,
            execution_timeout=lambda: settings.current.execution_timeout,
        )
        room = Room(
            state_dir=state_dir,
            repository=repository,
            book=book,
            settings=settings,
            agent=self._agent(repository, state_dir, catalog, notebooks, settings),
            catalog=catalog,
            notebooks=notebooks,
            claim=claim,
            client_buffer_bytes=app.client_buffer_bytes,
            document_window=app.document_window,
            budgets=Budgets.from_config(app.budgets),
            name=name,
            slots=self.slots,
            idle_timeout=app.room_idle_timeout,
            redactor=self.redactor,
        )
        notebooks.executions.on_kernel = room.document.set_kernel
        self.events.listen_to(room.recorder, name)
        return room

    def _settings(self, state_dir: Path) -> SettingsStore:
        """A room's settings: the configured ones, as the room's defaults."""
        configured = RoomSettings(
            **{
                name: getattr(self.app, FROM_OTHER_TRAITS.get(name, name))
                for name in RoomSettings.model_fields
            }
        )
        return SettingsStore(state_dir / "settings.json", configured)

    def _book(self, settings: SettingsStore) -> AdmissionBook:
        """A room's admissions: the server's hosts and allow lists, the room's policies."""
        return AdmissionBook(
            hosts=self.hosts,
            members=frozenset(self.app.members),
            viewers=frozenset(self.app.viewers),
            policy=Policy(settings.current.admission),
            guest_policy=Policy(settings.current.guest_admission),
            claimed_hosts=self.claimed_hosts,
            seats=self.app.seats,
        )

    def _agent(
        self,
        repository: Path,
        state_dir: Path,
        catalog: Catalog,
        notebooks: NotebookEditor,
        settings: SettingsStore,
    ) -> Agent | None:
        """The room's agent: the one its `agent` setting names among those offered (the room's
        own Copilot, `agent_class`, and c.CopilotRoom.agents), or the room's own alone when the
        server offers no other."""
        app = self.app
        agent_settings = AgentSettings(
            repository=repository,
            state_dir=state_dir,
            runtime_directory=Path(app.state_dir).expanduser() / "copilot",  # main's
            model=app.model,
            models=tuple(app.models),
            provider=dict(app.provider),
            cli_path=app.cli_path,
            agent_env=tuple(app.agent_env),
            github_host=app.github_host,
            signin_timeout=app.signin_timeout,
            model_timeout=app.model_timeout,
            catalog=catalog,
            notebooks=notebooks,
            log=app.log,
        )
        own = cast(type[Agent] | None, app.agent_class)
        offered = {name: spec.shown_title for name, spec in app.acp_agents.items()}
        if own is not None:
            offered = {COPILOT: own.title, **offered}

        def make(name: str) -> Agent:
            if name in app.acp_agents:
                spec = app.acp_agents[name]
                return AcpAgent(agent_settings, spec, self.acp_processes, app.notebook_tools)
            assert own is not None
            return own(agent_settings)

        if not app.acp_agents:
            return make(COPILOT) if own is not None else None
        return AgentChoice(make, offered, lambda: settings.current.agent)
