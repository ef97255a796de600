"""The SDK's own log lines, heard in the server's log instead of bare on stderr.

The SDK logs through `logging.getLogger("copilot...")`, which no server configures, so Python's
last-resort handler printed its lines unformatted, with tracebacks. Most are a call's failure
that the SDK also raises to us (it times every request and logs a failed one as a WARNING with its
traceback): the room reports those itself, in words, so here they sink to DEBUG without the
traceback. Anything else the SDK says (a notification handler that raised, a message it could not
parse) reaches the server's log as it was said.
"""

from __future__ import annotations

import logging

SDK_LOGGER = "copilot"


class _IntoServerLog(logging.Handler):
    """Hands the SDK's records to the server's log; a failed call's record becomes a DEBUG line."""

    def __init__(self, log: logging.Logger):
        super().__init__()
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "elapsed_ms") and record.levelno < logging.ERROR:  # a timed call
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            record.exc_info = record.exc_text = None
        if self.log.isEnabledFor(record.levelno):
            self.log.handle(record)


def hear_sdk_in(log: logging.Logger) -> None:
    """Send the SDK's log to `log` (the latest server's, when a process runs several), at its
    level: a server started with `--debug` hears the SDK's debug lines too."""
    sdk = logging.getLogger(SDK_LOGGER)
    sdk.setLevel(log.getEffectiveLevel())
    for handler in [h for h in sdk.handlers if isinstance(h, _IntoServerLog)]:
        sdk.removeHandler(handler)
    sdk.addHandler(_IntoServerLog(log))
    sdk.propagate = False
