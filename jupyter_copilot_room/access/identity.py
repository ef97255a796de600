"""Who a request comes from, and whether the server vouches for that name.

The identity always comes from jupyter_server's `current_user`, never from a request body. A user
is *verified* when the server runs behind an identity provider that knows real people
(JupyterHub's, or any configured non-default one); the stock token/password providers hand out
random anonymous names, so their users are guests, badged unverified in the room.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass

from jupyter_server.auth.identity import (
    IdentityProvider,
    LegacyIdentityProvider,
    PasswordIdentityProvider,
    User,
)

from .roles import Role

_ANONYMOUS_PROVIDERS = (IdentityProvider, PasswordIdentityProvider, LegacyIdentityProvider)


@dataclass(frozen=True)
class Identity:
    username: str
    display_name: str
    verified: bool
    avatar_url: str | None = None
    color: str | None = None
    hub_role: Role | None = None  # the role the hub grants directly (groups, custom scopes)

    @classmethod
    def from_user(cls, user: User, *, verified: bool, hub_role: Role | None = None) -> Identity:
        return cls(
            username=user.username,
            display_name=user.display_name or user.name or user.username,
            verified=verified,
            avatar_url=user.avatar_url,
            color=user.color,
            hub_role=hub_role,
        )


#: Under jupyter_server's own anonymous providers, a program that holds the server's token but no
#: browser session (a notebook kernel, a script) is the server's owner: whoever holds the token can
#: already run any code on the server, so making it a host grants nothing new, and it is one
#: person for every kernel rather than a new guest at the door per process.
SERVER_OWNER = Identity(username="server-owner", display_name="Server owner", verified=False)


def provider_verifies_users(provider: IdentityProvider) -> bool:
    """True unless the server uses one of jupyter_server's own anonymous-user providers."""
    return type(provider) not in _ANONYMOUS_PROVIDERS


class HostClaim:
    """A one-time secret that makes whoever opens the claim link a host.

    Used only when nobody is configured as host (a plain `jupyter lab` with a token), so the
    person who started the server can take the room without knowing their random guest name.
    """

    def __init__(self) -> None:
        self._secret: str | None = secrets.token_urlsafe(24)

    @property
    def secret(self) -> str | None:
        return self._secret

    def matches(self, offered: str) -> bool:
        """Whether `offered` is the unused secret (any text may be offered, even non-ASCII)."""
        if self._secret is None:
            return False
        return hmac.compare_digest(offered.encode("utf-8", "replace"), self._secret.encode())

    def redeem(self, offered: str) -> bool:
        if not self.matches(offered):
            return False
        self._secret = None
        return True

    def retire(self) -> None:
        """The room has a host already (its transcript says so): nothing is left to claim."""
        self._secret = None
