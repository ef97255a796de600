"""The panel as people live in it (issue 11): it fits every sidebar width in both themes, axe-core
finds nothing serious, the prompt box stays in reach, the transcript keeps the reader's place,
and what needs a person reaches them, with the panel open or closed."""

import re

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness import people
from ..harness.pages import DARK, LIGHT, set_theme
from .panel import (
    QUESTION_AND_COMMAND,
    axe_violations,
    fits_at_every_look,
    layout_problems,
    nameless_door_buttons,
    prompt_box_problems,
    replies,
    send,
    set_sidebar_width,
    show_room,
    unreachable_buttons,
)


def open_room(open_lab, user, **kwargs):
    return show_room(open_lab(user, **kwargs))


def asks_and_runs(request):
    """A question and a shell command at once: both cards wait at the same time."""
    if request.tool_results:
        return Reply("Done.")
    if "then mine" in request.prompt:
        return Reply("Yours now.")
    return Reply(
        "Let me check two things first.",
        tool_calls=QUESTION_AND_COMMAND,
    )


BOXES = (
    ".jp-CopilotRoom-card, .jp-CopilotRoom-queueItem, .jp-CopilotRoom-personRow,"
    " .jp-CopilotRoom-header, .jp-CopilotRoom-entry, .jp-CopilotRoom-promptBox"
)


def row_problems(page, width: int) -> list[str]:
    """People rows: the presence dot sits beside the name, and a host's role select is sized to
    its words, not stretched across a wide panel."""
    problems = []
    for row in page.locator(".jp-CopilotRoom-personRow").all():
        dot = row.locator(".jp-CopilotRoom-presence").bounding_box()
        name = row.locator(".jp-CopilotRoom-personName").bounding_box()
        if dot["y"] + dot["height"] < name["y"] or dot["y"] > name["y"] + name["height"]:
            problems.append(f"{row.inner_text()!r}: the presence dot is on a line of its own")
        select = row.locator("select")
        if select.count() and select.bounding_box()["width"] > 120:
            problems.append(f"the role select is {select.bounding_box()['width']} px wide")
    return [f"{width} px: {problem}" for problem in problems]


def show_an_unverified_badge(page) -> None:
    """The test server vouches for everyone, so nobody here is unverified: put the badge the
    panel draws for such a person (person.tsx) beside the first name, so axe checks its contrast
    in this theme."""
    page.evaluate(
        """() => {
            const name = document.querySelector('#jp-copilot-room .jp-CopilotRoom-person');
            if (name && !name.querySelector('.jp-mod-unverified')) {
                const badge = document.createElement('span');
                badge.className = 'jp-CopilotRoom-badge jp-mod-unverified';
                badge.textContent = 'unverified';
                name.appendChild(badge);
            }
        }"""
    )


def lengthen_a_name(page) -> None:
    """A display name longer than a 250 px panel's row (the test people's are short), in the
    transcript and in People: shown whole, and the presence dot stays beside it (`row_problems`)."""
    page.evaluate(
        """() => {
            const names = document.querySelectorAll('#jp-copilot-room .jp-CopilotRoom-personName');
            names.forEach(name => { name.textContent = 'Alexandra Konstantinopoulou-Smythe'; });
        }"""
    )


def own_prompt_out_of_sight(page) -> list[str]:
    """Alice's own waiting prompt (behind bob's running one) and its Withdraw are in sight and
    not covered, however much the tray holds; nobody else is told of it."""
    place = page.locator(".jp-CopilotRoom-myPlace")
    if page.user != "alice":
        return [f"{page.user} sees {place.inner_text()!r}"] if place.count() else []
    if not place.count():
        return ["alice's own waiting prompt has no line"]
    expect(place).to_contain_text("Your prompt is next")
    withdraw = place.get_by_role("button", name="Withdraw")
    hit = withdraw.evaluate(
        """button => {
            const box = button.getBoundingClientRect();
            const at = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
            return at === button || button.contains(at);
        }"""
    )
    return [] if hit else ["alice's Withdraw is out of sight or covered"]


