"""A streaming reply renders incrementally (issue 12): what is finished is rendered once and kept,
only the block still growing renders again, and the finished reply looks exactly as it does when
the room is opened afresh and the reply is drawn from the whole text at once."""

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply

from ..harness.pages import wait_for_lab
from .panel import fits_at_every_look, replies, send, set_sidebar_width, show_room

# Markdown that is easy to cut wrongly: a fence with blank lines inside, a loose list, a table,
# headings, a quote.
REPLY = "\n".join(
    [
        "## What I found",
        "",
        "The loader reads every file twice. " * 6,
        "",
        "```python",
        "def load(paths):",
        "    frames = [read(p) for p in paths]",
        "",
        "",
        "    return concat(frames)",
        "```",
        "",
        "- first, read each file once",
        "",
        "- then, join them",
        "",
        "  on the id column",
        "",
        "| file | rows |",
        "|------|------|",
        "| a.csv | 10 |",
        "| b.csv | 7 |",
        "",
        "> Joining drops rows without a match.",
        "",
        "### Next",
        "",
        "Run the tests again. " * 8,
    ]
)

# The reply's rendered Markdown, as a person sees it: the elements, their text, and where each
# sits in the reply (relative to its top), rounded to the pixel.
LOOK = """reply => {
    const root = reply.querySelector('.jp-CopilotRoom-markdown');
    const top = root.getBoundingClientRect().top;
    const blocks = root.querySelectorAll(
        '.jp-RenderedMarkdown > *, table, li, td, th, pre, code, blockquote');
    return [...blocks].map(el => [el.tagName, el.textContent.trim().slice(0, 60),
        Math.round(el.getBoundingClientRect().top - top),
        Math.round(el.getBoundingClientRect().height)]);
}"""


@pytest.mark.shared_lab
def test_a_streamed_reply_renders_each_finished_block_once_and_ends_as_the_replayed_one(
    open_lab, model
):
    model.script = lambda request: Reply(REPLY, chunk_size=12, delay=0.03)
    page = show_room(open_lab("bob"))
    send(page, "What slows the loader down?")
    reply = replies(page).first
    heading = reply.locator(".jp-CopilotRoom-markdown h2")
    expect(heading).to_contain_text("What I found", timeout=30_000)
    expect(reply).to_have_attribute("data-state", "streaming")
    # Mark the first finished block's element: it must be the very same node at the end.
    heading.evaluate("el => { el.dataset.seen = 'while streaming'; }")
    expect(reply).to_have_attribute("data-state", "done", timeout=60_000)
    assert heading.evaluate("el => el.isConnected && el.dataset.seen") == "while streaming", (
        "the reply's first block was rendered again after it was finished"
    )
    assert reply.locator(".jp-CopilotRoom-markdown > .jp-RenderedMarkdown").count() > 5
    streamed = reply.evaluate(LOOK)

    page.reload()
    wait_for_lab(page)  # its restored layout would otherwise hide the room opened before it
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('copilot-room:open')"
    )
    show_room(page)
    replayed_reply = replies(page).first
    expect(replayed_reply).to_have_attribute("data-state", "done")
    expect(replayed_reply.locator("table")).to_be_visible()
    page.wait_for_timeout(500)  # let every block's renderer finish
    replayed = replayed_reply.evaluate(LOOK)
    assert streamed == replayed
    assert any(tag == "TABLE" for tag, *_ in streamed) and any(tag == "PRE" for tag, *_ in streamed)


# The ids and data-jupyter-ids in the room that are used more than once in the page (JupyterLab
# resolves a `#name` link through the whole page, `[data-jupyter-id=name]` first: the first wins).
CLASHING_NAMES = """() => {
    const names = el => [el.id, el.dataset.jupyterId].filter(Boolean);
    const all = [...document.querySelectorAll('[id], [data-jupyter-id]')].flatMap(names);
    const room = document.querySelectorAll(
        '#jp-copilot-room [id], #jp-copilot-room [data-jupyter-id]');
    return [...new Set([...room].flatMap(names))]
        .filter(name => all.filter(other => other === name).length > 1);
}"""


@pytest.mark.shared_lab
def test_replies_with_the_same_heading_take_no_names_in_the_page(open_lab, model):
    model.script = lambda request: Reply("## Summary\n\nThe loader reads every file twice.")
    page = show_room(open_lab("bob"))
    for n in (1, 2):
        send(page, f"Summarize the loader ({n}).")
        expect(replies(page).nth(n - 1)).to_have_attribute("data-state", "done", timeout=30_000)
    headings = page.locator(".jp-CopilotRoom-reply .jp-CopilotRoom-markdown h2")
    expect(headings).to_have_count(2)
    assert page.evaluate(CLASHING_NAMES) == []
    named = page.locator(
        ".jp-CopilotRoom-markdown :is([id], [data-jupyter-id], a.jp-InternalAnchorLink)"
    )
    expect(named).to_have_count(0)
    expect(headings).to_have_text(["Summary", "Summary"])  # no "¶" link


# Wider than the panel however its words break: 24 columns, each a cell's padding wide at least.
WIDE_TABLE = "\n".join(
    [
        "Each file and what the loader found in it:",
        "",
        "| " + " | ".join(f"c{n}" for n in range(1, 25)) + " |",
        "|" + "---|" * 24,
        "| " + " | ".join(str(n) for n in range(1, 25)) + " |",
    ]
)


@pytest.mark.shared_lab
def test_a_wide_table_scrolls_sideways_in_its_reply_and_its_last_column_is_reachable(
    open_lab, model, screenshot
):
    model.script = lambda request: Reply(WIDE_TABLE)
    page = show_room(open_lab("bob"))
    send(page, "Which columns does each file have?")
    reply = replies(page).first
    expect(reply).to_have_attribute("data-state", "done", timeout=30_000)
    last = reply.locator("th").last
    expect(last).to_have_text("c24")
    # Nothing of the reply sticks out of it, at either width, in either theme.
    problems = fits_at_every_look(page, screenshot, "wide-table-", ".jp-CopilotRoom-reply")
    assert not problems, problems
    # The last column is there to scroll to, inside the reply.
    set_sidebar_width(page, 250)
    last.scroll_into_view_if_needed()
    box, cell = reply.bounding_box(), last.bounding_box()
    assert box["x"] <= cell["x"] and cell["x"] + cell["width"] <= box["x"] + box["width"] + 1
    assert last.evaluate(
        """cell => { const r = cell.getBoundingClientRect();
                    return cell.contains(document.elementFromPoint(r.x + r.width / 2,
                                                                   r.y + r.height / 2)); }"""
    ), "the last column is hidden"
