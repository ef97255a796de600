"""The Copilot account behind the runtime's login, as the runtime's account RPCs reach it: what
the seat has left (premium requests, which the room's header shows) and signing the login
out. The two ways a login is kept need two ways out: a keychain's login the runtime
removes itself, a plain-text one (no keychain) only the file can lose (`plaintext.py`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from copilot.generated.rpc import AccountGetQuotaRequest, AccountLogoutRequest, UserAuthInfo

from ...errors import Conflict
from ..seam import SeatQuota
from . import plaintext
from .connection import Connection
from .login_flow import reason

QUOTA_TIMEOUT = 10.0  # seconds; the runtime answers from the login it already read


async def log_out(connection: Connection, host: str, login: str) -> Callable[[], None] | None:
    """Sign `login` on `host` out: a keychain's login now (409 `signout_failed` if the runtime
    cannot), a plain-text one by the call returned, to run while the runtime is stopped."""
    base = connection.base
    if plaintext.holds(base, host, login):
        return functools.partial(plaintext.forget, base, host, login)
    user = UserAuthInfo(host=host, login=login)
    try:
        await connection.client.rpc.account.logout(AccountLogoutRequest(user))
    except Exception as err:
        raise Conflict(
            f"The Copilot runtime could not sign out ({reason(err)}). Remove the login "
            "on the server itself (from its keychain, or with /logout in the `copilot` "
            "CLI), then restart Jupyter.",
            code="signout_failed",
        ) from None
    return None


async def seat_quota(connection: Connection, log: logging.Logger) -> SeatQuota | None:
    """The login's premium requests: entitlement, use, reset; None if the runtime cannot say."""
    try:
        quota = await connection.client.rpc.account.get_quota(
            AccountGetQuotaRequest(git_hub_token=connection.token), timeout=QUOTA_TIMEOUT
        )
    except Exception as err:  # an older runtime, a login without quota: nothing to show
        log.debug("Copilot room: the runtime gave no quota: %s", err)
        return None
    premium = quota.quota_snapshots.get("premium_interactions")
    if premium is None:
        return None
    return SeatQuota(
        entitlement=premium.entitlement_requests,
        used=premium.used_requests,
        remaining_percentage=premium.remaining_percentage,
        unlimited=premium.is_unlimited_entitlement,
        resets_at=premium.reset_date,
    )