def transcript_problems(page) -> list[str]:
    """The transcript keeps at least 40% of the panel's height, whatever else waits."""
    room = page.locator(".jp-CopilotRoom-room").bounding_box()
    log = page.locator(".jp-CopilotRoom-transcriptBox").bounding_box()
    share = log["height"] / room["height"]
    return [] if share >= 0.4 else [f"the transcript has {share:.0%} of the panel's height"]


@pytest.mark.shared_lab
def test_a_busy_room_fits_every_width_keeps_the_prompt_box_and_passes_axe_in_both_themes(
    lab, model, open_lab, screenshot
):
    """People open, someone at the door, a queue and two cards, in an 800 px high window: the
    transcript keeps 40% of the panel, and the tray folds to a line that counts what waits."""
    model.script = asks_and_runs
    alice, carol = open_room(open_lab, "alice"), open_room(open_lab, "carol")
    open_room(open_lab, "dave")  # at the door: alice gets an admission card
    send(open_room(open_lab, "bob"), "please write the file")
    for page in (alice, carol):
        expect(page.locator(".jp-CopilotRoom-approval")).to_be_visible(timeout=30_000)
        expect(page.locator(".jp-CopilotRoom-question")).to_be_visible()
    assert lab.api("alice", "POST", "prompts", {"text": "then mine"})[0] in (200, 201, 202)
    for page in (alice, carol):
        expect(page.locator(".jp-CopilotRoom-queueItem")).to_have_count(2)
        page.locator(".jp-CopilotRoom-peopleBox > summary").click()
    expect(alice.locator(".jp-CopilotRoom-admission")).to_be_visible()
    expect(carol.locator(".jp-CopilotRoom-approval")).to_contain_text("or a host")

    problems = []
    for theme, name in ((LIGHT, "light"), (DARK, "dark")):
        for page in (alice, carol):
            set_theme(page, theme)
            for width in (250, 500, 765):
                set_sidebar_width(page, width)
                lengthen_a_name(page)
                screenshot(page, f"{page.user}-{width}px-{name}")
                where = f"{page.user}, {width} px, {name}"
                problems += [f"{where}: {p}" for p in layout_problems(page, BOXES)]
                problems += [f"{where}: {p}" for p in prompt_box_problems(page)]
                problems += [f"{where}: {p}" for p in row_problems(page, width)]
                problems += [f"{where}: {p}" for p in transcript_problems(page)]
                problems += [f"{where}: {p}" for p in unreachable_buttons(page)]
                problems += [f"{where}: {p}" for p in nameless_door_buttons(page)]
                problems += [f"{where}: {p}" for p in own_prompt_out_of_sight(page)]
                if width != 500:
                    show_an_unverified_badge(page)
                    problems += [f"{where}: {p}" for p in axe_violations(page)]
    assert not problems, "\n".join(problems)

    fold = alice.locator(".jp-CopilotRoom-trayFold")
    expect(fold).to_have_text("▾ 1 at the door · 2 cards · 1 queued")  # bob's runs
    fold.click()
    expect(fold).to_have_attribute("aria-expanded", "false")
    expect(alice.locator(".jp-CopilotRoom-approval")).to_have_count(0)
    expect(fold).to_have_text("▸ 1 at the door · 2 cards · 1 queued")
    screenshot(alice, "tray-folded")
    fold.click()
    expect(alice.locator(".jp-CopilotRoom-approval")).to_be_visible()


def paragraphs(request, count: int = 10, chunk_size: int = 12) -> Reply:
    text = "\n\n".join(f"Paragraph {n} of the answer to {request.prompt}." for n in range(count))
    return Reply(text, chunk_size=chunk_size, delay=0.01)


