"""Finding the Copilot runtime binary, and installing the pinned one from the npm registry.

Order: `c.CopilotRoom.cli_path`, then `COPILOT_CLI_PATH`, then the runtime installed by
`jupyter copilot-room install-runtime` into the cache directory below, then the SDK's own
download (which needs GitHub Releases; many servers cannot reach it, the npm registry they can).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: The runtime version tested with the pinned SDK (github-copilot-sdk 1.0.27 speaks its protocol).
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
    """No runtime could be found; the message says how to get one."""


@dataclass(frozen=True)
class RuntimeLocation:
    path: str | None  # None: let the SDK download its own
    source: str  # config | environment | npm cache | sdk download


def npm_package() -> str:
    key = (sys.platform, platform.machine().lower())
    if key not in _PLATFORMS:
        raise RuntimeMissing(f"The Copilot runtime is not published for {key[0]}/{key[1]}.")
    return f"@github/copilot-{_PLATFORMS[key]}"


def cache_dir(version: str = RUNTIME_VERSION) -> Path:
    """`$JUPYTER_COPILOT_ROOM_RUNTIME_DIR`, else `~/.cache/jupyter-copilot-room/runtime`."""
    root = os.environ.get("JUPYTER_COPILOT_ROOM_RUNTIME_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "jupyter-copilot-room" / "runtime"
    return base / version


def installed_binary(version: str = RUNTIME_VERSION) -> Path:
    name = "copilot.exe" if sys.platform == "win32" else "copilot"
    return cache_dir(version) / "node_modules" / npm_package() / name


def find_runtime(cli_path: str = "") -> RuntimeLocation:
    if cli_path:
        if not Path(cli_path).is_file():
            raise RuntimeMissing(
                f"c.CopilotRoom.cli_path points to {cli_path}, which is not a file."
            )
        return RuntimeLocation(cli_path, "config")
    if env_path := os.environ.get("COPILOT_CLI_PATH"):
        if not Path(env_path).is_file():
            raise RuntimeMissing(f"COPILOT_CLI_PATH points to {env_path}, which is not a file.")
        return RuntimeLocation(env_path, "environment")
    try:
        binary = installed_binary()
    except RuntimeMissing:
        binary = None
    if binary is not None and binary.is_file():
        return RuntimeLocation(str(binary), "npm cache")
    return RuntimeLocation(None, "sdk download")


MISSING_HELP = (
    "No Copilot runtime was found. Install the pinned one from the npm registry with "
    "`jupyter copilot-room install-runtime`, or point c.CopilotRoom.cli_path (or "
    "COPILOT_CLI_PATH) at a copilot binary."
)


def install_runtime(version: str = RUNTIME_VERSION) -> Path:
    """`npm install` the runtime package into the cache directory; returns the binary's path."""
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeMissing("npm is needed to install the Copilot runtime; install Node.js.")
    target = cache_dir(version)
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
            f"{npm_package()}@{version}",
        ],
        check=True,
    )
    binary = installed_binary(version)
    if not binary.is_file():
        raise RuntimeMissing(f"npm finished but {binary} is missing.")
    return binary
