"""The login the runtime keeps in plain text on a server with no keychain, after a host allowed it
(`login_flow.py`): in `state_dir/copilot/config.json`, which the runtime reads when it starts.

Its logout request (1.0.102) cannot remove that login: it asks the keychain, which is not there
('Keychain error: No default store'). So a sign-out removes the login from the file itself, while
the runtime is stopped (it keeps the file's content in memory and writes it back).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...statefiles import write_json_atomically

CONFIG = "config.json"  # the runtime's own file in its base directory (JSON after `//` lines)


def _read_config(path: Path) -> dict:
    """The file's object without its leading comment lines; {} when there is no file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return {}
    return json.loads("\n".join(line for line in lines if not line.lstrip().startswith("//")))


def holds(base: Path, host: str, login: str) -> bool:
    """Whether the runtime keeps this login's token in plain text."""
    return any(_of(key, host, login) for key in _read_config(base / CONFIG).get("authTokens", {}))


def forget(base: Path, host: str, login: str) -> None:
    """Remove the login's tokens and its entries; the rest of the file stays as it was."""
    path = base / CONFIG
    config = _read_config(path)
    tokens = config.get("authTokens", {})
    config["authTokens"] = {k: v for k, v in tokens.items() if not _of(k, host, login)}
    users = config.get("loggedInUsers", [])
    config["loggedInUsers"] = [u for u in users if (u.get("host"), u.get("login")) != (host, login)]
    last = config.get("lastLoggedInUser") or {}
    if (last.get("host"), last.get("login")) == (host, login):
        del config["lastLoggedInUser"]
    write_json_atomically(path, config)


def _of(key: str, host: str, login: str) -> bool:
    """Token keys are `<host>:<login>` and `<host>:<login>:<service>`."""
    return key == f"{host}:{login}" or key.startswith(f"{host}:{login}:")
