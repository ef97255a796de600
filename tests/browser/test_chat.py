"""A room people talk in (issue 15): Bob says something to the room, Alice sees it apart from
prompts, with its author and time, and quotes it into her prompt; an export made in the panel
opens in JupyterLab as a notebook, and downloads as one that validates."""

import json

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply

from ..harness.pages import page_api
from .panel import (
    PROMPT,
    axe_violations,
    layout_problems,
    problems_at_every_look,
    set_sidebar_width,
    show_room,
)

ROOM = "#jp-copilot-room"
CHAT = ".jp-CopilotRoom-chat"
SAID = "Let us use **pandas** here."


def say(page, text):
    box = page.locator(PROMPT)
    expect(box).to_be_enabled(timeout=30_000)
    box.fill(text)
    page.get_by_role("button", name="Say to the room").click()
    expect(box).to_have_value("", timeout=15_000)


@pytest.mark.shared_lab
def test_bob_chats_and_alice_quotes_him_into_her_prompt(lab, model, open_lab, screenshot):
    model.script = lambda request: Reply(f"Heard {len(request.prompt)} characters.")
    bob = show_room(open_lab("bob"))
    alice = show_room(open_lab("alice"))
    say(bob, SAID)

    chat = alice.locator(CHAT)
    expect(chat).to_have_count(1, timeout=15_000)
    expect(chat).to_contain_text("Bob")
    expect(chat).to_contain_text("to the room")
    expect(chat.locator("time")).to_have_count(1)
    expect(chat.locator("strong")).to_have_text("pandas")  # Markdown, rendered
    assert chat.evaluate("e => getComputedStyle(e).backgroundColor") != alice.locator(
        ".jp-CopilotRoom-prompt, .jp-CopilotRoom-promptBox textarea"
    ).first.evaluate("e => getComputedStyle(e).backgroundColor")
    expect(alice.locator(".jp-CopilotRoom-queue .jp-CopilotRoom-queueItem")).to_have_count(0)

    box = alice.locator(PROMPT)
    box.fill("What do you think?")
    chat.get_by_role("button", name="Quote into prompt").click()
    expect(box).to_have_value(
        "What do you think?\n\n> Bob said:\n>\n> Let us use **pandas** here.\n\n"
    )
    expect(box).to_be_focused()
    alice.get_by_role("button", name="Ask Copilot").click()
    reply = alice.locator(".jp-CopilotRoom-reply")
    expect(reply).to_have_count(1, timeout=30_000)
    assert any("pandas" in request.prompt for request in model.requests), "sent when quoted"

    reply.get_by_role("button", name="Quote into prompt").click()
    # textContent: innerText is empty for an entry scrolled off screen (not laid out).
    said = reply.locator("p").first.text_content()
    expect(box).to_have_value(f"> Copilot said:\n>\n> {said}\n\n")
    problems = problems_at_every_look(
        alice,
        screenshot,
        "chat-",
        lambda page: (
            axe_violations(page) + layout_problems(page, f"{CHAT}, .jp-CopilotRoom-promptBox")
        ),
    )
    assert not problems, "\n".join(problems)


def test_an_export_opens_in_jupyterlab_and_downloads_and_viewers_chat_when_allowed(
    lab, model, open_lab, screenshot
):
    model.script = lambda request: Reply("Exported **reply**.")
    alice = show_room(open_lab("alice", timezone="Asia/Kathmandu"))  # UTC+05:45
    say(alice, "a word before the prompt")
    box = alice.locator(PROMPT)
    box.fill("please answer for the export")
    box.press("Enter")
    expect(alice.locator(".jp-CopilotRoom-reply")).to_have_count(1, timeout=30_000)

    alice.get_by_role("button", name="Export the transcript").click()
    dialog = alice.locator(".jp-Dialog")
    expect(dialog.get_by_label("Export format")).to_have_value("ipynb")
    with alice.expect_download() as download:
        dialog.get_by_role("button", name="Download").click()
    saved = download.value
    assert saved.suggested_filename.endswith(".ipynb")
    notebook = nbformat.read(saved.path(), as_version=4)
    nbformat.validate(notebook)
    sources = json.dumps([cell.source for cell in notebook.cells])
    assert "please answer for the export" in sources and "a word before the prompt" in sources
    assert "+0545" in notebook.cells[0].source, "the time as the reader's panel shows it"

    alice.get_by_role("button", name="Export the transcript").click()
    alice.locator(".jp-Dialog").get_by_role("button", name="Open in JupyterLab").click()
    opened = alice.locator(".jp-NotebookPanel:visible")
    expect(opened).to_have_count(1, timeout=30_000)
    expect(opened.locator(".jp-MarkdownCell").filter(has_text="Exported reply")).to_have_count(1)
    # Its tab names the export (which tab JupyterLab marks current lags on a busy machine).
    expect(alice.locator(".lm-DockPanel .lm-TabBar-tab", has_text="copilot-room-")).to_have_count(1)
    assert not list(lab.root.glob("copilot-room-*.ipynb")), "not among the repository's files"
    assert len(list((lab.root / "copilot-room-exports").glob("copilot-room-*.ipynb"))) == 1

    # A viewer chats only once a host allows it, and then has no way to prompt.
    allowed = page_api(alice, "PATCH", "settings", {"viewers_can_chat": True})
    assert allowed["status"] == 200, allowed
    carol = show_room(open_lab("carol"))
    set_sidebar_width(carol, 250)
    expect(carol.get_by_role("button", name="Ask Copilot")).to_have_count(0)
    expect(carol.get_by_role("button", name="Export the transcript")).to_have_count(0)
    say(carol, "a viewer says hello")
    expect(alice.locator(CHAT).filter(has_text="a viewer says hello")).to_have_count(1)
    screenshot(carol.locator(ROOM), "viewer-chat-250px")
    assert not layout_problems(carol, ".jp-CopilotRoom-promptBox")


@pytest.mark.shared_lab
def test_bidirectional_controls_show_as_marks_and_never_reverse_what_follows(
    lab, model, open_lab, screenshot
):
    """Issue 42: U+202E in a chat message or a prompt turned the rest of its line around. The
    panel shows each control as a visible mark, for everyone, in the chat, the prompt and the
    queue; what was sent is kept (the transcript, the agent told)."""
    model.script = lambda request: Reply("Read it.")
    bob = show_room(open_lab("bob"))
    alice = show_room(open_lab("alice"))
    sneaky = "approve \u202eelif not admin\u202c please"
    say(bob, sneaky)
    box = bob.locator(PROMPT)
    box.fill(f"review this: {sneaky}")
    box.press("Enter")
    shown = "approve ⟨U+202E⟩elif not admin⟨U+202C⟩ please"
    expect(alice.locator(f"{ROOM} {CHAT}").last).to_contain_text(shown, timeout=30_000)
    prompt = alice.locator(f"{ROOM} .jp-CopilotRoom-prompt").last
    expect(prompt).to_contain_text(shown, timeout=30_000)
    for text in alice.locator(f"{ROOM} .jp-CopilotRoom-transcript").all_inner_texts():
        assert "\u202e" not in text and "\u202c" not in text
    problems = problems_at_every_look(
        alice, screenshot, "bidi-", lambda look: layout_problems(look, ROOM)
    )
    assert problems == []
    assert any("(The room notes:" in r.prompt for r in model.requests), "the agent is told"
