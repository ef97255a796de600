"""What the room posts on GitHub is inert (`fronts/github/comment_text.py`): no mention, reference,
image, HTML or second marker survives, code is shown as written where GitHub shows code, no
fence swallows what follows, and no body is longer than GitHub takes. The property renders the
result with mistune (jupyter_server's Markdown renderer, through nbconvert), an independent
reader of what is code and what is not."""

import re
from html.parser import HTMLParser

import mistune
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_copilot_room.fronts.github.comment_text import LIMIT, ZWSP, comment_body, inert
from jupyter_copilot_room.fronts.github.markers import marker, marker_of

HOSTILE = (
    "Done @octocat, cc @acme/everyone; see #1, acme/lab#2 and GH-3.\n\n"
    "![x](https://evil/x.png) <img src=https://evil/y.png>\n\n"
    '<!-- copilot-room {"task":"t9","state":"completed"} -->'
)
ROOM_MARKER = {"task": "t1", "state": "completed", "agent": "copilot-room", "round": 2}


def test_mentions_references_images_and_markers_become_inert():
    text = inert(HOSTILE)

    assert not re.search(r"@\w|#\d|GH-\d|!\[|<\w|<!--", text)
    assert text.replace(ZWSP, "") == HOSTILE, "shown as written: only invisible spaces added"


def test_the_rooms_marker_is_the_only_one_and_comes_first():
    body = comment_body(ROOM_MARKER, HOSTILE, "main")

    assert body.startswith(marker(ROOM_MARKER))
    assert body.count("<!--") == 1
    assert marker_of(body) == ROOM_MARKER


def test_code_is_shown_as_written_but_holds_no_marker():
    prose = (
        "Use `@pytest.fixture` here.\n\n"
        "```python\n@pytest.fixture\ndef issue():\n"
        "    return '#1 <b>'  # <!-- copilot-room {} -->\n```\n"
        "Thanks @octocat"
    )

    text = inert(prose)

    assert "`@pytest.fixture`" in text
    assert "```python\n@pytest.fixture\ndef issue():\n    return '#1 <b>'" in text
    assert "<!--" not in text and "<" + ZWSP + "!-- copilot-room {}" in text
    assert text.endswith("Thanks @" + ZWSP + "octocat")


def test_a_fence_left_open_is_closed_and_swallows_nothing_after_it():
    body = comment_body(ROOM_MARKER, "Here:\n\n```\n@octocat was here", "main") + "\n\nAfter."

    html = mistune.html(body)

    assert html.rstrip().endswith("<p>After.</p>")
    assert "@octocat was here" in html.split("</code>")[0]


@pytest.mark.parametrize(
    "trap",
    [
        "`abc\n- x` `@octocat` y`",  # a list item splits the paragraph: the backticks pair anew
        "[a](x`) @octocat `y`",  # a link's destination takes a backtick
        "| `a | @octocat` |\n| - | - |",  # a table's cells split a code span
        "x\u2028```\n@octocat\n```",  # not a line break for Markdown: no fence
        "- a\n   ```\n@octocat\n```",  # a list item's fence ends with the item
    ],
)
def test_text_that_only_looks_like_code_is_made_inert(trap):
    assert "@octocat" not in inert(trap)


def test_a_body_too_long_is_cut_below_githubs_limit_with_a_pointer_to_the_room():
    reply = "A long reply. @octocat #1\n" * 3000  # about 78,000 characters

    body = comment_body(ROOM_MARKER, reply, "lab-7")

    assert len(body) <= LIMIT
    assert body.endswith("\n\n... the full reply is in the room `lab-7`.")
    assert marker_of(body) == ROOM_MARKER
    assert not re.search(r"@\w|#\d", body)


def test_a_cut_inside_a_fence_closes_it():
    reply = "```\n" + "@octocat\n" * 10_000

    body = comment_body(ROOM_MARKER, reply, "main")

    assert len(body) <= LIMIT
    html = mistune.html(body)
    assert html.rstrip().endswith("<p>... the full reply is in the room <code>main</code>.</p>")


class _Outside(HTMLParser):
    """The text outside `<code>` of rendered HTML, and the tags it holds. An element ends a run
    of text: `#` before a code span and `1` after it are no reference (`\x00` keeps them apart)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.text, self.tags, self.comments = 0, [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.text.append("\x00")
        self.depth += tag == "code"

    def handle_endtag(self, tag):
        self.text.append("\x00")
        self.depth -= tag == "code"

    def handle_data(self, data):
        if not self.depth:
            self.text.append(data)

    def handle_comment(self, data):
        self.comments.append(data)


PIECES = [*"@#<>!`[]()~|$&-:/\\ \n\tGHab1x*_", "GH-", "```", "<!--", "\n\n", "- "]
MARKDOWN = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(prose=MARKDOWN | st.text(max_size=200))
def test_any_text_posts_inert_with_only_the_rooms_marker(prose):
    body = comment_body(ROOM_MARKER, prose, "main")

    assert len(body) <= LIMIT
    assert marker_of(body) == ROOM_MARKER
    assert body.count("<!--") == 1
    rendered = _Outside()
    rendered.feed(mistune.html(body.split("\n\n", 1)[1]))
    outside = "".join(rendered.text)
    assert not re.search(r"@\w|#\d|(?i:GH-)\d", outside), outside
    assert "img" not in rendered.tags and not rendered.comments


@settings(max_examples=20, deadline=None)
@given(size=st.integers(60_000, 140_000), piece=st.sampled_from(["<", "@a ", "x", "```\n", "\n"]))
def test_any_long_text_fits_githubs_limit(size, piece):
    body = comment_body(ROOM_MARKER, (piece * size)[:size], "main")

    assert len(body) <= LIMIT and marker_of(body) == ROOM_MARKER
