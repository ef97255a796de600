"""AnyIO's worker threads must not hold up the server's exit.

jupyter_server's contents manager does its file I/O in AnyIO worker threads (`anyio.to_thread`).
AnyIO stops an idle worker only when the task that started it ends, and its workers are not
daemon threads. When that task lives as long as a websocket (jupyter-collaboration loads a
notebook inside its room socket's handler) and the socket is still open when the server stops,
the event loop stops with the task pending: the idle worker waits for work forever and Python's
exit (`threading._shutdown`) waits for it. Seen every time a notebook is open collaboratively at
shutdown. So, at exit, before threads are joined, every AnyIO worker is told to stop: an idle one
ends at once, a busy one after its call.

Both hooks are private, and this is the one module that uses them: the interpreter's
`threading._register_atexit` (what `concurrent.futures` uses to run before threads are joined;
`atexit` runs after) and AnyIO's `WorkerThread` with its `stop()`. Neither has a public
counterpart; `tests/test_third_party_behaviour.py` pins what is relied on, so an upgrade that
changes it fails there, not as a server that hangs at exit.
"""

from __future__ import annotations

import contextlib
import threading

_registered = False


def release_at_exit() -> None:
    """Stop AnyIO's worker threads when the interpreter exits, before it joins threads."""
    global _registered
    # The hook threading offers for this (concurrent.futures uses it); absent, nothing to do.
    register = getattr(threading, "_register_atexit", None)
    if _registered or register is None:
        return
    with contextlib.suppress(RuntimeError):  # the interpreter is already shutting down
        register(_stop_workers)
        _registered = True


def _stop_workers() -> None:
    try:
        from anyio._backends._asyncio import WorkerThread
    except ImportError:
        return
    for thread in threading.enumerate():
        if isinstance(thread, WorkerThread):
            thread.stop()
