"""A room of a test's own on a `jupyter lab` that the browser tests share.

A `jupyter lab` start costs about 6 CPU seconds (a fresh server per browser test was a third of
the suite's time on 2 cores); a created room costs a session in the server's one Copilot
runtime. A test whose isolation is its room (transcript, queue, people at the door, cards, its
repository) gets `RoomOfItsOwn`; a test that restarts, claims or reconfigures the server keeps a
fresh `JupyterServer` (the `lab` fixture without the `shared_lab` mark).

What the server keeps for everyone, JupyterLab's user settings (the theme `set_theme` saves) and
workspaces (the layout a page restores), is put back after each test (`reset_lab_state`).
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

from . import people
from .server import READY, JupyterServer, agent_idle, write_user_settings

_numbers = itertools.count(1)

# Before JupyterLab's own scripts, on every load: the address gets the room's link parameter
# (`?copilot-room=<name>`, labextension/src/rooms.ts), which the panel reads and then removes.
_BY_THE_LINK = """(name => {
    if (window !== window.top) return;
    const url = new URL(window.location.href);
    if (url.searchParams.get('copilot-room') === name) return;
    url.searchParams.set('copilot-room', name);
    window.history.replaceState(window.history.state, '', url.href);
})(%s)"""


class RoomOfItsOwn:
    """A room created on `server` for one test, in a repository folder of its own (`root`):
    `api` calls this room's commands, `visit` opens JupyterLab on it (`?copilot-room=`)."""

    def __init__(self, server: JupyterServer, name: str):
        self.server = server
        self.name = name
        self.url = server.url
        self.log = server.log
        self.root: Path = server.root / name

    @classmethod
    def create(cls, server: JupyterServer) -> RoomOfItsOwn:
        """A new room (a short name, as a person would give it: the panel's header and the
        status bar show it), its agent started and idle."""
        room = cls(server, f"room-{next(_numbers)}")
        room.root.mkdir()
        code, body = server.api(
            people.HOST, "POST", "rooms", {"name": room.name, "repository": room.name}
        )
        assert code == 201, f"creating the room {room.name}: {code} {body}"
        # A created room's agent sleeps until its first prompt; a test starts, as on a fresh
        # server, with the agent up (main's starts with the server).
        code, body = room.api(people.HOST, "POST", "agent/start")
        assert code < 300, f"starting the agent of {room.name}: {code} {body}"
        server.wait_until(room._agent_idle, READY, f"idle agent in {room.name}")
        return room

    def api(self, user: str | None, method: str, path: str, body=None) -> tuple[int, object]:
        """`JupyterServer.api` on this room: `rooms` is the server's, the rest the room's."""
        if path != "rooms" and not path.startswith("rooms/"):
            path = f"rooms/{self.name}/{path}"
        return self.server.api(user, method, path, body)

    def visit(self, page, user: str, path: str = "lab") -> None:
        """`page` on JupyterLab at `path`, signed in as `user`, in this room: every load of the
        page (a reload too) comes by the room's link, as a person who bookmarked it would."""
        page.context.add_init_script(_BY_THE_LINK % json.dumps(self.name))
        self.server.visit(page, user, path)

    def _agent_idle(self) -> bool:
        return agent_idle(self.api, f"the agent of {self.name}")


def reset_lab_state(server: JupyterServer) -> None:
    """JupyterLab's user settings back to the tests' own and no saved workspace: the next test's
    pages start in the light theme with the default layout, as on a fresh server."""
    lab_config = server.home / "config" / "lab"
    for folder in ("user-settings", "workspaces"):
        shutil.rmtree(lab_config / folder, ignore_errors=True)
    write_user_settings(server.home / "config")
