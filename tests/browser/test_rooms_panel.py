"""Several rooms in the panel (issue 17): a host creates a room from the switcher ("New room…",
its folder picked in JupyterLab's folder dialog), a link opens that room for someone who then
waits at its door, the host sees it as a dot in the switcher from the other room, and switches
back to let them in."""

import re

from playwright.sync_api import expect

from ..harness.pages import wait_for_lab
from .panel import fits_at_every_look, show_room

SWITCHER = ".jp-CopilotRoom-switcher"


def room_item(page, room: str):
    """The switcher menu's item of `room` (a radio item, checked for the room the page is in)."""
    name = page.locator(".jp-CopilotRoom-roomItemName", has_text=re.compile(f"^{room}$"))
    item = page.locator(".jp-CopilotRoom-roomsMenu .lm-Menu-item").filter(has=name)
    expect(item).to_have_attribute("role", "menuitemradio")
    return item


def switch_to(page, room: str) -> None:
    page.locator(SWITCHER).click()
    room_item(page, room).click()
    expect(page.locator(".jp-CopilotRoom-switcherName")).to_have_text(room)


def test_a_host_creates_a_room_switches_and_sees_who_waits_in_the_other(open_lab, lab, screenshot):
    (lab.root / "projects" / "Data Analysis").mkdir(parents=True)
    alice = show_room(open_lab("alice"))
    expect(alice.locator(".jp-CopilotRoom-switcherName")).to_have_text("main")
    expect(alice.locator(".jp-CopilotRoom-statusItem")).to_contain_text("Copilot · main:")

    # "New room…": the folder from JupyterLab's folder dialog, the name suggested from it.
    alice.locator(SWITCHER).click()
    alice.get_by_role("menuitem", name="New room…").click()
    dialog = alice.locator(".jp-Dialog")
    dialog.get_by_role("button", name="Choose folder…").click()
    picker = alice.locator(".jp-Dialog")
    picker.locator(".jp-DirListing-item", has_text="projects").dblclick()
    picker.locator(".jp-DirListing-item", has_text="Data Analysis").click()
    picker.get_by_role("button", name="Select").click()
    dialog = alice.locator(".jp-Dialog")
    expect(dialog.locator('input[name="folder"]')).to_have_value("projects/Data Analysis")
    expect(dialog.locator('input[name="name"]')).to_have_value("data-analysis")
    # A name the server refuses is said in the dialog, which stays open with what was typed.
    dialog.locator('input[name="name"]').fill("Data Analysis")
    dialog.get_by_role("button", name="Create").click()
    expect(alice.locator(".jp-CopilotRoom-newRoomError")).to_contain_text("lower-case")
    screenshot(alice.locator(".jp-Dialog-content"), "new-room-refused")
    alice.locator('.jp-Dialog input[name="name"]').fill("data-analysis")
    alice.locator(".jp-Dialog").get_by_role("button", name="Create").click()
    expect(alice.locator(".jp-CopilotRoom-switcherName")).to_have_text("data-analysis")
    expect(alice.locator(".jp-CopilotRoom-statusItem")).to_contain_text("Copilot · data-analysis:")
    expect(alice.locator(".jp-CopilotRoom-room")).to_be_visible()

    # Dave follows a link to the new room: the panel opens on it, at its door; the address
    # loses the parameter once read.
    dave = open_lab("dave")
    dave.goto(f"{lab.url}/lab?copilot-room=data-analysis")
    wait_for_lab(dave)
    expect(dave.locator(".jp-CopilotRoom-switcherName")).to_have_text("data-analysis")
    expect(dave.locator(".jp-CopilotRoom-door")).to_be_visible()
    assert "copilot-room" not in dave.url

    # Alice is back in main: the switcher's dot says something waits on her in the other room.
    switch_to(alice, "main")
    dot = alice.get_by_role("img", name="1 waiting on you in data-analysis")
    expect(dot).to_be_visible(timeout=15_000)
    alice.locator(SWITCHER).click()
    item = room_item(alice, "data-analysis")
    expect(item).to_have_attribute("aria-checked", "false")
    expect(room_item(alice, "main")).to_have_attribute("aria-checked", "true")
    expect(item).to_contain_text("projects/Data Analysis/")
    expect(item).to_contain_text("1 waiting on you")
    screenshot(alice.locator(".jp-CopilotRoom-roomsMenu"), "rooms-menu")
    alice.keyboard.press("Escape")

    problems = fits_at_every_look(alice, screenshot, "switcher-", ".jp-CopilotRoom-header")
    assert problems == []

    # Through the keyboard, from the palette's command: the room where Dave waits.
    alice.evaluate("() => window.jupyterapp.commands.execute('copilot-room:switch-room')")
    menu = alice.locator(".jp-CopilotRoom-roomsMenu")
    expect(menu).to_be_visible()
    alice.keyboard.press("ArrowDown")
    alice.keyboard.press("Enter")
    expect(alice.locator(".jp-CopilotRoom-switcherName")).to_have_text("data-analysis")
    expect(alice.locator('[data-admission="dave"]')).to_be_visible()
    expect(dot).to_have_count(0)  # what waits here is no longer "in another room"

    # An unknown room in a link: a notification, and the page stays in main.
    show_room(dave)
    dave.goto(f"{lab.url}/lab?copilot-room=nowhere")
    wait_for_lab(dave)
    toast = dave.locator(".Toastify__toast", has_text='no Copilot room named "nowhere"')
    expect(toast).to_be_visible()
    show_room(dave)
    expect(dave.locator(".jp-CopilotRoom-switcherName")).to_have_text("main")
    # (The refused name's 400 is the browser's own console line.)
    unexpected = [p for p in alice.problems + dave.problems if "status of 400" not in p]
    assert unexpected == []