def distance_from_bottom(log) -> float:
    return log.evaluate("n => n.scrollHeight - n.scrollTop - n.clientHeight")


@pytest.mark.shared_lab
def test_the_transcript_opens_at_the_latest_entry_and_keeps_a_reader_who_scrolled_up(
    lab, model, open_lab, screenshot
):
    model.script = paragraphs
    bob = open_room(open_lab, "bob")
    for n in range(3):
        send(bob, f"question {n}")
        expect(replies(bob).nth(n)).to_have_attribute("data-state", "done", timeout=30_000)

    # After a reload the room connects while the sidebar is closed; opened, it shows the latest.
    bob.reload()
    bob.wait_for_function("() => window.jupyterapp?.commands.hasCommand('copilot-room:open')")
    expect(bob.locator(".jp-CopilotRoom-statusItem")).to_have_text(f"Copilot · {lab.name}: idle")
    show_room(bob)
    log = bob.locator('[role="log"]')
    expect(replies(bob)).to_have_count(3)
    expect(replies(bob).last).to_be_in_viewport()
    assert distance_from_bottom(log) < 24

    # Scrolled up a little (the mouse wheel), new output does not move the view; a button says
    # there is more.
    log.hover()
    bob.mouse.wheel(0, -150)
    bob.wait_for_function(
        "() => { const n = document.querySelector('[role=\"log\"]');"
        " return n.scrollHeight - n.scrollTop - n.clientHeight > 100; }"
    )
    bob.wait_for_timeout(500)
    place = log.evaluate("n => n.scrollTop")
    alice = open_room(open_lab, "alice")
    send(alice, "question 3")
    jump = bob.get_by_role("button", name="New activity below")
    expect(jump).to_be_visible(timeout=15_000)
    expect(replies(bob).nth(3)).to_have_attribute("data-state", "done", timeout=30_000)
    assert log.evaluate("n => n.scrollTop") == place, "the reader's place moved"

    problems = []
    for theme, name in ((LIGHT, "light"), (DARK, "dark")):
        set_theme(bob, theme)
        for width in (250, 500):
            set_sidebar_width(bob, width)
            screenshot(bob.locator("#jp-copilot-room"), f"new-activity-{width}px-{name}")
            where = f"{width} px, {name}"
            problems += [f"{where}: {p}" for p in layout_problems(bob, ".jp-CopilotRoom-room")]
        problems += [f"{name}: {p}" for p in axe_violations(bob)]
    assert not problems, "\n".join(problems)

    jump.click()
    expect(jump).to_be_hidden()
    bob.wait_for_function(
        "() => { const n = document.querySelector('[role=\"log\"]');"
        " return n.scrollHeight - n.scrollTop - n.clientHeight < 24; }"
    )
    # Back at the bottom, the reader follows new output again, a long fast reply too (the view
    # follows once per frame: its own scrolls never read as the reader's), and is never told
    # of new activity below.
    bob.evaluate(
        """() => {
            window.__jumpShown = false;
            const room = document.getElementById('jp-copilot-room');
            new MutationObserver(() => {
                window.__jumpShown ||= !!room.querySelector('.jp-CopilotRoom-jump');
            }).observe(room, {childList: true, subtree: true});
        }"""
    )
    model.script = lambda request: paragraphs(request, count=100, chunk_size=150)
    send(alice, "question 4")
    expect(replies(bob).nth(4)).to_have_attribute("data-state", "done", timeout=30_000)
    expect(replies(bob).nth(4)).to_be_in_viewport()
    assert distance_from_bottom(log) < 24
    assert not bob.evaluate("() => window.__jumpShown"), "a following reader was told of more"


