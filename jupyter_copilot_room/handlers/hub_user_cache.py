"""JupyterHub keeps the user it identified on the request handler itself, under private names:
its identity provider (`jupyterhub/singleuser/extension.py`, `_jupyterhub_user`) and `HubAuth`
(`jupyterhub/services/auth.py`, `_cached_hub_user`) each answer from there once set. A room's
socket asks again while it stays open, whether its person still has access, so it drops both
first. JupyterHub (6.1) offers no public way to ask afresh on the same handler; this is the one
place that knows the names, and `tests/test_third_party_behaviour.py` pins them, so an upgrade
that renames them fails there rather than leaving a revoked person connected. Other identity
providers keep nothing there.
"""

from __future__ import annotations

from typing import Any

#: Where JupyterHub caches the handler's user: its identity provider's, then HubAuth's.
HUB_USER_CACHES = ("_jupyterhub_user", "_cached_hub_user")


def forget_hub_user(handler: Any) -> None:
    """Make the identity provider ask the hub again for `handler`'s user (its token cache,
    `HubOAuth.cache_max_age`, still decides how often the hub itself is asked)."""
    for cached in HUB_USER_CACHES:
        handler.__dict__.pop(cached, None)
