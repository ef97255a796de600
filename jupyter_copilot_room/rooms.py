"""The rooms one server hosts: `main` for the server's root, and the rooms hosts create.

A room is a name (`NAME_PATTERN`: lower-case letters, digits, `-` and `_`, up to 40, starting with
a letter or digit, so it is a URL path segment as it is) and a repository folder inside the
server's root. Each has a state directory of its own, keyed by its name (two rooms may share a
folder): `main` keeps the one it always had (`c.CopilotRoom.state_dir`), so an upgrade loses
nothing, and the others live in `<main's state_dir>/rooms/<name>/`. The registry of created rooms
is `<main's state_dir>/rooms.json` (written atomically), and each creation is recorded in main's
transcript (`room.created`), attributed to its creator.

Who may create a room: the server's hosts (every room's hosts) and `c.CopilotRoom.room_creators`.
What is server-level rather than per room: the hosts, the configured members/viewers and hub
grants (every room applies them), the host claim and the Copilot sign-in (main's). Each room keeps
its own admission decisions, settings, queue, transcript and agent.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from .access.identity import Identity
from .access.roles import ADMITTED
from .errors import Conflict, InvalidRequest, NotAllowed, NotFound, RoomError
from .events import RoomCreated
from .room.parts import MAIN
from .room.room import Room
from .statefiles import prepare_state_dir, read_json, write_json_atomically

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


class Rooms:
    """The registry: main first, then the created rooms in the order they were made."""

    def __init__(
        self,
        *,
        root: Path,
        main: Room,
        main_repository: Path,
        build: Factory,
        creators: frozenset[str] = frozenset(),
    ):
        self.root = root.expanduser().resolve()
        self.main = main
        self.build = build
        self.creators = creators
        self.file = main.state_dir / REGISTRY
        self._records: dict[str, RoomRecord] = {
            MAIN: RoomRecord(MAIN, self._relative(main_repository))
        }
        self._rooms: dict[str, Room] = {MAIN: main}

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

    def _save(self) -> None:
        created = [asdict(r) for name, r in self._records.items() if name != MAIN]
        write_json_atomically(self.file, {"rooms": created})

    def _add(self, record: RoomRecord, folder: Path) -> Room:
        state_dir = prepare_state_dir(self.main.state_dir / "rooms" / record.name)
        room = self.build(record, folder, state_dir)
        self._records[record.name] = record
        self._rooms[record.name] = room
        return room

    def __iter__(self) -> Iterator[tuple[str, Room]]:
        return iter(list(self._rooms.items()))

    def get(self, name: str) -> Room:
        room = self._rooms.get(name)
        if room is None:
            raise NotFound(f"There is no room called {name[:60]!r} here.", code="room_not_found")
        return room

    # -- creating a room -------------------------------------------------------------------------

    def may_create(self, identity: Identity) -> bool:
        return self.main.people.book.is_host(identity.username) or (
            identity.username in self.creators
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
        self.main.check_in(identity)  # the creator is someone main's transcript knows
        record = self.main.recorder.commit(
            "room.created", identity.username, RoomCreated(name=name, repository=relative)
        )
        made = RoomRecord(name, relative, identity.username, record.ts)
        room = self._add(made, folder)
        self._save()
        await room.ensure_started()
        return room

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
        return [self.entry(name, identity) for name in self._rooms]

    def entry(self, name: str, identity: Identity) -> dict:
        room, record = self._rooms[name], self._records[name]
        role = room.people.book.role_of(
            identity.username, verified=identity.verified, hub_role=identity.hub_role
        )
        admitted = role in ADMITTED
        return {
            "name": name,
            "repository": record.repository,
            "state": room.turns.state(),
            "people": _online(room) if admitted else [],
            "role": role.value,
            "waiting_on_you": room.waiting_on(identity.username, role) if admitted else 0,
            "created_by": record.created_by,
        }

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Every room replays its transcript at server start (so the list shows what waits in
        it); their agents start as each room's lifecycle says. A room whose start is refused (a
        full disk, a changed transcript) is logged, one line saying why and what to do, and
        answers its requests with that refusal; the others start all the same."""
        rooms = list(self)
        results = await asyncio.gather(
            *(room.ensure_started() for _, room in rooms), return_exceptions=True
        )
        for (name, room), result in zip(rooms, results, strict=True):
            if isinstance(result, RoomError):
                then = (
                    "Restart the server once that is done."
                    if room.start_refused
                    else "The room starts at its first request after that."
                )
                log.error("The room %r could not start: %s %s", name, result.message, then)
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, RoomError):
                raise result  # a bug, not a refusal: jupyter_server logs it with its traceback

    async def stop(self) -> None:
        await asyncio.gather(*(room.stop() for _, room in self))


def _online(room: Room) -> list[dict]:
    """The people connected to the room's document now."""
    participants = room.document.participants.to_py() or {}
    return [
        {
            "username": username,
            "name": (participants.get(username) or {}).get("display_name") or username,
            "role": (participants.get(username) or {}).get("role", ""),
        }
        for username in sorted(room.sync.connected())
    ]
