"""The rooms one server hosts: `main` for the server's root, and the rooms hosts create.

A room is a name (`NAME_PATTERN`: lower-case letters, digits, `-` and `_`, up to 40, starting with
a letter or digit, so it is a URL path segment as it is) and a repository folder inside the
server's root. Each has a state directory of its own, keyed by its name (two rooms may share a
folder): `main` keeps the one it always had (`c.CopilotRoom.state_dir`), so an upgrade loses
nothing, and the others live in `<main's state_dir>/rooms/<name>/`. The registry of created rooms
is `<main's state_dir>/rooms.json` (written atomically), and each creation is recorded in main's
transcript (`room.created`), attributed to its creator.

Rooms load when used, as jupyter_server_ydoc's rooms do: the server's start starts `main` only
(its agent starts with the server, it holds the host claim and the Copilot sign-in, and it is
never unloaded); another room is built and started (its transcript replayed, from its snapshot
where one matches) by its first request, REST or websocket (`open`), and unloaded (stopped: its
document, transcript and state closed) once it has been quiet for `c.CopilotRoom.
room_idle_timeout`: its agent asleep, nobody connected, nothing queued or waiting at the door.
`GET rooms` lists an unloaded room as `sleeping` (`new` before its first start), with the
caller's role read from its caches (`admissions.json`, `settings.json`) by `door`, never by a
replay. A room whose start is refused (a full disk, a changed transcript) refuses its own routes
only: the list says why.

Who may create a room: the server's hosts (every room's hosts) and `c.CopilotRoom.room_creators`.
What is server-level rather than per room: the hosts, the configured members/viewers and hub
grants (every room applies them), the host claim and the Copilot sign-in (main's). Each room keeps
its own admission decisions, settings, queue, transcript and agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from .access import rules
from .access.admissions import AdmissionBook
from .access.identity import Identity
from .errors import Conflict, InvalidRequest, NotAllowed, NotFound, Refused, Unavailable
from .room.room import Room
from .room.startup import MAIN
from .room.turns.agent_life import AgentState
from .statefiles import TRANSCRIPT_FILE, prepare_state_dir, read_json, write_json_atomically

log = logging.getLogger(__name__)

#: A room's name: a URL path segment as it is, and a folder name on every system.
NAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
REGISTRY = "rooms.json"


@dataclass(frozen=True)
class RoomRecord:
    """What the registry keeps of a room: enough to build it again after a restart."""

    name: str
    repository: str  # relative to the server's root, posix; "" for the root itself
    created_by: str | None = None
    created_at: float | None = None


#: Builds a room from its record, its repository folder and its state directory (app.py).
Factory = Callable[[RoomRecord, Path, Path], Room]
#: Who a room admits, read from its caches without loading it (app.py): for `GET rooms`.
Door = Callable[[Path], AdmissionBook]
#: Told of a room's life (`Rooms.watch`): `(name, room)` once it has started, `(name, None)` once
#: it is unloaded (or the server stops it).
Watcher = Callable[[str, Room | None], None]


class Rooms:
    """The registry: main first, then the created rooms in the order they were made."""

    def __init__(
        self,
        *,
        root: Path,
        main: Room,
        main_repository: Path,
        build: Factory,
        door: Door,
        creators: frozenset[str] = frozenset(),
        idle_timeout: float = 0.0,
    ):
        self.root = root.expanduser().resolve()
        self.main = main
        self.build = build
        self.door = door
        self.creators = creators
        self.idle_timeout = idle_timeout  # quiet this long, a room is unloaded (0: never)
        self.file = main.state_dir / REGISTRY
        self._records: dict[str, RoomRecord] = {
            MAIN: RoomRecord(MAIN, self._relative(main_repository))
        }
        self._folders: dict[str, Path] = {MAIN: main_repository}  # the rooms it serves
        self._loaded: dict[str, Room] = {MAIN: main}
        self._doors: dict[str, AdmissionBook] = {}  # the rooms not loaded: who they admit
        self._refused: dict[str, Refused] = {}  # why a room's last start was refused
        self._unloading: dict[str, asyncio.Task[None]] = {}
        self._last_used: dict[str, float] = {}
        self._checks: dict[str, asyncio.TimerHandle] = {}
        self._stopping = False
        self._watchers: list[Watcher] = []
        main.on_quiet = lambda: None  # main stays loaded
        self._tell_when_started(MAIN, main)

    # -- the registry ----------------------------------------------------------------------------

    def load(self) -> None:
        """The rooms created before this start; one whose folder is gone is kept in the registry
        but not served (logged), so restoring the folder brings it back."""
        data = read_json(self.file) or {}
        for entry in data.get("rooms", []):
            record = RoomRecord(**entry)
            try:
                self._check_name(record.name)
                folder = self.folder(record.repository)
            except InvalidRequest as err:
                log.warning("Not serving the room %r: %s", record.name, err.message)
                self._records[record.name] = record
                continue
            self._add(record, folder)
            self._doors[record.name] = self._door_of(record.name)

    def _save(self) -> None:
        created = [asdict(r) for name, r in self._records.items() if name != MAIN]
        write_json_atomically(self.file, {"rooms": created})

    def _add(self, record: RoomRecord, folder: Path) -> None:
        self._records[record.name] = record
        self._folders[record.name] = folder

    def _room_dir(self, name: str) -> Path:
        """Where the room `name` keeps its state (made only by `_state_dir`)."""
        return self.main.state_dir / "rooms" / name

    def _door_of(self, name: str) -> AdmissionBook:
        return self.door(self._room_dir(name))  # read only: nothing is made

    def _state_dir(self, name: str) -> Path:
        return prepare_state_dir(self._room_dir(name))

    def __iter__(self) -> Iterator[tuple[str, Room]]:
        """The rooms loaded now."""
        return iter(list(self._loaded.items()))

    def show_again(self, username: str) -> None:
        """Every loaded room shows `username` anew (a Copilot seat check answered for them)."""
        for _, room in self:
            if (person := room.people.known.get(username)) is not None:
                room.people.show(person)

    def loaded(self, name: str) -> Room | None:
        return self._loaded.get(name)

    # -- the rooms' lifecycle, told ----------------------------------------------------------------

    def watch(self, watcher: Watcher) -> None:
        """`watcher` is told of every room's start and unload from now on (the API's
        `RoomsAPI.watch`), so no front looks again and again whether a room is loaded."""
        self._watchers.append(watcher)

    def _tell_when_started(self, name: str, room: Room) -> None:
        """The watchers told once `room` has started, however it was started (a request, the
        server's start, a test's `ensure_started`)."""
        room.startup.when_started(lambda: self._tell(name, room))

    def _tell(self, name: str, room: Room | None) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(name, room)
            except Exception:  # a front's fault must not stop a room from starting
                log.exception("A watcher of the room %s failed", name)

    # -- rooms load when used, and unload when quiet ---------------------------------------------

    async def open(self, name: str) -> Room:
        """The room `name`, started: built and started now if it is not loaded (a replay), after
        an unload under way has finished; 404 `unknown_room` for a name that is no room, the
        room's own refusal (503, 507) if it cannot start."""
        if name not in self._folders:
            raise NotFound(f"There is no room called {name[:60]!r} here.", code="unknown_room")
        if self._stopping:  # a room loaded now would outlive the server's stop
            raise Unavailable(
                f"The server is stopping, so the room {name!r} does not start.",
                code="server_stopping",
            )
        while (unloading := self._unloading.get(name)) is not None:
            await asyncio.shield(unloading)
        room = self._loaded.get(name)
        if room is None:
            record = self._records[name]
            room = self.build(record, self._folders[name], self._state_dir(name))
            room.on_quiet = lambda: self._used(name)
            self._loaded[name] = room
            self._tell_when_started(name, room)
            self._doors.pop(name, None)
        self._used(name)
        try:
            await room.ensure_started()
        except Refused as err:
            self._refusal(name, room, err)
            raise
        self._refused.pop(name, None)
        return room

    def _refusal(self, name: str, room: Room, err: Refused) -> None:
        """Logged in one line, once for each reason, saying why and what to do."""
        known = self._refused.get(name)
        self._refused[name] = err
        if known is not None and known.message == err.message:
            return
        then = (
            "Restart the server once that is done."
            if room.startup.start_refused
            else "The room starts at its first request after that."
        )
        log.error("The room %r could not start: %s %s", name, err.message, then)

    def _used(self, name: str) -> None:
        """A request opened the room, or it may have become quiet (its agent fell asleep, its
        last connection closed): unload it once it has been quiet for `idle_timeout` from now."""
        self._last_used[name] = asyncio.get_running_loop().time()
        self._check_later(name)

    def _check_later(self, name: str) -> None:
        if name == MAIN or self.idle_timeout <= 0 or self._stopping:
            return
        if (check := self._checks.pop(name, None)) is not None:
            check.cancel()
        loop = asyncio.get_running_loop()
        due = self._last_used[name] + self.idle_timeout
        self._checks[name] = loop.call_at(due, self._check, name)

    def _check(self, name: str) -> None:
        self._checks.pop(name, None)
        room = self._loaded.get(name)
        if room is None or name in self._unloading or name in self._refused:
            return
        if not room.quiet:
            return  # its next quiet moment checks again
        if asyncio.get_running_loop().time() < self._last_used[name] + self.idle_timeout:
            self._check_later(name)
            return
        self._unloading[name] = asyncio.create_task(self._unload(name, room))

    async def _unload(self, name: str, room: Room) -> None:
        try:
            await room.stop()
            log.info("Copilot room %s is unloaded: asleep, and nobody is in it", name)
        except Exception:
            log.exception("The room %s did not stop cleanly while it was unloaded", name)
        finally:
            self._loaded.pop(name, None)
            del self._unloading[name]
            self._doors[name] = self._door_of(name)
            self._tell(name, None)

    # -- creating a room -------------------------------------------------------------------------

    def may_create(self, identity: Identity) -> bool:
        return rules.may_create_room(
            self.main.people.role_now(identity), identity.username, self.creators
        )

    async def create(self, identity: Identity, name: str, repository: str) -> Room:
        """A new room (hosts and `room_creators`): checked, recorded in main's transcript,
        written to the registry, started."""
        if not self.may_create(identity):
            raise NotAllowed(
                "Only the server's hosts (and the people c.CopilotRoom.room_creators names) "
                "can create rooms.",
                code="not_allowed",
            )
        self._check_name(name)
        if name in self._records:
            raise Conflict(f"There is already a room called {name!r}.", code="room_exists")
        folder = self.folder(repository)
        relative = self._relative(folder)
        main = await self.open(MAIN)  # the creation is recorded in main's transcript
        created_at = main.people_commands.record_room_created(identity, name, relative)
        self._add(RoomRecord(name, relative, identity.username, created_at), folder)
        self._save()
        return await self.open(name)

    @staticmethod
    def _check_name(name: str) -> None:
        if not NAME_PATTERN.fullmatch(name):
            raise InvalidRequest(
                f"A room's name is 1 to 40 lower-case letters, digits, '-' or '_', starting "
                f"with a letter or digit; {name[:60]!r} is not.",
                code="invalid_room_name",
            )

    def folder(self, repository: str) -> Path:
        """The room's folder: a relative path to an existing folder inside the server's root
        (links followed: a link that leads out of the root is refused)."""
        if (
            "\x00" in repository
            or repository.startswith(("/", "\\"))
            or Path(repository).is_absolute()
        ):
            raise InvalidRequest(
                "The repository is a folder relative to the server's root, not an absolute path.",
                code="invalid_repository",
            )
        if ".." in Path(repository).parts:
            raise InvalidRequest(
                "The repository must lie inside the server's root: '..' is not allowed.",
                code="invalid_repository",
            )
        real = (self.root / repository).resolve()
        if not real.is_relative_to(self.root):
            raise InvalidRequest(
                f"{repository!r} leads outside the server's root (a link): a room's folder "
                "must lie inside it.",
                code="repository_outside_root",
            )
        if not real.exists():
            raise InvalidRequest(
                f"There is no folder {repository!r} in the server's root.",
                code="repository_not_found",
            )
        if not real.is_dir():
            raise InvalidRequest(f"{repository!r} is a file, not a folder.", code="not_a_folder")
        return real

    def _relative(self, folder: Path) -> str:
        real = folder.expanduser().resolve()
        if not real.is_relative_to(self.root):
            return str(real)  # main's repository configured outside the root
        relative = real.relative_to(self.root).as_posix()
        return "" if relative == "." else relative

    # -- what people see of the rooms ------------------------------------------------------------

    def describe(self, identity: Identity) -> list[dict]:
        """`GET rooms`: every room (a pending person must find a room to ask to join it), with
        the people in it and what waits on the caller there only where they are admitted.
        Nothing is recorded: listing is no visit."""
        return [self.entry(name, identity) for name in self._folders]

    def entry(self, name: str, identity: Identity) -> dict:
        """One room as `GET rooms` shows it to `identity`: a loaded room says it itself; a room
        not loaded is `sleeping` (`new` if it never started: it has no transcript yet), nobody
        is in it, nothing waits there (nobody is `at_the_door`), and the caller's role comes
        from its caches; a room that could not start says why (`start_error`)."""
        record = self._records[name]
        room = self._loaded.get(name)
        if room is not None:
            seen = room.people_commands.overview(identity)
        else:
            door = self._doors.get(name) or self._door_of(name)  # a build that failed has none
            role = door.role_for(identity)
            started = (self._room_dir(name) / TRANSCRIPT_FILE).exists()
            seen = {
                "state": (AgentState.SLEEPING if started else AgentState.NEW).value,
                "people": [],
                "role": role.value,
                "at_the_door": False,
                "waiting_on_you": 0,
            }
        if name in self._refused:
            seen["state"] = AgentState.UNAVAILABLE.value
        entry = {
            "name": name,
            "repository": record.repository,
            **seen,
            "created_by": record.created_by,
        }
        if (refused := self._refused.get(name)) is not None:
            entry["start_error"] = {"error": refused.code, "message": refused.message}
        return entry

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        """The server's start starts `main` only (the others load when used). Its refusal (a
        full disk, a changed transcript) is logged in one line and answers main's routes with
        it; `GET rooms` answers all the same."""
        with contextlib.suppress(Refused):  # logged by `open`
            await self.open(MAIN)

    async def stop(self) -> None:
        self._stopping = True  # the rooms' last connections closing schedule no unload
        for check in self._checks.values():
            check.cancel()
        self._checks.clear()
        await asyncio.gather(*self._unloading.values(), return_exceptions=True)
        await asyncio.gather(*(room.stop() for _, room in self))
        for name, _ in self:
            self._tell(name, None)
