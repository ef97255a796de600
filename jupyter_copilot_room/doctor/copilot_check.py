"""The Copilot runtime (found where the room looks, and its version against the pinned one) and
where the model access comes from: the provider and its key variable, the Copilot login's
variable, or demo mode. Names variables, never their values."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from typing import Any

from ..agent.login_variables import TOKEN_VARIABLES, login_variable
from ..agent.runtime import RUNTIME_VERSION, RuntimeMissing, find_runtime
from .finding import Check

_VERSION = re.compile(r"\d+\.\d+\.\d+")


async def checks(cli_path: str, provider: Mapping[str, Any]) -> list[Check]:
    return [await runtime(cli_path), model_access(provider)]


async def runtime(cli_path: str) -> Check:
    try:
        found = find_runtime(cli_path)
    except RuntimeMissing as err:
        return Check("Copilot runtime", False, err.details or str(err), err.advice)
    version = await runtime_version(found.path)
    where = f"{found.path} (from the {found.source})"
    if version == RUNTIME_VERSION:
        return Check("Copilot runtime", True, f"{version} at {where}, the pinned version")
    return Check(
        "Copilot runtime",
        False,
        f"{version or 'an unknown version'} at {where}; the room is pinned to {RUNTIME_VERSION}",
        f"run `jupyter copilot-room install-runtime` (and unset what points at {found.path})",
    )


async def runtime_version(path: str) -> str:
    """What `<runtime> --version` says its version is ("" if it does not say)."""
    try:
        process = await asyncio.create_subprocess_exec(
            path,
            "--version",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            stdin=asyncio.subprocess.DEVNULL,
        )
        out, _ = await asyncio.wait_for(process.communicate(), 20)
    except (OSError, TimeoutError):
        return ""
    found = _VERSION.search(out.decode(errors="replace"))
    return found.group(0) if found else ""


def model_access(provider: Mapping[str, Any]) -> Check:
    """Which model access the room will choose, in its order (`agent/copilot/model_access.py`)."""
    key_variable = str(provider.get("api_key_env", "")) if provider else ""
    if provider:
        via = provider.get("base_url", "")
        if key_variable and not os.environ.get(key_variable):
            return Check(
                "Model",
                False,
                f"c.CopilotRoom.provider at {via} names the key variable {key_variable}, "
                "which is not set",
                f"set {key_variable} in the server's environment",
            )
        key = f", its key from {key_variable}" if key_variable else ""
        return Check("Model", True, f"c.CopilotRoom.provider at {via}{key}")
    variable = login_variable()
    if variable is not None:
        return Check("Model", True, f"a Copilot login from {variable} (its value not shown)")
    return Check(
        "Model",
        True,
        "no Copilot login in the environment: demo mode, unless the runtime keeps a sign-in "
        f"(a host signs in from the panel; or set {TOKEN_VARIABLES[0]})",
    )
