"""How the session reaches a model, in order: the configured provider (bring your own key), a
Copilot login, or the demo model, a scripted server inside this process that drives the real
runtime so a fresh `jupyter lab` shows a working room.

Secrets go to the runtime as arguments, never in its environment (which its shell commands
inherit, `environment.py`): the provider's key in the session's `provider`, a login's token as
the session's `github_token` and on each account request (`models.list`, `account.getQuota`),
which the runtime (1.0.102) accepts per request and checks against GitHub.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from copilot import CopilotClient
from copilot.generated.rpc import ModelsListRequest

from ..demo import DEMO_LABEL, DEMO_MODEL, DEMO_NOTE, DemoScript
from ..login_variables import TOKEN_VARIABLES, login_token, login_variable
from ..runtime import RuntimeMissing
from ..scripted_model import ScriptedModelServer
from ..seam import AgentSettings

__all__ = ["TOKEN_VARIABLES", "ModelAccess", "choose_model_access", "login_token"]
#: Where the model access came from, as the room's header says it (never a secret's value).
DEMO_SOURCE = "the demo model: no Copilot login and no provider"


@dataclass
class ModelAccess:
    session: dict[str, Any]  # `model` / `provider` for create_session and resume_session
    label: str  # what the room calls the model
    models: list[str] = field(default_factory=list)  # what a host may switch between
    via: str = ""  # the provider's host, for labels ("gpt-x via example.com")
    notes: list[str] = field(default_factory=list)  # what people should know about it
    ai_credits: bool = False  # model calls cost AI Credits: only through a Copilot login
    demo: ScriptedModelServer | None = None  # running only in demo mode
    #: Where it came from: the variable of a Copilot login, the runtime's own sign-in, the
    #: provider, or the demo (`GET room`'s `agent_source`); a variable's name, never its value.
    source: str = ""

    async def close(self) -> None:
        if self.demo is not None:
            await self.demo.stop()


async def listed_models(
    client: CopilotClient, settings: AgentSettings, token: str | None, log: logging.Logger
) -> list[str]:
    """The models the Copilot login offers (the configured one first); none if it cannot say."""
    try:
        found = await client.rpc.models.list(ModelsListRequest(git_hub_token=token))
        listed = [model.id for model in found.models]
    except Exception as err:
        log.warning("Copilot room: could not list the login's models: %s", err)
        listed = []
    return list(dict.fromkeys([m for m in (settings.model, *listed) if m]))


async def choose_model_access(
    settings: AgentSettings, client: CopilotClient, token: str | None, log: logging.Logger
) -> ModelAccess:
    provider = settings.provider
    if provider:
        key_variable = provider.get("api_key_env", "")
        key = os.environ.get(key_variable, "") if key_variable else ""
        if key_variable and not key:
            raise RuntimeMissing(f"The provider's key variable {key_variable} is not set.")
        if not settings.model:
            raise RuntimeMissing("A provider needs c.CopilotRoom.model (the model to ask).")
        if "api_key" in provider:
            log.warning(
                "c.CopilotRoom.provider['api_key'] is ignored: keep the key in an environment "
                "variable and name it in 'api_key_env'."
            )
        wire = {k: v for k, v in provider.items() if k not in ("api_key_env", "api_key")}
        wire["api_key"] = key or "none"
        via = urlparse(wire.get("base_url", "")).netloc
        models = list(dict.fromkeys([settings.model, *settings.models]))
        key_from = f", its key from {key_variable}" if key_variable else ""
        return ModelAccess(
            {"provider": wire, "model": settings.model},
            f"{settings.model} via {via}",
            models,
            via,
            source=f"c.CopilotRoom.provider at {via}{key_from}",
        )
    status = None if token is not None else await client.get_auth_status()
    if token is not None or (status is not None and status.isAuthenticated):
        session: dict[str, Any] = {"model": settings.model} if settings.model else {}
        if token is not None:
            session["github_token"] = token
        listed = await listed_models(client, settings, token, log)
        return ModelAccess(
            session,
            settings.model or "Copilot",
            listed,
            ai_credits=True,
            source=login_source(status.login if status is not None else None),
        )
    demo = ScriptedModelServer(DemoScript(settings.repository), model=DEMO_MODEL)
    demo.start()
    return ModelAccess(
        {
            "provider": {"type": "openai", "base_url": demo.base_url, "api_key": "demo"},
            "model": DEMO_MODEL,
        },
        DEMO_LABEL,
        notes=[DEMO_NOTE],
        demo=demo,
        source=DEMO_SOURCE,
    )


def login_source(signed_in: str | None) -> str:
    """Where a Copilot login came from: the variable it was read from, else the runtime's own
    sign-in (the panel's, kept in the runtime's file), naming its login when known."""
    if (variable := login_variable()) is not None:
        return f"a Copilot login from {variable}"
    return f"the Copilot login of {signed_in}, signed in" if signed_in else "a Copilot sign-in"
