"""Finding the Copilot runtime binary, and installing the pinned one from the npm registry.

Order: `c.CopilotRoom.cli_path`, then `COPILOT_CLI_PATH`, then the runtime installed by
`jupyter copilot-room install-runtime` into the cache directory below. Nothing else: the room
always hands the SDK a path, so the SDK never downloads a runtime of its own (its own pin,
1.0.104 for github-copilot-sdk 1.0.27, is not on the npm registry, and its download from GitHub
Releases blocks the server while it tries). One version is installed, found and run:
`RUNTIME_VERSION`.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: The one runtime version the room installs, looks for and runs: the newest on the npm registry
#: that github-copilot-sdk 1.0.27 (pyproject.toml) speaks to, and the one the tests run.
RUNTIME_VERSION = "1.0.102"

_PLATFORMS = {
    ("linux", "x86_64"): "linux-x64",
    ("linux", "aarch64"): "linux-arm64",
    ("linux", "arm64"): "linux-arm64",
    ("darwin", "x86_64"): "darwin-x64",
    ("darwin", "arm64"): "darwin-arm64",
    ("win32", "amd64"): "win32-x64",
    ("win32", "arm64"): "win32-arm64",
}


class RuntimeMissing(Exception):
    """The agent cannot start for a reason a person can fix: the message says what to do (a short
    paragraph for people), `details` says what exactly was found (for the curious and the log)."""

    def __init__(self, advice: str, details: str = ""):
        super().__init__(advice)
        self.advice = advice
        self.details = details


@dataclass(frozen=True)
class RuntimeLocation:
    path: str
    source: str  # config | environment | npm cache


def npm_package() -> str:
    key = (sys.platform, platform.machine().lower())
    if key not in _PLATFORMS:
        raise RuntimeMissing(f"The Copilot runtime is not published for {key[0]}/{key[1]}.")
    return f"@github/copilot-{_PLATFORMS[key]}"


def cache_dir() -> Path:
    """`$JUPYTER_COPILOT_ROOM_RUNTIME_DIR`, else `~/.cache/jupyter-copilot-room/runtime`."""
    root = os.environ.get("JUPYTER_COPILOT_ROOM_RUNTIME_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "jupyter-copilot-room" / "runtime"
    return base / RUNTIME_VERSION


def installed_binary() -> Path:
    name = "copilot.exe" if sys.platform == "win32" else "copilot"
    return cache_dir() / "node_modules" / npm_package() / name


#: What to do once a runtime is in place: the room finds it again when a host retries.
RETRY = "then a host presses Try again in the room (no server restart needed)."


def find_runtime(cli_path: str = "") -> RuntimeLocation:
    """Where the runtime is, or `RuntimeMissing` saying what to do."""
    configured = (
        (cli_path, "c.CopilotRoom.cli_path", "config"),
        (os.environ.get("COPILOT_CLI_PATH", ""), "COPILOT_CLI_PATH", "environment"),
    )
    for path, name, source in configured:
        if not path:
            continue
        if not Path(path).is_file():
            raise RuntimeMissing(
                f"The Copilot runtime is not where {name} says. Point it at a copilot binary "
                f"(or remove it and run `jupyter copilot-room install-runtime` on the server); "
                + RETRY,
                f"{name} is {path}, which is not a file.",
            )
        return RuntimeLocation(path, source)
    binary = installed_binary()
    if binary.is_file():
        return RuntimeLocation(str(binary), "npm cache")
    raise RuntimeMissing(
        "The Copilot runtime is not installed on this server. Someone with a terminal on the "
        "server runs `jupyter copilot-room install-runtime`; " + RETRY,
        f"No runtime {RUNTIME_VERSION} at {binary} (install-runtime puts it there; "
        "$JUPYTER_COPILOT_ROOM_RUNTIME_DIR moves it), and neither c.CopilotRoom.cli_path nor "
        "COPILOT_CLI_PATH is set.",
    )


def install_runtime() -> Path:
    """`npm install` the runtime package into the cache directory; returns the binary's path."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeMissing("npm is needed to install the Copilot runtime; install Node.js.")
    target = cache_dir()
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(target),
            f"{npm_package()}@{RUNTIME_VERSION}",
        ],
        check=True,
    )
    binary = installed_binary()
    if not binary.is_file():
        raise RuntimeMissing(f"npm finished but {binary} is missing.")
    return binary
