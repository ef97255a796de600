"""The transcript reads like a conversation (issue 11): no runtime internals, replies labelled
Copilot with their cost under them, long prompts collapsed, code in monospace with copy buttons,
Send and Stop beside the prompt box, a stopped turn that closes its rows, confirmations, every
setting in Room settings, and notes under the prompt box that follow the live queue."""

import re

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall
from jupyter_copilot_room.settings import RoomSettings

from ..harness.pages import page_api, wait_for_lab
from .panel import (
    PROMPT,
    axe_violations,
    layout_problems,
    problems_at_every_look,
    prompt_box_problems,
    replies,
    send,
    show_room,
)

ROOM = "#jp-copilot-room"
ENTRIES_AND_PROMPT_BOX = ".jp-CopilotRoom-entry, .jp-CopilotRoom-promptBox"
SNIPPET = "print('hello')\n"


def open_room(open_lab, user, **kwargs):
    return show_room(open_lab(user, **kwargs))


def reopen(page):
    """Reload the page and open the room again, as a person coming back would."""
    page.reload()
    wait_for_lab(page)  # its restored layout would otherwise hide the room opened before it
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('copilot-room:open')"
    )
    return show_room(page)


def clipboard(page) -> str:
    return page.evaluate("() => navigator.clipboard.readText()")


def allow_clipboard(page, lab):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.url)


def approve(page):
    card = page.locator(".jp-CopilotRoom-approval")
    expect(card).to_be_visible(timeout=30_000)
    card.get_by_role("button", name="Approve").click()


def conversation(request):
    if request.tool_results:
        if "ask_user" in request.last_tool_calls:
            return Reply("Noted.")
        return Reply(f"It worked. To run it yourself:\n\n```python\n{SNIPPET}```\n\nThat is all.")
    if "ask me" in request.prompt:
        return Reply(
            tool_calls=(ToolCall("ask_user", {"question": "Which one?", "choices": ["a", "b"]}),)
        )
    return Reply(
        "Running it.",
        tool_calls=(ToolCall("bash", {"command": "echo hello", "description": "say hello"}),),
    )


@pytest.mark.shared_lab
def test_the_transcript_reads_like_a_conversation_and_copies(lab, model, open_lab, screenshot):
    model.script = conversation
    alice = open_room(open_lab, "alice")
    allow_clipboard(alice, lab)
    send(alice, "run it")
    approve(alice)
    tool = alice.locator(".jp-CopilotRoom-tool")
    expect(tool).to_have_attribute("data-state", "success", timeout=30_000)
    tool.locator("summary").click()
    expect(tool.locator(".jp-CopilotRoom-result")).to_have_text("hello\n")
    expect(replies(alice)).to_have_count(2, timeout=30_000)

    # Replies are Copilot's; the turn's cost sits under its last reply, not under the prompt.
    for reply in replies(alice).all():
        expect(reply.locator(".jp-CopilotRoom-agentName")).to_have_text("Copilot")
    prompt = alice.locator(".jp-CopilotRoom-prompt")
    expect(prompt.locator(".jp-CopilotRoom-usage")).to_have_count(0)
    expect(replies(alice).first.locator(".jp-CopilotRoom-usage")).to_have_count(0)
    last = replies(alice).last
    expect(last.locator(".jp-CopilotRoom-usage")).to_contain_text("tokens in", timeout=15_000)

    # Code in monospace, with a copy button; the whole reply copies too, from the keyboard.
    code = last.locator("pre").first
    assert "monospace" in code.evaluate("e => getComputedStyle(e).fontFamily").lower() or (
        code.evaluate("e => getComputedStyle(e).fontFamily")
        == alice.evaluate(
            "() => getComputedStyle(document.body).getPropertyValue('--jp-code-font-family')"
        ).strip()
    )
    last.get_by_role("button", name="Copy this code").click()
    assert clipboard(alice) == SNIPPET.rstrip("\n")
    copy_reply = last.get_by_role("button", name="Copy this reply")
    copy_reply.focus()
    alice.keyboard.press("Enter")
    expect(last.locator(".jp-CopilotRoom-entryHeader .jp-CopilotRoom-copy")).to_have_attribute(
        "aria-label", "Copied"
    )
    assert clipboard(alice).startswith("It worked. To run it yourself:\n\n```python\n")

    # A question: the header and the status bar say what the room waits for, and no ask_user
    # tool row appears.
    send(alice, "ask me")
    expect(alice.locator(".jp-CopilotRoom-question")).to_be_visible(timeout=30_000)
    expect(alice.locator(".jp-CopilotRoom-state")).to_have_text("waiting for an answer")
    status = alice.locator(".jp-CopilotRoom-statusItem")
    expect(status).to_have_text(f"Copilot · {lab.name}: waiting for an answer")
    screenshot(alice.locator(ROOM), "question")
    alice.locator(".jp-CopilotRoom-question").get_by_role("button", name="a", exact=True).click()
    expect(replies(alice)).to_have_count(3, timeout=30_000)
    expect(alice.locator(".jp-CopilotRoom-tool")).to_have_count(1)
    # textContent, not innerText: innerText is empty for entries scrolled off screen (the panel
    # skips laying those out), so a row shown there would pass unseen; the first reply is read.
    log = alice.locator('[role="log"]').text_content() or ""
    assert "Running it." in log
    assert "shellId" not in log and "ask_user" not in log and "User selected" not in log
    problems = problems_at_every_look(
        alice,
        screenshot,
        "conversation-",
        lambda page: axe_violations(page) + layout_problems(page, ENTRIES_AND_PROMPT_BOX),
    )
    assert not problems, "\n".join(problems)


