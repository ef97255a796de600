"""People for tests: signed in by `Authorization: token <username>`, as a hub would vouch.

Browsers sign in once with `?token=<username>` on a page visit (`/lab?token=alice`): that request
is token-authenticated and also sets jupyter_server's login cookie, which identifies every later
request of that browser. Cookie-authenticated requests are not token-authenticated, so they go
through jupyter_server's XSRF check like any browser's (JupyterLab sends `X-XSRFToken`).
"""

from jupyter_server.auth.identity import IdentityProvider, User

USERS = ("alice", "bob", "carol", "dave", "erin")


class SignedInUsers(IdentityProvider):
    """A non-default identity provider, so its users count as verified."""

    def get_user(self, handler):
        header = handler.request.headers.get("Authorization", "")
        name = header.removeprefix("token ").strip()
        if name in USERS:
            handler._token_authenticated = True
            return self._user(name)
        # JupyterLab sends the server's own token (header and websocket `?token=`), which names
        # nobody: such requests are identified by the login cookie.
        name = handler.get_argument("token", "")
        if name in USERS:
            handler._token_authenticated = True
            user = self._user(name)
            if self._cookie_name(handler) != name:
                self.set_login_cookie(handler, user)
            return user
        return self._cookie_user(handler)

    @staticmethod
    def _user(name):
        return User(username=name, display_name=name.title())

    def _cookie_user(self, handler):
        name = self._cookie_name(handler)
        return self._user(name) if name in USERS else None

    def _cookie_name(self, handler):
        user = self.get_user_cookie(handler)  # synchronous in the base class
        return user.username if user is not None else None
