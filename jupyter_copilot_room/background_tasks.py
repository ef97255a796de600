"""The fronts' background tasks (a pull request's loop, a bridge's watch): started by name, and
an end nobody expected is logged with its traceback, never lost with the task."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


def started(work: Coroutine[Any, Any, None], name: str) -> asyncio.Task:
    task = asyncio.create_task(work, name=name)
    task.add_done_callback(_said_if_failed)
    return task


def _said_if_failed(task: asyncio.Task) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error(
            "%s stopped: %r; the room goes on without it", task.get_name(), error, exc_info=error
        )
