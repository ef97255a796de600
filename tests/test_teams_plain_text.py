"""What the room posts to Teams shows as written (`fronts/teams/plain_text.py`): no link, mention,
tag or formatting from anyone's text, read as CommonMark reads it (markdown-it-py, HTML on,
GFM's tables and strikethrough on), in a message's text and in a card's lines."""

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from jupyter_copilot_room.fronts.teams import limits, plain_text
from jupyter_copilot_room.fronts.teams.teams_service import shown

HOSTILE = [
    "[Approve safely](https://evil)",
    "<a href=https://evil>x</a>",
    "<at>Everyone</at>",
    "**bold**",
    "![image](https://evil/x.png)",
    "<https://evil>",
    "`code` ~~struck~~ _it_ __it__",
    "# heading",
    "> quoted",
    "- listed",
    "1. numbered",
    "2) numbered",
    "| a | b |\n|---|---|\n| c | d |",
    "text\n===",
    "text\n---",
    "```\nfenced\n```",
    "    indented code",
    "[label][ref]\n\n[ref]: https://evil",
    "&lt;at&gt;Everyone&lt;/at&gt; &amp; &#60;a&#62;",
    "trailing backslash\\\nnext",
    "<!-- comment --> <script>alert(1)</script>",
]

markdown = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def read(text: str) -> tuple[set[str], str]:
    """The HTML tags CommonMark makes of `text`, and the text a person reads."""
    rendered = markdown.render(text)
    tags = set(re.findall(r"<(/?[a-zA-Z][\w-]*)", rendered))
    return tags, html.unescape(re.sub(r"<[^>]*>", " ", rendered))


def same(shown_text: str, written: str) -> bool:
    """The same words and characters, whatever the whitespace between them."""
    spaces = re.compile(r"[\s\u00a0]+")
    return spaces.sub(" ", shown_text).strip() == spaces.sub(" ", written).strip()


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_a_message_shows_as_written(text):
    tags, seen = read(plain_text.message(text))
    assert tags <= {"p", "/p", "br"}, tags
    assert same(seen, text)


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_in_a_cards_lines_shows_as_written(text):
    lines = plain_text.card_lines(text)
    assert len(lines) == len(text.split("\n"))
    for line, written in zip(lines, text.split("\n"), strict=True):
        tags, seen = read(line)
        assert tags <= {"p", "/p"}, tags
        assert same(seen, written)


def test_no_link_or_tag_is_left_even_to_a_reader_that_ignores_backslashes():
    for text in HOSTILE:
        message = plain_text.message(text)
        assert "](" not in message and "<" not in message  # HTML is read in messages only
        assert not any("](" in line for line in plain_text.card_lines(text))


def test_plain_prose_is_left_as_it_is():
    for text in ["Completed.", "Waiting on bob or a host.", "It printed: 3 passed", "don't"]:
        assert plain_text.message(text) == text
        assert plain_text.card_lines(text) == [text]


def test_indentation_and_empty_lines_show_and_control_characters_do_not():
    assert plain_text.card_lines("a\n\n    b\tc") == ["a", "\u00a0", "\u00a0" * 4 + "b\tc"]
    assert plain_text.message("x\x00y\x1b[31mz\r\nw") == "xy\\[31mz\nw"
    assert plain_text.clean("a\u2028b\x7f") == "ab"


def test_a_message_is_cut_to_what_teams_takes_after_its_escapes():
    for text in ["&" * limits.MAX_TEXT, "\U0001f600" * limits.MAX_TEXT, "a" * limits.MAX_TEXT]:
        said = shown(text)
        assert limits.utf16(said) <= limits.TEXT_BYTES
        assert said.endswith("…") or said == text
    assert shown("a" * limits.MAX_TEXT) == "a" * limits.MAX_TEXT


markdownish = st.lists(
    st.sampled_from([*"ab1 *_[]()<>&#!`~|\\-+=.:/\"';\n\t", "é", "https://e", "<at>", "&lt;"]),
    max_size=40,
).map("".join)


@given(markdownish)
def test_any_text_shows_as_written_in_a_message_and_a_card(text):
    tags, seen = read(plain_text.message(text))
    assert tags <= {"p", "/p", "br", "br /"}, tags
    assert same(seen, plain_text.clean(text))
    for line, written in zip(
        plain_text.card_lines(text), plain_text.clean(text).split("\n"), strict=True
    ):
        tags, seen = read(line)
        assert tags <= {"p", "/p", "br"}, tags
        assert same(seen, written)
