"""The people of every test, declared once: who they are, what the room makes of them, and how
they sign in.

A plain test server (`SignedInUsers` below) signs a person in by `Authorization: token <name>`, as
a hub would vouch for them: a person's token is their name. Browsers sign in once with
`?token=<name>` on a page visit (`/lab?token=alice`): that request is token-authenticated and also
sets jupyter_server's login cookie, which identifies every later request of that browser.
Cookie-authenticated requests are not token-authenticated, so they go through jupyter_server's
XSRF check like any browser's (JupyterLab sends `X-XSRFToken`).

On JupyterHub (`tests/hub/`) the same five sign in on the hub's login page; the hub issues their
API tokens, and the room learns their roles from the hub (the owner, a group, custom scopes).
"""

from jupyter_server.auth.identity import IdentityProvider, User

PEOPLE = ("alice", "bob", "carol", "dave", "erin")

# What the test servers' configuration makes of them; dave and erin wait at the door (pending).
HOST, MEMBER, VIEWER = "alice", "bob", "carol"
ROLES = {"hosts": [HOST], "members": [MEMBER], "viewers": [VIEWER]}

# On the hub: alice owns the server (so she is its host); carol is in the group the room admits
# as members; dave holds the viewer scope for alice's server, erin the member scope for bob's only.
HUB_OWNER = HOST
HUB_GROUPS = {"pairing": ["carol"]}
MEMBER_GROUPS = ["pairing"]
HUB_SCOPES = {
    "dave": "custom:copilot-room:viewer!server=alice/",
    "erin": "custom:copilot-room:member!server=bob/",
}
HUB_PASSWORD = "pairing-password"  # DummyAuthenticator takes any password; the form wants one

# Someone whose username is a hex id, as jupyter_server's anonymous users have, and whose display
# name differs from it (not on the hub): the panel must show the name, never the id. Unlisted, so
# they wait at the door like dave and erin.
GUEST = "6e623df3a1b24c6d"
DISPLAY_NAMES = {GUEST: "Anonymous Callirrhoe"}


def token(name: str) -> str:
    """The token `name` signs in with on a test server."""
    return name


def authorization(name: str | None) -> dict[str, str]:
    """The request headers that sign `name` in (none: nobody)."""
    return {"Authorization": f"token {token(name)}"} if name else {}


class SignedInUsers(IdentityProvider):
    """A non-default identity provider, so its users count as verified."""

    def get_user(self, handler):
        header = handler.request.headers.get("Authorization", "")
        name = self._named(header.removeprefix("token ").strip())
        if name is not None:
            handler._token_authenticated = True
            return self._user(name)
        # JupyterLab sends the server's own token (header and websocket `?token=`), which names
        # nobody: such requests are identified by the login cookie.
        name = self._named(handler.get_argument("token", ""))
        if name is not None:
            handler._token_authenticated = True
            user = self._user(name)
            if self._cookie_name(handler) != name:
                self.set_login_cookie(handler, user)
            return user
        return self._cookie_user(handler)

    @staticmethod
    def _named(given: str) -> str | None:
        return next((name for name in (*PEOPLE, GUEST) if token(name) == given), None)

    @staticmethod
    def _user(name):
        return User(username=name, display_name=DISPLAY_NAMES.get(name, name.title()))

    def _cookie_user(self, handler):
        name = self._cookie_name(handler)
        return self._user(name) if name in (*PEOPLE, GUEST) else None

    def _cookie_name(self, handler):
        user = self.get_user_cookie(handler)  # synchronous in the base class
        return user.username if user is not None else None