def slow_command(request):
    if request.tool_results:
        return Reply("Finished.")
    return Reply(
        "I will run this:\n\n```sh\nsleep 60\n```",
        tool_calls=(ToolCall("bash", {"command": "sleep 60", "description": "wait"}),),
    )


def long_prompt() -> str:
    words = "Here is the context of my question, in full detail. " * 110
    return f"{words}\n```python\ndef answer():\n    return 42\n```\nWhat does `answer()` return?"


def test_long_prompts_collapse_send_and_stop_close_every_row(lab, model, open_lab, screenshot):
    model.script = slow_command
    alice, bob = open_room(open_lab, "alice"), open_room(open_lab, "bob")

    # A host sets the longest prompt in Room settings, the dialog behind the gear in the room's
    # header; the counter shows near it while typing.
    expect(bob.get_by_role("button", name="Room settings…")).to_have_count(0)  # hosts only
    alice.get_by_role("button", name="Room settings…").click()
    # Every field of RoomSettings has its editor there, grouped, its help text shown under it.
    form = alice.locator(".jp-Dialog .jp-CopilotRoom-settings")
    expect(form.locator(".jp-CopilotRoom-settingsGroup > h3")).to_have_text(
        ["Who gets in", "What the agent may do", "How long things wait, how much the room takes"]
    )
    for name, declared in RoomSettings.model_fields.items():
        setting = form.locator(".jp-CopilotRoom-setting").filter(
            has=alice.locator(f'[data-setting="{name}"]')
        )
        if name == "agent":  # a choice only where the server offers several (test_acp_panel.py)
            expect(setting).to_have_count(0)
            continue
        expect(setting).to_have_count(1)
        help_text = setting.locator(".jp-CopilotRoom-settingHelp")
        expect(help_text).not_to_be_empty()
        shown = help_text.inner_text()
        choices = [c for c in re.findall(r"'([a-z-]+)'", declared.description or "")]
        if name != "approval_policy":  # its help quotes a configuration, as written
            assert not any(f"'{c}'" in shown for c in choices), f"raw values in {name}'s help"
        if not choices:
            assert shown == declared.description
    screenshot(alice.locator(".jp-Dialog-content"), "settings-dialog")
    guests = form.locator('[data-setting="guest_admission"]')
    guests.select_option("refuse")
    saved = form.locator(".jp-CopilotRoom-setting").filter(
        has=alice.locator('[data-setting="guest_admission"]')
    )
    expect(saved.locator(".jp-CopilotRoom-settingSaved")).to_have_text("Saved")
    assert page_api(alice, "GET", "settings")["json"]["guest_admission"] == "refuse"
    timeout = form.locator('[data-setting="execution_timeout"]')
    assert (timeout.get_attribute("min"), timeout.get_attribute("max")) == ("0", "86400")
    field = alice.get_by_label("Longest prompt (characters)")
    field.fill("7000")
    field.press("Enter")  # a JupyterLab dialog closes on Enter; what was typed is sent
    expect(alice.locator(".jp-Dialog")).to_have_count(0)
    for _ in range(50):
        if page_api(alice, "GET", "settings")["json"]["max_prompt_chars"] == 7000:
            break
        alice.wait_for_timeout(100)
    assert page_api(alice, "GET", "settings")["json"]["max_prompt_chars"] == 7000

    text = long_prompt()
    assert 5600 < len(text) < 7000
    bob = reopen(bob)  # the box reads the limit when it opens
    box = bob.locator(PROMPT)
    box.fill(text)
    counter = bob.locator(".jp-CopilotRoom-counter")
    expect(counter).to_have_text(f"{len(text):,} / 7,000")
    box.fill(text + "x" * 2000)
    expect(counter).to_contain_text("too long")
    box.fill(text)
    expect(bob.get_by_role("button", name="Stop the running turn")).to_have_count(0)
    bob.get_by_role("button", name="Send the prompt").click()
    expect(box).to_have_value("")

    # The long prompt is collapsed for everyone until they ask; its code block is code.
    for page in (alice, bob):
        prompt = page.locator(".jp-CopilotRoom-prompt")
        expect(prompt).to_be_visible(timeout=30_000)
        more = prompt.get_by_role("button", name=re.compile("Show more of the prompt"))
        expect(more).to_be_visible()
        assert prompt.bounding_box()["height"] < 300
    approve(alice)
    tool = alice.locator(".jp-CopilotRoom-tool")
    expect(tool).to_have_attribute("data-state", "running", timeout=30_000)
    stop = alice.get_by_role("button", name="Stop the running turn")
    expect(stop).to_be_visible()
    expect(bob.get_by_role("button", name="Stop the running turn")).to_have_count(0)

    problems = problems_at_every_look(
        alice,
        screenshot,
        "",
        lambda page: (
            prompt_box_problems(page)
            + axe_violations(page)
            + layout_problems(page, ENTRIES_AND_PROMPT_BOX)
        ),
    )
    assert not problems, "\n".join(problems)

    prompt = bob.locator(".jp-CopilotRoom-prompt")
    prompt.get_by_role("button", name=re.compile("Show more of the prompt")).click()
    expect(prompt.get_by_role("button", name="Show less of the prompt")).to_be_visible()
    assert prompt.bounding_box()["height"] > 300
    code = prompt.locator(".jp-CopilotRoom-codeBlock pre")
    expect(code).to_have_text("def answer():\n    return 42")
    expect(prompt.locator(".jp-CopilotRoom-codeSpan")).to_have_text("answer()")
    assert "`" not in (prompt.locator(".jp-CopilotRoom-promptText").text_content() or "")
    assert code.evaluate("e => getComputedStyle(e).fontFamily") != prompt.locator(
        ".jp-CopilotRoom-promptText span"
    ).first.evaluate("e => getComputedStyle(e).fontFamily")

    # Stop: the running command's row closes as stopped, and one line says who stopped it.
    stop.click()
    for page in (alice, bob):
        expect(page.locator(".jp-CopilotRoom-tool")).to_have_attribute(
            "data-state", "stopped", timeout=15_000
        )
        expect(page.locator(".jp-CopilotRoom-tool .jp-CopilotRoom-status")).to_have_text("stopped")
        expect(page.locator(".jp-CopilotRoom-system", has_text="abort")).to_have_count(1)
    expect(stop).to_have_count(0)
    bob = reopen(bob)
    expect(bob.locator(".jp-CopilotRoom-tool")).to_have_attribute("data-state", "stopped")
    expect(bob.locator(".jp-CopilotRoom-system", has_text="abort")).to_have_count(1)
    screenshot(bob.locator(ROOM), "after-stop")


