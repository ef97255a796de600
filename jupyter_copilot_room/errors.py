"""The room's errors: one small hierarchy, each carrying its HTTP status and a stable code.

Pure modules raise these; `handlers/room_handler.py` turns them into `{"error": code, "message":
text}` in one place, so a message written here is exactly what a person sees in the panel. The
in-process API (`api/`) raises them as they are: `Refused` is its public name.
"""


class Refused(Exception):
    """Something a client asked for that the room will not do; the message says what to do."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class InvalidRequest(Refused):
    status = 400
    code = "invalid_request"


class NotAllowed(Refused):
    """The caller's role does not allow the action."""

    status = 403
    code = "forbidden"


class NotFound(Refused):
    status = 404
    code = "not_found"


class Conflict(Refused):
    """The action is valid in general but not in the current state (already answered, running)."""

    status = 409
    code = "conflict"


class TooLarge(Refused):
    status = 413
    code = "too_large"


class Unavailable(Refused):
    """The room cannot serve at all until someone fixes what the message names."""

    status = 503
    code = "unavailable"


class TooMany(Refused):
    """The caller has as much waiting as one person may."""

    status = 429
    code = "too_many"


class InsufficientStorage(Refused):
    """The disk that holds the room's state is full: nothing was recorded, nothing changed."""

    status = 507
    code = "insufficient_storage"


class Unauthorized(Refused):
    """The request does not prove who sent it (a webhook's signature)."""

    status = 401
    code = "unauthorized"
