"""Who acts through the in-process API: a person a front (a bridge, another extension) vouches
for, by the username the room knows them by; or the front itself (`Front`), reading the room
and saying how its service is, for nobody.

The room applies the role that username has in the room (the hub's grant seen on their last
visit, hosts' admissions, the host claim): a front never says what someone may do.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..access.identity import SERVER_OWNER, Identity
from ..errors import InvalidRequest
from ..room.persistence.recorder import acting_from

#: A source names a front in a record (`slack`, `teams`, `github`): short, lower case.
_SOURCE = re.compile(r"[a-z][a-z0-9_-]{0,31}")


@dataclass(frozen=True)
class Person:
    """The acting person: `username` as the room knows it, the name to show if the room has
    none yet (or a newer one), and the front they act from, recorded on what they do."""

    username: str
    display_name: str | None = None
    source: str | None = None

    def __post_init__(self) -> None:
        if not self.username or len(self.username) > 200:
            raise InvalidRequest("A person needs a username.", code="invalid_person")
        if self.source is not None and not _SOURCE.fullmatch(self.source):
            raise InvalidRequest(
                "A source is a short lower-case name such as 'slack'.", code="invalid_source"
            )


@dataclass(frozen=True)
class Front:
    """A front acting as itself, for nobody: it follows the transcript, reads a card or a
    streaming reply, and says its service's state in the room's header ("Slack: disconnected").
    It is no person, so every command (submit, answer, ...) takes a `Person` instead."""

    name: str  # "slack", "github": the header's word for the service

    def __post_init__(self) -> None:
        if not _SOURCE.fullmatch(self.name):
            raise InvalidRequest(
                "A front is named by a short lower-case name such as 'slack'.",
                code="invalid_front",
            )


#: Who calls an API method: a front's `Person`, or the REST handlers' `Identity` (from
#: jupyter_server's `current_user`, with the hub's grant of this very request).
Caller = Person | Identity
#: Who reads the room: a caller (as their role lets them), or a front as itself.
Reader = Caller | Front


def vouchable(username: str) -> bool:
    """Whether a front may act as `username`: anyone but the server's own token's identity
    (`SERVER_OWNER`), whom no outside account may become."""
    return username != SERVER_OWNER.username


def identity_of(caller: Caller, known: Identity | None) -> Identity:
    """The identity the room checks: a REST caller's as it is; a front's person as the room last
    saw them (their hub grant and avatar kept), under the name the front gives. A person the
    room never saw is vouched for by the front, so they count as verified (not a guest)."""
    if isinstance(caller, Identity):
        return caller
    if known is not None:
        return dataclasses.replace(known, display_name=caller.display_name or known.display_name)
    return Identity(
        username=caller.username, display_name=caller.display_name or caller.username, verified=True
    )


@contextlib.contextmanager
def acting(caller: Caller, known: Callable[[str], Identity | None]) -> Iterator[Identity]:
    """The caller's identity (`known`: the room's last sight of a username), with what they
    record inside the block carrying their source (`recorder.acting_from`)."""
    identity = identity_of(caller, known(caller.username))
    source = caller.source if isinstance(caller, Person) else None
    with acting_from(identity.username, source):
        yield identity
