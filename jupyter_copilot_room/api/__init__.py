"""The room's public in-process API: one way in for every front.

Other Jupyter server extensions, the bridges (Slack, Teams, a pull request) and the room's own
REST handlers, websocket and side threads drive a room through it, so every front gets the same
answers: who may do what is decided in `access/rules.py`, never by a front.

    rooms = rooms_of(serverapp)
    room = await rooms.open("main")
    prompt_id = await room.submit(Person("alice", source="slack"), "fix the failing test")

Anything the room will not do raises `Refused`, with REST's `code` and HTTP `status`.
"""

from ..errors import Refused
from .download import Download
from .person import Front, Person, vouchable
from .room_api import RoomAPI
from .room_links import RoomLinksAPI
from .rooms_api import RoomsAPI, rooms_of
from .threads_api import ThreadsAPI

__all__ = [
    "Download",
    "Front",
    "Person",
    "Refused",
    "RoomAPI",
    "RoomLinksAPI",
    "RoomsAPI",
    "ThreadsAPI",
    "rooms_of",
    "vouchable",
]
