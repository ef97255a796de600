"""The room's configuration for tests, declared once as traitlets dicts.

In-process servers (pytest-jupyter's `jp_server_config`) take the dicts as they are; real server
processes get them written as a config file by `render`, classes as their import paths.
"""

from __future__ import annotations

from pathlib import Path

from jupyter_copilot_room.agent.copilot import CopilotAgent
from jupyter_copilot_room.agent.runtime import find_runtime

from ..scripted_agent import ScriptedAgent
from . import people

EXTENSION = {"jupyter_copilot_room": True}

# The environment variable holding the scripted model's key, and the key.
MODEL_KEY_ENV, MODEL_KEY = "SCRIPTED_MODEL_KEY", "test-key"

# JupyterLab, as the browser tests drive it: `window.jupyterapp` for the tests, no news fetch.
LAB = {"LabApp": {"expose_app_in_browser": True, "news_url": None}}

# JupyterLab user settings every lab starts with: no "get notified about Jupyter news?" toast
# (`news_url = None` alone does not stop it asking) and no update check.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def room(state_dir: Path | str, **overrides) -> dict:
    """A server with the room, the test people signed in by `people.SignedInUsers` with their
    roles, and the scripted test agent; `overrides` are `c.CopilotRoom` settings."""
    return {
        "ServerApp": {
            "jpserver_extensions": dict(EXTENSION),
            "identity_provider_class": people.SignedInUsers,
        },
        "CopilotRoom": {
            **{kind: list(names) for kind, names in people.ROLES.items()},
            "agent_class": ScriptedAgent,
            "state_dir": str(state_dir),
            **overrides,
        },
    }


def collaborative(server_config: dict, tmp: Path) -> dict:
    """`server_config` (pytest-jupyter's) with jupyter-collaboration's shared documents on and its
    stores in `tmp` (they default to the current directory)."""
    extensions = server_config["ServerApp"]["jpserver_extensions"]
    extensions.update({"jupyter_server_fileid": True, "jupyter_server_ydoc": True})
    server_config["SQLiteYStore"] = {"db_path": str(tmp / "ystore.db")}
    server_config["BaseFileIdManager"] = {"db_path": str(tmp / "file_id.db")}
    return server_config


def copilot_agent(base_url: str) -> dict:
    """`c.CopilotRoom` settings for the real Copilot agent whose model is the tests' scripted
    model at `base_url` (its key in `MODEL_KEY_ENV`)."""
    return {
        "agent_class": CopilotAgent,
        "model": "scripted-model",
        "provider": {"type": "openai", "base_url": base_url, "api_key_env": MODEL_KEY_ENV},
    }


#: The variable that holds the scripted model's key for an ACP agent: the Copilot runtime's own
#: name for it, passed to the agent by `env_from` (never written in the configuration).
ACP_KEY_ENV = "COPILOT_PROVIDER_API_KEY"


def copilot_over_acp(base_url: str) -> dict:
    """`c.CopilotRoom` settings for the pinned Copilot runtime as an ACP agent (`copilot --acp`)
    whose model is the tests' scripted model at `base_url` (its key in `ACP_KEY_ENV`)."""
    return {
        "default_agent": "copilot-acp",
        "agents": {
            "copilot-acp": {
                "acp": [find_runtime().path, "--acp"],
                "title": "Copilot over ACP",
                "env": {
                    "COPILOT_PROVIDER_BASE_URL": base_url,
                    "COPILOT_PROVIDER_TYPE": "openai",
                    "COPILOT_MODEL": "scripted-model",
                    "COPILOT_OFFLINE": "true",
                },
                "env_from": [ACP_KEY_ENV],
            }
        },
    }


def merge(*configs: dict) -> dict:
    """Sections merged left to right, later settings winning."""
    merged: dict = {}
    for config in configs:
        for section, settings in config.items():
            merged.setdefault(section, {}).update(settings)
    return merged


def render(config: dict) -> str:
    """`config` as the lines of a Jupyter config file."""
    return "".join(
        f"c.{section}.{name} = {_literal(value)}\n"
        for section, settings in config.items()
        for name, value in settings.items()
    )


def _literal(value) -> str:
    if isinstance(value, type):
        return repr(f"{value.__module__}.{value.__qualname__}")
    return repr(value)
