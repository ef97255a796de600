"""The bot's own token for Teams' connector: Entra ID's client credentials, through MSAL (which
keeps it until it is about to expire). The only module that imports msal; MSAL is synchronous,
so it runs in a thread."""

from __future__ import annotations

import asyncio

import msal
import requests

from ..reach import ServiceRefusal, ServiceWaiting
from .teams_settings import TeamsSettings

#: The audience of the Bot Connector's tokens.
CONNECTOR_SCOPE = "https://api.botframework.com/.default"
#: Entra ID's answers that mean the app id or its secret are wrong: said once, not retried.
BAD_CREDENTIALS = {"invalid_client", "unauthorized_client", "invalid_request"}
TIMEOUT = 20  # seconds of one call to Entra ID


class BotToken:
    def __init__(self, settings: TeamsSettings):
        self.settings = settings
        self._app: msal.ConfidentialClientApplication | None = None
        self._lock = asyncio.Lock()  # one call at a time, waiting here, not in a thread

    async def get(self) -> str:
        """A valid token (MSAL's cached one while it lasts); `ServiceRefusal(token=True)` for a
        wrong app id, secret or tenant, `ServiceWaiting` while Entra ID cannot be reached."""
        async with self._lock:
            return await asyncio.to_thread(self._acquire)

    def _acquire(self) -> str:
        try:
            if self._app is None:  # MSAL reads the authority's metadata here
                self._app = msal.ConfidentialClientApplication(
                    self.settings.app_id,
                    client_credential=self.settings.secret(),
                    authority=self.settings.login_url + self.settings.tenant_id,
                    instance_discovery=False,
                    timeout=TIMEOUT,
                )
            answer = self._app.acquire_token_for_client(scopes=[CONNECTOR_SCOPE])
        except (requests.RequestException, RuntimeError) as lost:
            raise ServiceWaiting(f"Entra ID unreachable ({type(lost).__name__})") from None
        except ValueError as unknown:  # MSAL: the authority's metadata was refused
            raise ServiceRefusal(
                f"Entra ID does not know the tenant ({unknown})", token=True
            ) from None
        if "access_token" in answer:
            return str(answer["access_token"])
        error = str(answer.get("error", ""))
        if error in BAD_CREDENTIALS:
            raise ServiceRefusal(f"Entra ID refused the bot's credentials ({error})", token=True)
        raise ServiceWaiting(f"Entra ID gave no token ({error or 'no answer'})")
