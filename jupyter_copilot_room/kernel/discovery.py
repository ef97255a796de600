"""Which Jupyter server this kernel runs under, and the credentials the kernel has for it.

Tried in order (docs/participants.md, "From a notebook"):

1. `url=` (and `token=`) given to `connect`.
2. JupyterHub: the single-user server's environment, which its kernels inherit:
   `JUPYTERHUB_API_TOKEN` (the server's own token: it acts as the server's owner) with
   `JUPYTERHUB_SERVICE_URL` (the server's own address), or else the running server (below) whose
   base URL is `JUPYTERHUB_SERVICE_PREFIX`.
3. A plain `jupyter lab` / `jupyter server`: the servers jupyter_server lists as running (their
   `jpserver-*.json` files in the runtime directory). The one whose process is this kernel's
   parent wins (a server starts its kernels itself); otherwise the one whose `root_dir` holds the
   kernel's working directory (the deepest such root); two or more equally good is an error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ServerNotFound(RuntimeError):
    """No Jupyter server could be found; the message says what was tried."""


@dataclass(frozen=True)
class ServerInfo:
    url: str  # the server's base URL, ending in "/"
    token: str
    found_by: str  # which rule found it, in words


def discover(url: str | None = None, token: str | None = None) -> ServerInfo:
    env = os.environ
    if url:
        given = token if token is not None else env.get("JUPYTERHUB_API_TOKEN", "")
        return ServerInfo(_slash(url), given, "the url= argument")
    tried = []
    prefix, hub_token = env.get("JUPYTERHUB_SERVICE_PREFIX"), env.get("JUPYTERHUB_API_TOKEN")
    if prefix and hub_token:
        if service_url := env.get("JUPYTERHUB_SERVICE_URL"):
            return ServerInfo(
                _slash(service_url), token or hub_token, "JupyterHub's JUPYTERHUB_SERVICE_URL"
            )
        for server in _running():
            if _slash(server.get("base_url", "/")) == _slash(prefix):
                return ServerInfo(
                    _slash(server["url"]), token or hub_token, "JupyterHub's service prefix"
                )
        tried.append(
            f"JupyterHub: JUPYTERHUB_SERVICE_URL is not set and no running server has the base "
            f"URL {prefix}"
        )
    else:
        tried.append("JupyterHub: JUPYTERHUB_SERVICE_PREFIX and JUPYTERHUB_API_TOKEN are not set")
    servers = _running()
    found = _pick(servers, tried)
    if found is None:
        raise ServerNotFound(
            "No Jupyter server found for this kernel. Tried: "
            + "; ".join(tried)
            + ". Pass the server's address and token: connect(url=..., token=...)."
        )
    server, rule = found
    server_token = token if token is not None else server.get("token", "")
    if not server_token:
        raise ServerNotFound(
            f"The Jupyter server at {server['url']} ({rule}) has no token in its server file "
            "(it may use a password): pass connect(token=...)."
        )
    return ServerInfo(_slash(server["url"]), server_token, rule)


def _pick(servers: list[dict[str, Any]], tried: list[str]) -> tuple[dict[str, Any], str] | None:
    from jupyter_core.paths import jupyter_runtime_dir

    where = f"running servers listed in {jupyter_runtime_dir()}"
    if not servers:
        tried.append(f"{where}: none")
        return None
    parents = {os.getppid()}
    if (given := os.environ.get("JPY_PARENT_PID", "")).isdigit():
        parents.add(int(given))
    for server in servers:
        if server.get("pid") in parents:
            return server, "the running server that started this kernel"
    cwd = Path.cwd().resolve()
    holding = []
    for server in servers:
        root = Path(server.get("root_dir") or server.get("notebook_dir") or "/").resolve()
        if cwd == root or root in cwd.parents:
            holding.append((len(root.parts), server))
    holding.sort(key=lambda pair: pair[0], reverse=True)
    if holding and (len(holding) == 1 or holding[0][0] > holding[1][0]):
        return holding[0][
            1
        ], "the running server whose root directory holds this kernel's working directory"
    listed = ", ".join(f"{s['url']} (root {s.get('root_dir')})" for s in servers)
    if holding:
        tried.append(f"{where}: several serve {cwd} equally: {listed}")
    else:
        tried.append(f"{where}: none started this kernel or serves {cwd}: {listed}")
    return None


def _running() -> list[dict[str, Any]]:
    from jupyter_server.serverapp import list_running_servers

    return list(list_running_servers())


def _slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"
