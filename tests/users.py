"""People for tests: signed in by `Authorization: token <username>`, as a hub would vouch."""

from jupyter_server.auth.identity import IdentityProvider, User

USERS = ("alice", "bob", "carol", "dave", "erin")


class SignedInUsers(IdentityProvider):
    """A non-default identity provider, so its users count as verified."""

    def get_user(self, handler):
        header = handler.request.headers.get("Authorization", "")
        name = header.removeprefix("token ").strip() or handler.get_argument("token", "")
        if name not in USERS:
            return None
        handler._token_authenticated = True
        return User(username=name, display_name=name.title())
