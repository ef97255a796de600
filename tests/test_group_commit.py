"""The transcript's group commit (issue 27): a record is written at once, in order, and synced to
disk with every other record of its loop tick in one fsync in a worker thread, never on the event
loop; a command is acknowledged only once what it recorded is on disk (`Room.durable`)."""

import os
import threading

import pytest

from jupyter_copilot_room.events import SystemNote
from jupyter_copilot_room.request_bodies import ChatBody
from jupyter_copilot_room.room.persistence.transcript_file import Transcript

from .test_restart import ALICE


async def loaded(path):
    transcript = Transcript(path)
    async for _ in transcript.load():
        pass
    return transcript


async def test_a_ticks_records_share_one_fsync_in_a_worker_thread(tmp_path, monkeypatch):
    transcript = await loaded(tmp_path / "transcript.jsonl")
    synced_on: list[str] = []
    fsync = os.fsync

    def spying(fd):  # the real fsync, and which thread called it
        synced_on.append(threading.current_thread().name)
        fsync(fd)

    monkeypatch.setattr(os, "fsync", spying)
    for n in range(50):
        transcript.append("system", None, SystemNote(text=f"line {n}"), 1.0)
    assert synced_on == [], "nothing is synced on the loop while the records are written"
    assert len(transcript.read_text().splitlines()) == 50, "written at once, in order"
    await transcript.durable()
    assert len(synced_on) == 1, synced_on
    assert synced_on[0] != threading.main_thread().name
    transcript.close()


async def test_a_command_is_answered_once_its_record_is_on_disk(make_room, tmp_path, monkeypatch):
    room = make_room(tmp_path / "state", agent=None)
    await room.ensure_started()
    synced = []
    fsync = os.fsync

    def spying(fd):
        fsync(fd)
        synced.append(len(room.transcript.read_text().splitlines()))

    monkeypatch.setattr(os, "fsync", spying)
    room.prompt_commands.say(ALICE, ChatBody(text="hello"))
    lines = len(room.transcript.read_text().splitlines())
    await room.durable()
    assert synced and synced[-1] >= lines, "durable returns after the fsync that covers it"


async def test_a_failed_fsync_is_told_to_whoever_waits_and_the_next_tries_again(
    tmp_path, monkeypatch
):
    transcript = await loaded(tmp_path / "transcript.jsonl")
    fsync, failures = os.fsync, [OSError(5, "Input/output error")]

    def failing_once(fd):
        if failures:
            raise failures.pop()
        fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_once)
    transcript.append("system", None, SystemNote(text="not yet on disk"), 1.0)
    with pytest.raises(OSError, match="Input/output error"):
        await transcript.durable()
    await transcript.durable()  # the same lines again: on disk now
    transcript.close()
