"""Signing the runtime in to GitHub Copilot from the panel, with the runtime's own login flow
(the experimental `session.accounts.login` RPC), never an OAuth app of ours.

The runtime (1.0.102) signs in to github.com with OAuth in a browser (PKCE), not a device code:
`begin` gives the authorize URL, whose redirect goes to a listener of the runtime's on 127.0.0.1;
`advance` waits until a browser lands there, then exchanges the code and stores the login. A host
whose browser runs on another machine (a hub) lands on a page that does not load: the host pastes
that address into the panel and the room hands it to the runtime's listener (`deliver`), which
only accepts the flow's own `state`. With `c.CopilotRoom.github_host` the flow is GitHub
Enterprise Cloud's (`proxima`): the runtime first asks for the host, then goes on the same way.

On a server with no keychain the runtime ends with `needs-plaintext-consent`: it would keep the
token in plain text in its state directory (`state_dir/copilot/`), and does so only after an
`advance` with the input `allow` (a host's explicit click in the panel).
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import parse_qs, urlparse

from copilot.generated.rpc import (
    AuthLoginAdvanceRequest,
    AuthLoginBeginRequest,
    AuthLoginCancelRequest,
    AuthLoginResultStatus,
    AuthLoginStepKind,
    LoginProviderKind,
)

from ...errors import InvalidRequest
from ..seam import ConsentNeeded, SignInFailed

ALLOW = "allow"  # the one input the runtime takes as consent (`yes`, `true` are declines)


class CopilotLoginFlow:
    """One run of the runtime's login flow (github.com, or an enterprise host) in the room's
    session."""

    def __init__(self, session: Any, host: str = ""):
        self.session = session
        self.host = host
        self.flow_id = ""
        self.url = ""  # where the host signs in
        self.callback = ""  # where the browser lands afterwards (the runtime's listener)
        self._state = ""

    async def begin(self) -> str:
        kind = LoginProviderKind.PROXIMA if self.host else LoginProviderKind.GITHUB_DOT_COM
        begun = await self.session.rpc.accounts.login.begin(AuthLoginBeginRequest(kind=kind))
        self.flow_id, step = begun.flow_id, begun.step
        if self.host and step.kind == AuthLoginStepKind.INPUT_REQUIRED:  # "Enter your ... host"
            step = await self.advance(self.host)
        if step.kind != AuthLoginStepKind.OPEN_URL or not step.url:
            await self.cancel()
            raise SignInFailed(
                f"The runtime's login flow asked for '{step.kind.value}'"
                f"{f' ({step.message})' if step.message else ''}, which the room cannot show; "
                "sign in from a terminal (`copilot login`) instead."
            )
        self.url = step.url
        query = parse_qs(urlparse(self.url).query)
        self.callback = (query.get("redirect_uri") or [""])[0]
        self._state = (query.get("state") or [""])[0]
        return self.url

    async def advance(self, given: str | None = None) -> Any:
        try:
            return await self.session.rpc.accounts.login.advance(
                AuthLoginAdvanceRequest(flow_id=self.flow_id, input=given), timeout=None
            )
        except Exception as err:
            raise SignInFailed(f"Signing in to GitHub did not work: {reason(err)}") from None

    async def finish(self) -> str:
        """Wait for the browser's return, then the login's name ("" if the runtime does not say);
        `ConsentNeeded` when the runtime asks before keeping the token in plain text."""
        return await self.ended(await self.advance(), asked=False)

    async def allow(self) -> str:
        """A host's consent: the runtime keeps the token in plain text; the login's name."""
        return await self.ended(await self.advance(ALLOW), asked=True)

    async def ended(self, step: Any, asked: bool) -> str:
        if step.kind == AuthLoginStepKind.ERROR:
            raise SignInFailed(f"Signing in to GitHub did not work: {step.message or 'no reason'}")
        result = step.result
        if step.kind != AuthLoginStepKind.COMPLETED or result is None:
            await self.cancel()
            raise SignInFailed(
                f"The runtime's login flow went on to '{step.kind.value}', which the room cannot "
                "show; sign in from a terminal (`copilot login`) instead."
            )
        if result.status == AuthLoginResultStatus.NEEDS_PLAINTEXT_CONSENT and not asked:
            raise ConsentNeeded()
        if result.status != AuthLoginResultStatus.COMPLETED:
            await self.cancel()
            raise SignInFailed(
                f"The runtime did not store the login ({result.status.value}): on a server with "
                "no keychain, sign in from a terminal (`copilot login`) or set "
                "COPILOT_GITHUB_TOKEN."
            )
        return result.login or ""

    async def deliver(self, landed: str) -> None:
        """Hand the address the host's browser landed on to the runtime's listener."""
        where, expected = urlparse(landed.strip()), urlparse(self.callback)
        state = (parse_qs(where.query).get("state") or [""])[0]
        if (where.netloc, where.path) != (expected.netloc, expected.path) or state != self._state:
            raise InvalidRequest(
                "That is not the address this sign-in returns to: paste the whole address "
                f"your browser shows after GitHub (it starts with {self.callback}?code=).",
                code="wrong_signin_address",
            )
        # The listener answers or not: `finish` says how the flow ended.
        with contextlib.suppress(urllib.error.URLError, OSError):
            await asyncio.to_thread(_fetch, landed.strip())

    async def cancel(self) -> None:
        if self.flow_id:
            with contextlib.suppress(Exception):  # a flow that ended has nothing to cancel
                await self.session.rpc.accounts.login.cancel(
                    AuthLoginCancelRequest(flow_id=self.flow_id)
                )


def _fetch(url: str) -> None:
    with urllib.request.urlopen(url, timeout=30) as answer:  # checked: the runtime's listener
        answer.read()


def reason(err: Exception) -> str:
    """The runtime's words, without the JSON-RPC wrapping."""
    text = str(err)
    return text.split("failed with message: ", 1)[-1]