@pytest.mark.shared_lab
def test_sending_takes_the_sender_to_the_newest_entry(lab, model, open_lab, screenshot):
    """A reader who scrolled up and was told of new activity, then asks: they see their prompt."""
    model.script = paragraphs
    bob = open_room(open_lab, "bob")
    for n in range(3):
        send(bob, f"question {n}")
        expect(replies(bob).nth(n)).to_have_attribute("data-state", "done", timeout=30_000)
    log = bob.locator('[role="log"]')
    log.hover()
    bob.mouse.wheel(0, -400)
    bob.wait_for_function(
        "() => { const n = document.querySelector('[role=\"log\"]');"
        " return n.scrollHeight - n.scrollTop - n.clientHeight > 100; }"
    )
    bob.wait_for_timeout(500)
    alice = open_room(open_lab, "alice")
    send(alice, "question from alice")
    jump = bob.get_by_role("button", name="New activity below")
    expect(jump).to_be_visible(timeout=15_000)

    send(bob, "my next question")
    expect(jump).to_be_hidden()
    mine = bob.locator(".jp-CopilotRoom-entry", has_text="my next question").last
    expect(mine).to_be_in_viewport(timeout=15_000)
    expect(replies(bob).nth(4)).to_have_attribute("data-state", "done", timeout=30_000)
    bob.wait_for_function(
        "() => { const n = document.querySelector('[role=\"log\"]');"
        " return n.scrollHeight - n.scrollTop - n.clientHeight < 24; }"
    )
    screenshot(bob.locator("#jp-copilot-room"), "sent-scrolls-to-newest")
    assert fits_at_every_look(bob, screenshot, "sent-", "#jp-copilot-room") == []


def writes_a_file(request):
    if request.tool_results:
        return Reply("Done.")
    return Reply(
        "I need to run a command.",
        tool_calls=(ToolCall("bash", {"command": "echo hi > approved.txt", "description": "w"}),),
    )


TOASTS = ".Toastify__toast"


def test_panel_closed_hosts_see_arrivals_authors_their_cards_and_a_shortcut_leads_there(
    lab, model, open_lab, screenshot
):
    model.script = writes_a_file
    alice, bob = open_lab("alice"), open_lab("bob")  # neither opens the room
    tab = '.lm-TabBar-tab[data-id="jp-copilot-room"]'
    tabs = {page.user: page.locator(tab) for page in (alice, bob)}
    for page in (alice, bob):
        expect(page.locator(".jp-CopilotRoom-room")).to_be_hidden()
        expect(tabs[page.user]).not_to_have_attribute("data-copilot-attention", "1")

    # Someone at the door: the host's sidebar tab counts it and a notification says who, once.
    open_room(open_lab, "dave")
    expect(tabs["alice"]).to_have_attribute("data-copilot-attention", "1")
    expect(tabs["alice"]).to_have_attribute("title", re.compile("waits on you"))
    expect(alice.locator(TOASTS)).to_contain_text("Dave asks to join")
    expect(bob.locator(TOASTS)).to_have_count(0)
    expect(tabs["bob"]).not_to_have_attribute("data-copilot-attention", "1")
    screenshot(alice, "arrival-with-the-panel-closed")

    # Bob's prompt (sent elsewhere) asks for his approval: his tab and a notification say so.
    assert lab.api("bob", "POST", "prompts", {"text": "please write the file"})[0] < 300
    expect(tabs["bob"]).to_have_attribute("data-copilot-attention", "1", timeout=30_000)
    expect(bob.locator(TOASTS)).to_contain_text("Copilot waits for your approval")
    # The arrival is not notified again when the room changes.
    expect(alice.locator(TOASTS)).to_have_count(1)
    screenshot(bob, "card-with-the-panel-closed")

    # One shortcut opens the room at the card, focused; the keyboard alone answers it.
    bob.locator("body").press("Control+Alt+J")
    card = bob.locator(".jp-CopilotRoom-approval")
    expect(card).to_be_focused()
    expect(card).to_be_in_viewport()
    assert card.evaluate("n => getComputedStyle(n).outlineStyle") != "none"
    assert card.evaluate("n => getComputedStyle(n).animationName") == "jp-copilot-room-pulse"
    bob.emulate_media(reduced_motion="reduce")
    assert card.evaluate("n => getComputedStyle(n).animationName") == "none"
    assert not axe_violations(bob)
    bob.keyboard.press("Tab")
    approve = card.get_by_role("button", name="Approve")
    expect(approve).to_be_focused()
    assert approve.evaluate("n => getComputedStyle(n).outlineStyle") != "none"
    screenshot(bob.locator("#jp-copilot-room"), "keyboard-focus")
    bob.keyboard.press("Enter")
    expect(card).to_have_count(0, timeout=30_000)
    expect(tabs["bob"]).not_to_have_attribute("data-copilot-attention", "1")

    # The badged tab still opens the room; the host's shortcut leads to the person at the door,
    # and the keyboard admits them.
    tabs["alice"].click()
    expect(alice.locator(".jp-CopilotRoom-room")).to_be_visible()
    alice.locator("body").press("Control+Alt+J")
    admission = alice.locator(".jp-CopilotRoom-admission")
    expect(admission).to_be_focused()
    alice.keyboard.press("Tab")
    alice.keyboard.press("Tab")
    expect(admission.get_by_role("button", name="Admit as member")).to_be_focused()
    alice.keyboard.press("Enter")
    expect(admission).to_have_count(0, timeout=15_000)
    expect(tabs["alice"]).not_to_have_attribute("data-copilot-attention", "1")


