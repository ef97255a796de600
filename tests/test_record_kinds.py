"""Record kinds are declared once (`events.RECORD_PAYLOADS`), and each has the one document
handler that shows it: a kind without one fails here and at import, never in a running room."""

import ast
import importlib
import re
import sys
import typing
from pathlib import Path

import pytest

import jupyter_copilot_room
from jupyter_copilot_room import events
from jupyter_copilot_room.events import consumers
from jupyter_copilot_room.room.live.document_handlers import HANDLERS
from jupyter_copilot_room.room.live.document_handlers.registry import mismatch

from .harness.helpers import parsed


class Poll(events.Strict):
    """A record kind nobody declared."""

    question: str


def test_every_declared_record_kind_has_exactly_one_document_handler():
    assert mismatch(HANDLERS, events.RECORD_PAYLOADS) is None
    assert set(HANDLERS) == set(events.RECORD_PAYLOADS)


def test_a_record_kind_without_a_handler_fails_at_import(monkeypatch):
    monkeypatch.setitem(events.RECORD_PAYLOADS, "poll.opened", Poll)
    for name in [m for m in sys.modules if m.startswith("jupyter_copilot_room.room.live.document")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(
        RuntimeError, match=r"record kinds without a document handler: poll\.opened"
    ):
        importlib.import_module("jupyter_copilot_room.room.live.document")


def test_a_handler_of_a_kind_nobody_declared_is_named():
    assert mismatch([*HANDLERS, "poll.closed"], events.RECORD_PAYLOADS) == (
        "document handlers of undeclared kinds: poll.closed"
    )


# -- the other readers of the transcript -----------------------------------------------------------

PACKAGE = Path(jupyter_copilot_room.__file__).parent
#: The readers that rebuild state from the transcript: each names every kind (`rebuilds`).
REBUILDERS = {
    "jupyter_copilot_room.room.persistence.replay": "replay",
    "jupyter_copilot_room.room.persistence.snapshot": "snapshot",
    "jupyter_copilot_room.export": "export",
    "jupyter_copilot_room.eventlog": "eventlog",
}
#: The readers that handle a few kinds and pass over the rest (`reads`).
HANDLERS_OF_A_FEW = [
    "jupyter_copilot_room.room.turns.agent_life",
    "jupyter_copilot_room.metrics",
    "jupyter_copilot_room.threads.fork_point",
    "jupyter_copilot_room.kernel.record_frames",
    "jupyter_copilot_room.fronts.github.pull_tasks",
    "jupyter_copilot_room.fronts.chat.channel_mirror",
]
READER_MODULES = [*REBUILDERS, *HANDLERS_OF_A_FEW]


def kinds_compared(source: str) -> set[str]:
    """The record kinds a module's code compares something named `kind` with, or matches on."""
    found: set[str] = set()
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(re.search(r"\bkind\b", ast.unparse(op)) for op in operands):
                found |= {
                    part.value
                    for op in operands
                    for part in ast.walk(op)
                    if isinstance(part, ast.Constant) and part.value in events.RECORD_PAYLOADS
                }
        elif isinstance(node, ast.Match) and re.search(r"\bkind\b", ast.unparse(node.subject)):
            found |= {
                part.value
                for case in node.cases
                for part in ast.walk(case.pattern)
                if isinstance(part, ast.Constant) and part.value in events.RECORD_PAYLOADS
            }
    return found


def test_every_reader_handles_what_it_names_and_the_rebuilders_say_what_they_do_with_every_kind():
    for name in READER_MODULES:
        module = importlib.import_module(name)
        assert module.RECORDS.mismatch(events.RECORD_PAYLOADS) is None, name
        named = kinds_compared(Path(module.__file__).read_text())
        assert named <= module.RECORDS.handles, (name, named - module.RECORDS.handles)
    for name in HANDLERS_OF_A_FEW:
        assert not importlib.import_module(name).RECORDS.every_kind, name


def test_the_readers_that_rebuild_state_are_the_ones_held_to_every_kind():
    for name in READER_MODULES:
        importlib.import_module(name)
    strict = {reader.name for reader in consumers.READERS.values() if reader.every_kind}
    assert strict == set(REBUILDERS.values())


def test_every_module_that_switches_on_a_record_kind_is_a_declared_reader():
    declared = {Path(importlib.import_module(name).__file__) for name in READER_MODULES}
    switching = {
        path
        for path in PACKAGE.rglob("*.py")
        if "document_handlers" not in path.parts and kinds_compared(path.read_text())
    }
    assert switching <= declared, sorted(str(p.relative_to(PACKAGE)) for p in switching - declared)


def test_a_kind_added_without_a_rebuilders_word_fails_at_import(monkeypatch):
    for name in READER_MODULES:
        importlib.import_module(name)
    monkeypatch.setitem(events.RECORD_PAYLOADS, "poll.opened", Poll)
    for reader in consumers.READERS.values():
        problem = reader.mismatch(events.RECORD_PAYLOADS)
        if reader.every_kind:
            assert "says nothing of poll.opened" in (problem or ""), reader.name
        else:
            assert problem is None, reader.name
    module = importlib.import_module("jupyter_copilot_room.export")
    with pytest.raises(RuntimeError, match=r"'export' says nothing of poll\.opened"):
        importlib.reload(module)


def test_a_reader_of_a_few_kinds_is_untouched_by_a_new_kind_but_not_by_a_gone_one(monkeypatch):
    monkeypatch.setattr(consumers, "READERS", {})
    monkeypatch.setitem(events.RECORD_PAYLOADS, "poll.opened", Poll)
    assert (
        consumers.reads("probe", handles=["prompt.finished"]).mismatch(events.RECORD_PAYLOADS)
        is None
    )
    monkeypatch.delitem(events.RECORD_PAYLOADS, "prompt.finished")
    with pytest.raises(RuntimeError, match=r"'probe' names undeclared kinds prompt\.finished"):
        consumers.reads("probe", handles=["prompt.finished"])


def test_the_kinds_are_one_type():
    assert set(typing.get_args(events.records.RecordKind)) == set(events.RECORD_PAYLOADS)
