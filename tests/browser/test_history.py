"""Earlier history in the panel (issue 12): the live document holds only the newest entries
(`c.CopilotRoom.document_window`); a reader, a viewer too, presses "Show earlier entries" to load
older ones page by page, each shown once and in order, while what they were reading stays put."""

import re

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.events import (
    AssistantMessage,
    PersonSeen,
    PromptFinished,
    PromptRef,
    PromptSubmitted,
    Record,
)

from ..harness import config, people
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.pages import new_page, wait_for_lab
from ..harness.server import JupyterServer
from .panel import fits_at_every_look, show_room

TURNS = 125  # 250 entries: three pages of history beyond a window of 20
WINDOW = 20
TRANSCRIPT = ".jp-CopilotRoom-transcript"
EARLIER = "Show earlier entries"


def write_turns(path, turns: int) -> None:
    """A transcript of `turns` finished turns (a prompt and a reply each), as the room records
    them: prompt N reads "Question N", its reply "Answer N"."""
    records = [
        ("person.seen", "alice", PersonSeen(username="alice", display_name="Alice", verified=True))
    ]
    for n in range(1, turns + 1):
        prompt = f"p{n}"
        records += [
            ("prompt.submitted", "alice", PromptSubmitted(id=prompt, text=f"Question {n}")),
            ("prompt.started", "alice", PromptRef(id=prompt)),
            (
                "assistant.message",
                None,
                AssistantMessage(entry_id=f"a{n}", prompt_id=prompt, text=f"Answer {n}."),
            ),
            ("prompt.finished", None, PromptFinished(id=prompt, state="completed")),
        ]
    with path.open("w") as f:
        for seq, (kind, actor, payload) in enumerate(records, 1):
            data = payload.model_dump(mode="json", exclude_none=True)
            record = Record(seq=seq, ts=1_760_000_000 + seq, kind=kind, actor=actor, payload=data)
            f.write(record.model_dump_json() + "\n")


@pytest.fixture
def long_lab(tmp_path, model, request):
    """A lab whose room has 250 entries and keeps the newest 20 in its document."""
    model.script = no_script
    server = JupyterServer(
        tmp_path,
        app="lab",
        room={**config.copilot_agent(model.base_url), "document_window": WINDOW},
    )
    server.state_dir.mkdir(parents=True, exist_ok=True)
    write_turns(server.state_dir / "transcript.jsonl", TURNS)
    with serving(server, request, server.start):
        yield server


def shown(page) -> list[str]:
    """The transcript's turns as shown, top to bottom: "Q7", "A7", ..."""
    texts = page.locator(
        ".jp-CopilotRoom-prompt .jp-CopilotRoom-promptText, .jp-CopilotRoom-reply p"
    ).all_text_contents()  # (innerText is empty for entries the browser skips offscreen)
    return [re.sub(r"^(Q|A)\w+ (\d+)\.?$", r"\1\2", text.strip()) for text in texts]


def everything(turns: int) -> list[str]:
    return [f"{kind}{n}" for n in range(1, turns + 1) for kind in "QA"]


def top_of(page, entry_text: str) -> float:
    """Where the entry showing `entry_text` is, from the top of the transcript's view."""
    return page.locator(TRANSCRIPT).evaluate(
        """(box, text) => {
            const entry = [...box.querySelectorAll('.jp-CopilotRoom-entry')]
                .find(e => e.textContent.includes(text));
            return entry.getBoundingClientRect().top - box.getBoundingClientRect().top;
        }""",
        entry_text,
    )


def scroll_to_top(page) -> None:
    """The reader scrolls to the top of what is shown, with the mouse wheel as people do (the
    transcript tells the reader's scrolls from its own by their input)."""
    page.locator(TRANSCRIPT).hover()
    page.mouse.wheel(0, -100_000)
    page.wait_for_function("sel => document.querySelector(sel).scrollTop === 0", arg=TRANSCRIPT)


def test_a_viewer_loads_earlier_history_page_by_page_in_order_and_keeps_their_place(
    browser, long_lab, screenshot
):
    page = new_page(browser, people.VIEWER)
    try:
        page.goto(f"{long_lab.url}/lab?token={people.token(people.VIEWER)}")
        wait_for_lab(page)
        show_room(page)
        # The live window: the newest 20 entries, and a way to the rest.
        expect(page.locator(".jp-CopilotRoom-reply").last).to_contain_text(f"Answer {TURNS}.")
        live = shown(page)  # the room's own lines (someone came in) count in the window too
        assert WINDOW - 3 <= len(live) <= WINDOW and live == everything(TURNS)[-len(live) :]
        button = page.get_by_role("button", name=EARLIER)
        expect(button).to_be_visible()

        pages = 0
        while button.is_visible():
            # The reader is at the top of what is shown, reading its first entry.
            first = shown(page)[0]
            text = f"Question {first[1:]}" if first[0] == "Q" else f"Answer {first[1:]}."
            scroll_to_top(page)
            before = top_of(page, text)
            count = len(shown(page))
            button.click()
            expect(page.locator(".jp-CopilotRoom-entry")).not_to_have_count(count)
            pages += 1
            page.wait_for_timeout(300)  # the new entries' Markdown renders
            assert abs(top_of(page, text) - before) <= 2, "the reader's place moved"
            assert not page.get_by_role("button", name="New activity below").is_visible()
            if pages == 1:
                scroll_to_top(page)
                problems = fits_at_every_look(
                    page, screenshot, "history-", ".jp-CopilotRoom-entry, .jp-CopilotRoom-more"
                )
                assert problems == []
        assert pages == 3  # 230 earlier entries, 100 at a time
        assert shown(page) == everything(TURNS)  # in order, each once
        assert page.locator(".jp-CopilotRoom-refusal").count() == 0
        assert page.problems == []
    finally:
        page.context.close()