@pytest.mark.shared_lab
def test_a_streamed_reply_is_announced_by_finished_paragraphs_not_by_deltas(lab, model, open_lab):
    model.script = lambda request: paragraphs(request, 3)
    carol = open_room(open_lab, "carol")
    carol.evaluate(
        """() => {
            window.spoken = [];
            const region = document.querySelector('#jp-copilot-room [aria-live="polite"]');
            new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(
                n => window.spoken.push(n.textContent)))).observe(region, {childList: true});
        }"""
    )
    send(open_room(open_lab, "bob"), "tell me")
    expect(replies(carol).first).to_have_attribute("data-state", "done", timeout=30_000)
    carol.wait_for_function("() => window.spoken.length >= 3")
    assert carol.evaluate("() => window.spoken") == [
        f"Paragraph {n} of the answer to [bob]: tell me." for n in range(3)
    ]
    # The transcript itself is not read out change by change.
    assert carol.locator('[role="log"]').get_attribute("aria-live") == "off"


@pytest.mark.shared_lab
def test_a_card_that_needs_you_comes_into_view_without_taking_the_focus(
    lab, model, open_lab, screenshot
):
    model.script = writes_a_file
    alice = open_room(open_lab, "alice", viewport=(1280, 520))  # a laptop with a dock
    set_sidebar_width(alice, 250)
    for person in ("dave", "erin", people.GUEST):  # three at the door: a tray taller than its room
        open_lab(person)
    expect(alice.locator(".jp-CopilotRoom-admission")).to_have_count(3, timeout=30_000)
    alice.locator(".jp-CopilotRoom-peopleBox > summary").click()
    tray = alice.locator(".jp-CopilotRoom-trayBody")
    tray.evaluate("n => { n.scrollTop = n.scrollHeight; }")  # reading who is in the room
    assert tray.evaluate("n => n.scrollTop") > 0, "the tray should scroll here"
    send(alice, "please write the file")
    card = alice.locator(".jp-CopilotRoom-approval")
    expect(card).to_be_visible(timeout=30_000)
    expect(card).to_be_in_viewport(ratio=0.8)  # the tray's fold bar stays above it
    expect(card.get_by_role("button", name="Approve")).to_be_in_viewport()
    expect(card).not_to_be_focused()  # shown, not taken: the reader may be typing elsewhere
    screenshot(alice.locator("#jp-copilot-room"), "card-brought-into-view")
