"""Driving the room panel in a page, as a person would: shared by the browser and hub tests."""

import time

from playwright.sync_api import expect

PROMPT = 'textarea[aria-label="Prompt for the agent"]'


def show_room(page):
    """Open the room in JupyterLab's sidebar (its command) and wait for it."""
    page.evaluate("() => window.jupyterapp.commands.execute('copilot-room:open')")
    expect(page.locator(".jp-CopilotRoom-room, .jp-CopilotRoom-door")).to_be_visible()
    return page


def send(page, text):
    box = page.locator(PROMPT)
    box.click()  # JupyterLab may move the focus to a document it just opened
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("")  # sent: the box empties


def replies(page):
    return page.locator(".jp-CopilotRoom-reply")


def assert_first_reply_grows(page, timeout: float = 30):
    """The first reply is seen at three or more lengths: it streams, not all at the end."""
    seen = set()
    deadline = time.monotonic() + timeout
    while len(seen) < 3 and time.monotonic() < deadline:
        if replies(page).count():
            seen.add(len(replies(page).first.inner_text()))
    assert len(seen) >= 3, f"the reply should grow while it streams, saw lengths {seen}"
