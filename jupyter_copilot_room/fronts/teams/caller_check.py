"""Whether a call to the messaging endpoint comes from Teams: its bearer token is a JWT Bot
Framework signed (RS256, with a key its OpenID metadata publishes), issued for this bot (`aud`
is the app id), still valid, and naming the connector the activity says it came from (the
`serviceurl` claim), so a stolen token cannot point the bot at another URL. PyJWT checks it,
as the Agents SDK's own validator does; the metadata's place is configurable (`openid_url`)."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import jwt

from ...errors import Unauthorized, Unavailable

ISSUER = "https://api.botframework.com"
#: Seconds the metadata (where the keys are) is kept; the keys themselves are fetched again
#: when a token names one not seen yet (Bot Framework rolls them).
METADATA_LASTS = 24 * 3600.0
LEEWAY = 300.0  # Bot Framework's allowed clock skew


class CallerCheck:
    def __init__(self, app_id: str, openid_url: str):
        self.app_id = app_id
        self.openid_url = openid_url
        self._keys: jwt.PyJWKClient | None = None
        self._read_at = 0.0

    async def verify(self, authorization: str) -> str:
        """The connector the call's token was issued for (its `serviceurl`, which the activity
        must name); `Unauthorized` unless Bot Framework signed it for this bot, `Unavailable`
        while the keys cannot be read (Teams tries again)."""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise Unauthorized("A call from Teams carries a Bot Framework token.")
        keys = await self._key_client()
        try:
            key = await asyncio.to_thread(keys.get_signing_key_from_jwt, token)
            claims = jwt.decode(
                token,
                key.key,
                algorithms=["RS256"],
                audience=self.app_id,
                issuer=ISSUER,
                leeway=LEEWAY,
                options={"require": ["exp", "aud", "iss"]},
            )
        except jwt.PyJWKClientConnectionError:
            raise Unavailable("Bot Framework's keys cannot be read now.") from None
        except (jwt.PyJWTError, jwt.PyJWKClientError) as bad:
            raise Unauthorized(f"The call's token is not valid: {bad}.") from None
        return str(claims.get("serviceurl") or "")

    async def _key_client(self) -> jwt.PyJWKClient:
        if self._keys is None or time.monotonic() - self._read_at > METADATA_LASTS:
            try:
                timeout = aiohttp.ClientTimeout(total=20)
                async with (
                    aiohttp.ClientSession(timeout=timeout, trust_env=True) as session,
                    session.get(self.openid_url) as answer,
                ):
                    answer.raise_for_status()
                    jwks_uri = str((await answer.json(content_type=None))["jwks_uri"])
            except (aiohttp.ClientError, TimeoutError, KeyError, ValueError, TypeError):
                raise Unavailable("Bot Framework's OpenID metadata cannot be read now.") from None
            self._keys = jwt.PyJWKClient(jwks_uri, cache_keys=True, lifespan=3600, timeout=10)
            self._read_at = time.monotonic()
        return self._keys
