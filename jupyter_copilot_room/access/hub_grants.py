"""The role JupyterHub grants a visitor: hub groups and custom scopes that admit them directly.

On a hub's single-user server, `current_user` is JupyterHub's user, whose `hub_user` model carries
the visitor's `groups` and the `scopes` of their token. A deployment can let the hub decide who
is a member or a viewer (`c.CopilotRoom.member_groups` / `viewer_groups`, or the custom scopes
`custom:copilot-room:member` / `custom:copilot-room:viewer`); the role they grant comes right after
the configured hosts and the hosts' own removals and re-roles in the admission order.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .roles import Role

MEMBER_SCOPE = "custom:copilot-room:member"
VIEWER_SCOPE = "custom:copilot-room:viewer"


def hub_grant(
    user: object,
    member_groups: Iterable[str] = (),
    viewer_groups: Iterable[str] = (),
    server: str = "",
) -> Role | None:
    """The role the hub grants `user` here (member before viewer), or None when it grants none.

    `server` is this server as `owner/name` (name empty for a default server): a custom scope
    counts unfiltered, or filtered to this server or to its owner, never to another server.
    """
    hub_user = getattr(user, "hub_user", None)
    if not isinstance(hub_user, dict):
        return None
    scopes = {_scope_here(scope, server) for scope in hub_user.get("scopes") or ()}
    groups = set(hub_user.get("groups") or ())
    if MEMBER_SCOPE in scopes or groups & set(member_groups):
        return Role.MEMBER
    if VIEWER_SCOPE in scopes or groups & set(viewer_groups):
        return Role.VIEWER
    return None


def _scope_here(scope: str, server: str) -> str | None:
    """The scope's name if it applies to this server, else None."""
    name, _, restriction = scope.partition("!")
    if not restriction:
        return name
    owner = server.split("/", 1)[0]
    if server and restriction in (f"server={server}", f"user={owner}"):
        return name
    return None


def hub_server_name() -> str:
    """This single-user server as `owner/name`, or "" when not running under JupyterHub."""
    owner = os.environ.get("JUPYTERHUB_USER", "")
    return f"{owner}/{os.environ.get('JUPYTERHUB_SERVER_NAME', '')}" if owner else ""
