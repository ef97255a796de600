"""Record kinds are declared once (`events.RECORD_PAYLOADS`), and each has the one document
handler that shows it: a kind without one fails here and at import, never in a running room."""

import importlib
import sys

import pytest

from jupyter_copilot_room import events
from jupyter_copilot_room.room.document_handlers import HANDLERS
from jupyter_copilot_room.room.document_handlers.registry import mismatch


def test_every_declared_record_kind_has_exactly_one_document_handler():
    assert mismatch(HANDLERS, events.RECORD_PAYLOADS) is None
    assert set(HANDLERS) == set(events.RECORD_PAYLOADS)


def test_a_record_kind_without_a_handler_fails_at_import(monkeypatch):
    class Poll(events.Strict):
        question: str

    monkeypatch.setitem(events.RECORD_PAYLOADS, "poll.opened", Poll)
    for name in [m for m in sys.modules if m.startswith("jupyter_copilot_room.room.document")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(
        RuntimeError, match=r"record kinds without a document handler: poll\.opened"
    ):
        importlib.import_module("jupyter_copilot_room.room.document")


def test_a_handler_of_a_kind_nobody_declared_is_named():
    assert mismatch([*HANDLERS, "poll.closed"], events.RECORD_PAYLOADS) == (
        "document handlers of undeclared kinds: poll.closed"
    )
