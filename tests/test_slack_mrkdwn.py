"""The Slack neutralizer (`fronts/slack/mrkdwn.py`), alone: whatever the text, nothing of it is
Slack markup once it is posted, Markdown reads as mrkdwn, and no code ends early."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_copilot_room.fronts.slack.mrkdwn import (
    SPAN_BACKTICK,
    ZERO_WIDTH_SPACE,
    code_block,
    escaped,
    fitted,
    mrkdwn,
    unescaped,
)

HOSTILE = "<!channel> <!here> <@U123> <#C999> <https://evil|Approve safely> &amp; ```"


@pytest.mark.parametrize(
    ("markdown", "shown"),
    [
        ("**Demo mode.** works", "*Demo mode.* works"),
        ("__bold__ and *it* and _it_", "*bold* and _it_ and _it_"),
        ("~~gone~~", "~gone~"),
        ("# Title\n\nText", "*Title*\n\nText"),
        ("## Sub *x*", "*Sub _x_*"),
        ("- one\n- two", "- one\n- two"),
        ("* one\n* two", "* one\n* two"),
        ("3. three\n4. four", "3. three\n4. four"),
        ("- one\n  - inner", "- one\n  - inner"),
        ("> quoted <!here>", "&gt; quoted &lt;!here&gt;"),
        (
            "[the docs](https://example.com/a?b=1&c=2)",
            "the docs (https://example.com/a?b=1&amp;c=2)",
        ),
        ("<https://example.com>", "https://example.com"),
        ("![a cat](https://example.com/cat.png)", "a cat (https://example.com/cat.png)"),
        ("[**Approve safely**](https://evil)", "*Approve safely* (https://evil)"),
        ("`run <this>`", "`run &lt;this&gt;`"),
        ("`` a`b ``", f"`a{SPAN_BACKTICK}b`"),
        (
            "```sh\necho '```' <!here>\n```",
            f"```\necho '`{ZERO_WIDTH_SPACE}`{ZERO_WIDTH_SPACE}`' &lt;!here&gt;\n```",
        ),
        ("echo '```' ; rm -rf x", f"echo '`{ZERO_WIDTH_SPACE}`{ZERO_WIDTH_SPACE}`' ; rm -rf x"),
        ("<b>bold?</b> & <!channel>", "&lt;b&gt;bold?&lt;/b&gt; &amp; &lt;!channel&gt;"),
        ("line one\nline two", "line one\nline two"),
    ],
)
def test_markdown_is_shown_as_mrkdwn(markdown, shown):
    assert mrkdwn(markdown) == shown


def test_a_hostile_text_is_shown_as_written():
    assert mrkdwn(HOSTILE) == (
        "&lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt; &lt;#C999&gt; "
        f"&lt;https://evil|Approve safely&gt; &amp;amp; `{ZERO_WIDTH_SPACE}`{ZERO_WIDTH_SPACE}`"
    )


@given(st.text())
def test_nothing_posted_is_slack_markup(text):
    for shown in (mrkdwn(text), code_block(text), escaped(text)):
        assert "<" not in shown and ">" not in shown  # so no <!, <@, <#, <http: none at all
        assert not re.search(r"&(?!amp;|lt;|gt;)", shown), "every & is Slack's own escape"


@given(st.text())
def test_escaping_gives_back_the_text(text):
    assert unescaped(escaped(text)) == text


#: Words with Slack's control characters but no Markdown syntax (no `*_~[`, no line starts, no
#: CommonMark email autolink such as `<a@b>`, which is Markdown shown as a link).
words = st.text(alphabet="abcxyz019<>&!@#|/.=?", min_size=1).filter(
    lambda word: not re.search(r"<[^<>]*@[^<>]*>", word)
)


@given(st.lists(words, min_size=1))
def test_unescaping_the_shown_text_gives_back_the_visible_text(parts):
    text = "say " + " ".join(parts)
    assert unescaped(mrkdwn(text)) == text


@given(st.text())
def test_no_code_ends_early(text):
    """Every backtick run is a lone backtick or a fence, and fences come in pairs."""
    for shown in (mrkdwn(text), code_block(text)):
        runs = [len(run) for run in re.findall(r"`+", shown)]
        assert set(runs) <= {1, 3} and runs.count(3) % 2 == 0, shown


@given(st.text().filter(lambda t: ZERO_WIDTH_SPACE not in t))
def test_a_code_block_shows_its_code_whole(text):
    shown = code_block(text)
    assert shown.startswith("```\n") and shown.endswith("\n```")
    inner = shown[4:-4]
    assert "``" not in inner
    assert unescaped(inner).replace(ZERO_WIDTH_SPACE, "") == text


@given(st.text(), st.integers(min_value=10, max_value=200))
def test_fitted_text_is_within_the_limit_and_cuts_no_escape(text, limit):
    shown = fitted(mrkdwn, text, limit)
    assert len(shown) <= limit
    assert not re.search(r"&(?!amp;|lt;|gt;)", shown)
    assert "<" not in shown


def test_markdown_that_shows_nothing_is_shown_as_written():
    """Slack refuses an empty text: a link's definition alone is posted as it is."""
    assert mrkdwn("[a]: https://example.com '```'") == (
        f"[a]: https://example.com '`{ZERO_WIDTH_SPACE}`{ZERO_WIDTH_SPACE}`'"
    )


@given(st.text().filter(str.strip))
def test_a_text_is_never_shown_as_nothing(text):
    assert mrkdwn(text).strip()
