"""The pure parts of the room on a pull request: the comments' markers, what a comment's first
line asks, and a task's states and rounds (`fronts/github/markers.py`, `comment_commands.py`,
`pull_tasks.py`)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.fronts.github.comment_commands import CardAnswer, Mention, read_comment
from jupyter_copilot_room.fronts.github.comment_text import comment_body
from jupyter_copilot_room.fronts.github.markers import marker_of
from jupyter_copilot_room.fronts.github.pull_link import PullLink
from jupyter_copilot_room.fronts.github.pull_tasks import (
    A2A_NAMES,
    ORPHANED,
    ROOM,
    TERMINAL,
    Task,
    a2a_state,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.dictionaries(st.text(), json_values, max_size=5), st.text())
def test_a_marker_holds_its_data_whatever_the_text_and_once(data, prose):
    body = str(comment_body(data, prose, "main"))
    assert marker_of(body) == data
    assert body.count("<!-- copilot-room ") == 1


def test_a_body_without_a_whole_marker_has_none():
    assert marker_of(None) is None
    assert marker_of("no marker here") is None
    assert marker_of("<!-- copilot-room {not json} -->") is None
    assert marker_of('<!-- copilot-room ["a list"] -->') is None


@pytest.mark.parametrize(
    ("body", "asked"),
    [
        ("@copilot-room fix the test", Mention("fix the test")),
        ("@Copilot-Room: fix it\nand the docs", Mention("fix it\nand the docs")),
        ("@copilot-room task 3: the docs too", Mention("the docs too", "t3")),
        ("@copilot-room task t12: more", Mention("more", "t12")),
        ("/approve", CardAnswer(True)),
        ("/approve t2", CardAnswer(True, "t2")),
        ("/APPROVE T2", CardAnswer(True, "t2")),
        ("/reject t2 too risky", CardAnswer(False, "t2", "too risky")),
        (
            "/reject that deletes data\nuse a copy",
            CardAnswer(False, None, "that deletes data\nuse a copy"),
        ),
        ("/reject", CardAnswer(False)),
        ("> @copilot-room quoted\nthanks", None),  # someone else's words
        ("@copilot-roomy hello", None),  # another name
        ("hello @copilot-room", None),  # not on the first line's start
        ("/approved the plan", None),
        ("", None),
        ("    @copilot-room delete it", None),  # indented code, shown not said
        ("\t@copilot-room delete it", None),
        ("  \t@copilot-room delete it", None),  # the tab reaches column four
        ("\n\n    @copilot-room delete it\nthanks", None),
        ("```\n@copilot-room delete it\n```", None),  # fenced
        ("`@copilot-room delete it`", None),  # inline
        ("\n   @copilot-room fix it", Mention("fix it")),  # three spaces: still prose
        ("> quoted\n\n@copilot-room fix it", Mention("fix it")),
    ],
)
def test_what_a_comments_first_line_asks(body, asked):
    assert read_comment(body, "copilot-room") == asked


def record(kind, **payload):
    return {"kind": kind, "payload": payload, "seq": 1}


def test_a_task_follows_its_prompt_through_the_a2a_states():
    task = Task("t1", "bob", prompt_id="p1")
    seen = [task.state]
    for rec in [
        record("prompt.started", id="p1"),
        record("request.opened", id="c1", prompt_id="p1", summary="run `ls`"),
        record("request.settled", id="c1", outcome="approved"),
        record("assistant.message", entry_id="e", prompt_id="p1", text="Done: 3 files."),
        record("prompt.finished", id="p1", state="completed"),
    ]:
        moved = task.moved_by(rec)
        assert moved == (rec["kind"] != "assistant.message")  # a reply shows when the turn ends
        seen.append(task.state)
    assert seen == ["submitted", "working", "input-required", "working", "working", "completed"]
    assert task.prose.startswith("Done: 3 files.") and task.terminal


def test_a_refused_card_that_ends_the_turn_rejects_the_task():
    task = Task("t1", "bob", prompt_id="p1")
    task.moved_by(record("prompt.started", id="p1"))
    task.moved_by(record("request.opened", id="c1", prompt_id="p1", summary="rm -rf"))
    task.moved_by(record("request.settled", id="c1", outcome="rejected"))
    task.moved_by(record("prompt.finished", id="p1", state="completed"))
    assert task.state == "rejected"


@pytest.mark.parametrize(("ended", "state"), [("failed", "failed"), ("canceled", "canceled")])
def test_a_failed_or_aborted_turn_says_so(ended, state):
    task = Task("t1", "bob", prompt_id="p1")
    task.moved_by(record("prompt.started", id="p1"))
    task.moved_by(record("prompt.finished", id="p1", state=ended, reason="The model timed out."))
    assert task.state == state and "The model timed out." in task.prose


@given(st.lists(st.sampled_from(["bob", "erin", ROOM]), max_size=30), st.integers(1, 8))
def test_rounds_advance_by_author_and_never_pass_the_cap(authors, cap):
    task = Task("t1", "bob", last_author="bob")
    for author in authors:
        before, last = task.round, task.last_author
        took = task.posts(author, cap)
        assert task.round <= cap
        if author == last:
            assert took and task.round == before  # the same author again: no new round
        elif took:
            assert task.round == before + 1 and task.last_author == author
        else:
            assert before == cap and task.last_author == last  # at the cap: not taken


@given(st.text(alphabet=" \t", min_size=1, max_size=6), st.text(max_size=20))
def test_a_mention_indented_to_code_asks_nothing(indent, said):
    body = f"{indent}@copilot-room {said}"
    asked = read_comment(body, "copilot-room")
    if len(indent.expandtabs(4)) >= 4:
        assert asked is None
    else:
        assert asked == read_comment(body.lstrip(), "copilot-room")


STATES = sorted({*TERMINAL, "submitted", "working", "input-required"})


@pytest.mark.parametrize("state", STATES)
def test_a_markers_state_reads_as_written_here_and_as_a2a_1_writes_it(state):
    a2a = "TASK_STATE_" + state.upper().replace("-", "_")
    assert a2a in A2A_NAMES
    assert a2a_state(state) == a2a_state(a2a) == a2a_state(a2a.lower()) == state


@pytest.mark.parametrize("value", [None, 3, "", "done", "TASK_STATE_UNSPECIFIED", ["completed"]])
def test_anything_else_is_no_state(value):
    assert a2a_state(value) is None


@pytest.mark.parametrize("said", ["completed", "TASK_STATE_COMPLETED", "TASK_STATE_CANCELLED"])
def test_an_ended_task_says_nothing_more_but_its_caps_failure_once(said):
    task = Task("t1", "bob", posted={"task": "t1", "state": said})
    assert not task.takes("working") and not task.takes("failed")
    task.capped = True
    assert task.takes("failed") and not task.takes("completed")
    task.posted = {"task": "t1", "state": "TASK_STATE_FAILED"}
    assert not task.takes("failed")


def test_a_running_task_whose_comment_was_deleted_says_so_to_its_end():
    task = Task("t1", "bob", prompt_id="p1", comment=1001)
    task.moved_by(record("prompt.started", id="p1"))
    task.left_running()
    assert task.comment is None and task.prose.endswith(ORPHANED)
    task.moved_by(record("request.opened", id="c1", prompt_id="p1", summary="run `ls`"))
    task.moved_by(record("prompt.finished", id="p1", state="completed"))
    assert task.prose.count(ORPHANED) == 1 and task.state == "completed"


@given(st.integers(1, 12), st.integers(0, 40))
def test_two_agents_and_the_rooms_replies_spend_a_task_within_its_cap(cap, comments):
    """The room's rule on a comment that asks nothing of a task: the comment is a post, the
    room's reply another; at the cap neither is taken and the task fails."""
    task = Task("t1", "bob", last_author="bob")
    replies = 0
    for n in range(comments):
        if not task.posts(("agent-one", "agent-two")[n % 2], cap) or not task.posts(ROOM, cap):
            break
        replies += 1
    assert task.round <= cap and replies <= cap // 2
    assert replies == min(comments, (cap - 1) // 2)


versions = st.lists(st.tuples(st.integers(1, 4), st.integers(0, 5), st.booleans()), max_size=30)


@given(heard=versions)
def test_a_comment_is_read_until_acted_on_and_never_in_an_older_version(heard, tmp_path_factory):
    link = PullLink(tmp_path_factory.mktemp("link") / "main.json", 7)
    newest: dict[int, int] = {}
    done: set[int] = set()
    for cid, minute, acts in heard:
        comment = {"id": cid, "updated_at": f"2026-12-07T21:{minute:02d}:00Z"}
        new = link.is_new(comment)
        assert new == (cid not in done and minute >= newest.get(cid, -1))
        if new and acts:
            link.handle(comment)
            done.add(cid)
        elif new:
            link.pass_over(comment)
            newest[cid] = minute
        link.save()
        link = PullLink.load(link.file)
        assert link is not None
