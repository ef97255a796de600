"""A transcript written by version 0.1 still replays into the document 0.1 built from it.

`data/transcript-0.1.jsonl` was recorded by the 0.1 room (every record kind: prompts, streamed and
partial replies, reasoning, tools, sub-agents, usage, errors, approvals, questions, an abort,
admissions, a role change, a removal, a host claim, a settings change, a system note);
`data/transcript-0.1.document.json` is the document 0.1 rebuilt from it after a restart, with the
`admissions.json` 0.1 had written beside it (a claimed host, a removal). Today's room rebuilds the
same document from the transcript alone, with intended changes: a system or admission line about
people holds a template (`{0} admitted {1} ...`) and the usernames it names (`people`), so the
panel shows display names (issue 11), each entry carries the `seq` of the record that created it
(the cursor of history paging, issue 12), and a turn that failed with the agent's error ("rate
limited") shows it once, as its error line, not again as a line of its end (issue 12), and each
card says who may answer it, nobody once it is settled (`answerers`, issue 26); the expected
document says so.
"""

import json
import shutil
from pathlib import Path

DATA = Path(__file__).parent / "data"


async def test_a_0_1_transcript_replays_to_the_same_document(make_room, tmp_path):
    shutil.copy(DATA / "transcript-0.1.jsonl", tmp_path / "transcript.jsonl")
    room = make_room(tmp_path, agent=None)
    await room.ensure_started()
    replayed = room.document.snapshot()
    await room.stop()
    assert replayed == json.loads((DATA / "transcript-0.1.document.json").read_text())
    # Replaying a finished transcript adds nothing to it.
    assert (tmp_path / "transcript.jsonl").read_bytes() == (
        DATA / "transcript-0.1.jsonl"
    ).read_bytes()
