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
from ..runtime import RuntimeMissing
from ..scripted_model import ScriptedModelServer
from ..seam import AgentSettings

TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")


def login_token() -> str | None:
    """A Copilot login from the environment, if any."""
    return next((os.environ[v] for v in TOKEN_VARIABLES if os.environ.get(v)), None)


@dataclass
class ModelAccess:
    session: dict[str, Any]  # `model` / `provider` for create_session and resume_session
    label: str  # what the room calls the model
    models: list[str] = field(default_factory=list)  # what a host may switch between
    via: str = ""  # the provider's host, for labels ("gpt-x via example.com")
    notes: list[str] = field(default_factory=list)  # what people should know about it
    ai_credits: bool = False  # model calls cost AI Credits: only through a Copilot login
    demo: ScriptedModelServer | None = None  # running only in demo mode

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
        return ModelAccess(
            {"provider": wire, "model": settings.model}, f"{settings.model} via {via}", models, via
        )
    if token is not None or (await client.get_auth_status()).isAuthenticated:
        session: dict[str, Any] = {"model": settings.model} if settings.model else {}
        if token is not None:
            session["github_token"] = token
        listed = await listed_models(client, settings, token, log)
        return ModelAccess(session, settings.model or "Copilot", listed, ai_credits=True)
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
    )