def steady(request):
    if "slow" in request.prompt:
        return Reply("Slowly " * 150, chunk_size=4, delay=0.05)
    return Reply("Quick answer.")


def dialog(page):
    return page.locator(".jp-Dialog")


@pytest.mark.shared_lab
def test_notes_follow_the_queue_and_removals_and_withdrawals_are_confirmed(
    lab, model, open_lab, screenshot
):
    model.script = steady
    alice, bob = open_room(open_lab, "alice"), open_room(open_lab, "bob")
    open_room(open_lab, "carol")

    # A quick turn: once it ran, nothing says it is next.
    send(bob, "quick one")
    expect(replies(bob)).to_have_count(1, timeout=30_000)
    expect(bob.locator(".jp-CopilotRoom-queueItem")).to_have_count(0, timeout=30_000)
    expect(bob.locator(".jp-CopilotRoom-notice")).to_have_count(0)

    send(alice, "slow one")
    send(alice, "then this")
    send(bob, "mine")
    note = bob.locator(".jp-CopilotRoom-notice")
    expect(note).to_have_text(re.compile("Your prompt is queued: 2 ahead of it."))

    # Withdraw asks first: cancelled, nothing changes; confirmed, the note follows.
    waiting = alice.locator(".jp-CopilotRoom-queueItem").nth(1)
    waiting.get_by_role("button", name=re.compile("Withdraw")).click()
    expect(dialog(alice)).to_contain_text("Withdraw this prompt?")
    screenshot(alice, "withdraw-dialog")
    dialog(alice).get_by_role("button", name="Cancel").click()
    expect(alice.locator(".jp-CopilotRoom-queueItem")).to_have_count(3)
    expect(note).to_have_text(re.compile("2 ahead of it"))
    waiting.get_by_role("button", name=re.compile("Withdraw")).click()
    dialog(alice).get_by_role("button", name="Withdraw").click()
    expect(alice.locator(".jp-CopilotRoom-queueItem")).to_have_count(2)
    expect(note).to_have_text(re.compile("Your prompt is queued: 1 ahead of it."))

    # Alice stops her turn: bob's runs, then ends, and the note goes with it.
    alice.get_by_role("button", name="Stop the running turn").click()
    expect(replies(bob).last.locator(".jp-CopilotRoom-markdown")).to_have_text(
        "Quick answer.", timeout=30_000
    )
    expect(bob.locator(".jp-CopilotRoom-queueItem")).to_have_count(0, timeout=30_000)
    expect(note).to_have_count(0)

    # Bob's box is closed to him for a while (a viewer), and his waiting prompt is withdrawn
    # meanwhile: back as a member, nothing says it is still queued.
    send(alice, "slow two")
    send(bob, "later")
    expect(note).to_have_text(re.compile("1 ahead of it"))
    alice.locator(".jp-CopilotRoom-peopleBox > summary").click()
    role = alice.get_by_label(re.compile("Role of (bob|Bob)"))
    role.select_option("viewer")
    expect(bob.locator('textarea[aria-label="Prompt (disabled)"]')).to_be_visible()
    bobs = alice.locator(".jp-CopilotRoom-queueItem").nth(1)
    bobs.get_by_role("button", name=re.compile("Withdraw")).click()
    dialog(alice).get_by_role("button", name="Withdraw").click()
    expect(alice.locator(".jp-CopilotRoom-queueItem")).to_have_count(1)
    role.select_option("member")
    expect(bob.locator(PROMPT)).to_be_enabled()
    expect(note).to_have_count(0)
    alice.get_by_role("button", name="Stop the running turn").click()

    # Remove asks first too.
    remove = alice.get_by_role("button", name=re.compile("Remove (carol|Carol)"))
    remove.click()
    expect(dialog(alice)).to_contain_text("Remove")
    dialog(alice).get_by_role("button", name="Cancel").click()
    expect(remove).to_be_visible()
    remove.click()
    dialog(alice).get_by_role("button", name="Remove").click()
    expect(remove).to_have_count(0)
