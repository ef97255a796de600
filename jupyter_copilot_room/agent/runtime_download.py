"""The pinned Copilot runtime fetched from the npm registry with Python alone: no Node, no npm.

The registry's metadata for `@github/copilot-<platform>@RUNTIME_VERSION` names the tarball; its
bytes must hash to the integrity pinned below for that platform (sha512, as npm's lockfiles write
it), which is also what the registry says: a mirror or a proxy that serves anything else is
refused before anything is unpacked. An air-gapped hub installs from a tarball on disk (`--from`),
checked against the same pin. The package is unpacked where npm puts it
(`runtime.installed_binary()`), so the room finds either install the same way. The registry is
npm's own setting, `npm_config_registry`, else registry.npmjs.org; proxies and certificates are
Python's (`HTTPS_PROXY`, `SSL_CERT_FILE`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from .runtime import RUNTIME_VERSION, RuntimeMissing, installed_binary, npm_package

#: `dist.integrity` of each platform's package at RUNTIME_VERSION, read from the registry when
#: the version was pinned (a published npm version never changes).
RUNTIME_INTEGRITY = {
    "@github/copilot-linux-x64": (
        "sha512-eGHPbsP0p2QgfVZCjtbGBFZPBOJQ0DN7xIbBRAo7oG8b1zfLirQIdfI4h8Iy68Dv2cKJGJZg2/EO7W7KpIMJOw=="
    ),
    "@github/copilot-linux-arm64": (
        "sha512-5rO0B2/AduCekrE+aUzipySKZxZY2b/tVRZ8Suy8ymPFNC0Q7HQiQ8DZhxj+3RhHR8rU2Z8KOJVAbtMlROX6+A=="
    ),
    "@github/copilot-darwin-x64": (
        "sha512-n4jBdS+QxrXWiQ9v9tUBZUcJ0hlWVG75Qs3Gzo25BRzlWQSSd5eCNrfOVf4Cr95mAK/L54dne+8rSwASNRG7qA=="
    ),
    "@github/copilot-darwin-arm64": (
        "sha512-M4Jwxvw9CzxQUVoAz4UFbwFw9SpjUXbMzD481ifFJ+o/GXYJy5+sYxWRSfGhPA9e/w4DlWxdpkSQFnagl/AYbA=="
    ),
    "@github/copilot-win32-x64": (
        "sha512-ShdlICQu/Ei0mRX5J/ioaWUm7Kt6TpUvyQFuhFhS+Vb/7VVDi4/6pJAjcETeUJCHe9lkhF25swzcZXsun/i9Hg=="
    ),
    "@github/copilot-win32-arm64": (
        "sha512-QhbEEfrAri+TA/S+xpUbOpWrzxfmQj5Ncgn6YF6SoI9zLdF57yt6Bd9sVAxWfsmmI0F2wmlQOHQ+s+7EjXQWgQ=="
    ),
}

DEFAULT_REGISTRY = "https://registry.npmjs.org/"
CHUNK = 1 << 20
TIMEOUT = 60.0  # seconds without a byte before the download gives up

Progress = Callable[[int, int], None]  # bytes so far, bytes in all (0 when unknown)


def registry() -> str:
    """npm's own setting, which npm reads in either case."""
    named = os.environ.get("npm_config_registry") or os.environ.get("NPM_CONFIG_REGISTRY")  # noqa: SIM112
    return (named or DEFAULT_REGISTRY).rstrip("/") + "/"


def download_runtime(progress: Progress = lambda done, total: None) -> Path:
    """Fetch, check and unpack the pinned runtime; the binary's path."""
    package = npm_package()
    where = registry() + urllib.parse.quote(package, safe="@") + "/" + RUNTIME_VERSION
    metadata = json.loads(_read(where, "the runtime's metadata"))
    said = metadata.get("dist", {}).get("integrity")
    if said != RUNTIME_INTEGRITY[package]:
        raise RuntimeMissing(
            f"The registry at {registry()} describes {package}@{RUNTIME_VERSION} with another "
            "integrity than the one this room pins: nothing was installed.",
            f"It says {said!r}; the pin is {RUNTIME_INTEGRITY[package]!r}.",
        )
    with tempfile.TemporaryFile() as tarball:
        _fetch(metadata["dist"]["tarball"], tarball, progress)
        return _install(tarball, package)


def install_tarball(path: Path) -> Path:
    """Check and unpack a runtime tarball already on disk (an air-gapped hub's)."""
    try:
        with path.open("rb") as tarball:
            return _install(tarball, npm_package())
    except OSError as err:
        raise RuntimeMissing(f"The tarball {path} cannot be read: {err.strerror or err}.") from None


def _install(tarball, package: str) -> Path:
    tarball.seek(0)
    digest = hashlib.sha512()
    while block := tarball.read(CHUNK):
        digest.update(block)
    got = "sha512-" + base64.b64encode(digest.digest()).decode()
    if got != RUNTIME_INTEGRITY[package]:
        raise RuntimeMissing(
            f"The tarball is not {package}@{RUNTIME_VERSION}: its integrity check failed, so "
            "nothing was installed.",
            f"Its sha512 is {got}; the pin is {RUNTIME_INTEGRITY[package]}.",
        )
    tarball.seek(0)
    binary = installed_binary()
    target = binary.parent
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".copilot-", dir=target.parent))
    staging.chmod(0o755)  # as npm leaves it: a hub image's root installs, its user runs
    try:
        with tarfile.open(fileobj=tarball, mode="r:gz") as archive:
            members = [m for m in archive.getmembers() if m.name.startswith("package/")]
            for member in members:
                member.name = member.name.removeprefix("package/")
            archive.extractall(staging, members=members, filter="data")
        unpacked = staging / binary.name
        if not unpacked.is_file():
            raise RuntimeMissing(f"The tarball has no {binary.name}: nothing was installed.")
        unpacked.chmod(0o755)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return binary


def _read(url: str, what: str) -> bytes:
    out = io.BytesIO()
    _fetch(url, out, lambda done, total: None, what)
    return out.getvalue()


def _fetch(url: str, out, progress: Progress, what: str = "the runtime") -> None:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            total = int(response.headers.get("Content-Length") or 0)
            done = 0
            while block := response.read(CHUNK):
                out.write(block)
                done += len(block)
                progress(done, total)
    except urllib.error.HTTPError as err:
        raise RuntimeMissing(
            f"The npm registry answered {err.code} for {what} ({url}).",
            f"{err.code} {err.reason}",
        ) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise RuntimeMissing(
            f"The npm registry cannot be reached for {what} ({url}): {reason}. Check the "
            "network (or HTTPS_PROXY), or install from a tarball with --from.",
            str(reason),
        ) from None


def terminal_progress(done: int, total: int) -> None:
    """A one-line progress on a terminal (nothing otherwise: a Dockerfile's log stays short)."""
    if not sys.stderr.isatty():
        return
    shown = f"{done / total:4.0%} of {total / 1e6:.0f} MB" if total else f"{done / 1e6:.0f} MB"
    sys.stderr.write(f"\rDownloading the Copilot runtime: {shown}")
    if total and done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()
