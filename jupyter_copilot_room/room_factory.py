"""How the server builds a room: main, a created room and a side thread, all the same way.

It is given the server's `RoomConfig` (`room_config.py`), never the app. A room gets the
configured settings as its defaults, the server's hosts and allow lists, its own `RoomSpec`
(folder, state, sizes) and agent; the rooms share the agent slots, the redactor and the event
log. A room people share has its side threads wired in (`threads/`); a thread gets its own
admissions, its room's settings, and spends from its room's daily caps
(`room/budgets/spending.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

from .access.admissions import AdmissionBook, restore_decisions
from .access.identity import HostClaim
from .access.thread_admissions import ThreadAdmissions
from .agent.acp.acp_agent import AcpAgent
from .agent.acp.agent_processes import AgentProcesses
from .agent.agent_choice import AgentChoice
from .agent.seam import COPILOT, Agent
from .catalog import Catalog
from .notebooks import NotebookEditor
from .room.room import Room
from .room.room_spec import RoomSpec
from .room.turns.agent_slots import AgentSlots
from .room.turns.running_turn import RunningTurn
from .room_config import RoomConfig
from .room_registry import MAIN
from .settings import Policy, SettingsStore
from .statefiles import read_json
from .threads import ThreadRegistry
from .threads.thread_records import Thread


class RoomFactory:
    def __init__(self, config: RoomConfig):
        self.config = config
        self.claimed_hosts: set[str] = set()  # main's claim makes a host of every room
        self.slots = AgentSlots(config.max_active_rooms)  # shared by every room
        self.threads = ThreadRegistry(self._thread)
        #: Every room's ACP agent processes: one per configured agent (HOME and log in main's
        #: state directory).
        self.acp_processes = AgentProcesses(
            config.state_dir / "agents", config.repository, config.log
        )

    def shared(
        self, repository: Path, state_dir: Path, claim: HostClaim | None = None, name: str = MAIN
    ) -> Room:
        """A room people share (main or created, not a side thread): its threads wired in."""
        apply_thread = partial(self.threads.apply_changes, name)
        room = self._build(repository, state_dir, claim=claim, name=name, apply=apply_thread)
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
            self.config.log.warning(
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
        apply: Callable[[RunningTurn], Awaitable[str | None]] | None = None,
    ) -> Room:
        config = self.config
        settings = settings or self._settings(state_dir)
        book = book or self._book(settings)
        catalog = Catalog(repository).refresh()
        notebooks = NotebookEditor(
            config.server_settings,
            repository,
            execution_timeout=lambda: settings.current.execution_timeout,
        )
        spec = RoomSpec(
            state_dir,
            repository,
            name,
            client_buffer_bytes=config.client_buffer_bytes,
            document_window=config.document_window,
            idle_timeout=config.idle_timeout,
        )
        room = Room(
            spec,
            book=book,
            settings=settings,
            agent=self._agent(repository, state_dir, catalog, notebooks, settings),
            catalog=catalog,
            notebooks=notebooks,
            claim=claim,
            budgets=config.budgets,
            slots=self.slots,
            redactor=config.redactor,
            apply_thread=apply,
        )
        config.events.listen_to(room.recorder, name)
        return room

    def _settings(self, state_dir: Path) -> SettingsStore:
        """A room's settings: the configured ones, as the room's defaults."""
        return SettingsStore(state_dir / "settings.json", self.config.settings)

    def _book(self, settings: SettingsStore) -> AdmissionBook:
        """A room's admissions: the server's hosts and allow lists, the room's policies."""
        return AdmissionBook(
            hosts=self.config.hosts,
            members=self.config.members,
            viewers=self.config.viewers,
            policy=Policy(settings.current.admission),
            guest_policy=Policy(settings.current.guest_admission),
            claimed_hosts=self.claimed_hosts,
            seats=self.config.seats,
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
        config = self.config
        agent_settings = dataclasses.replace(
            config.agent,
            repository=repository,
            state_dir=state_dir,
            catalog=catalog,
            notebooks=notebooks,
        )
        own = config.own_agent
        offered = {name: spec.shown_title for name, spec in config.acp_agents.items()}
        if own is not None:
            offered = {COPILOT: own.title, **offered}

        def make(name: str) -> Agent:
            if name in config.acp_agents:
                spec = config.acp_agents[name]
                return AcpAgent(agent_settings, spec, self.acp_processes, config.notebook_tools)
            assert own is not None
            return own(agent_settings)

        if not config.acp_agents:
            return make(COPILOT) if own is not None else None
        return AgentChoice(make, offered, lambda: settings.current.agent)
