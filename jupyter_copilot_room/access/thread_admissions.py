"""Who is in a thread: the room's hosts (as hosts), and its owner and the people they added while
they are members of the room; nobody else, whatever the room's admission policy. A thread's
`Room` asks this book as any room asks its own, so its cards go to the prompt's author and the
hosts by the room's usual rules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import rules
from .admissions import AdmissionBook
from .roles import Role

if TYPE_CHECKING:  # the threads' package builds rooms with this book
    from ..threads.thread_records import Thread


def _nobody(username: str) -> Role:
    return Role.REFUSED


@dataclass
class ThreadAdmissions(AdmissionBook):
    thread: Thread | None = None
    #: The role the room gives a username now (the room's own book and people).
    room_role: Callable[[str], Role] = field(default=_nobody)

    def is_host(self, username: str) -> bool:
        return self.role_of(username, verified=False) is Role.HOST

    def role_of(self, username: str, *, verified: bool, hub_role: Role | None = None) -> Role:
        added = self.thread is not None and self.thread.may_use(username)
        return rules.thread_role(self.room_role(username), added)
