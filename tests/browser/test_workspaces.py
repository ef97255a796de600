"""A workspace of one's own (issue 42): JupyterLab keeps one layout of open tabs per workspace,
and a shared server's `/lab` is everyone's. Once someone else is in the room, the room offers
each person `/lab/workspaces/<username>`, once per browser."""

import re

from playwright.sync_api import expect

from ..harness.pages import wait_for_lab
from .panel import show_room


def test_a_person_is_offered_a_workspace_of_their_own_once_someone_else_is_here(lab, open_lab):
    show_room(open_lab("alice"))
    bob = open_lab("bob", offer_workspace=True)
    offer = bob.get_by_role("button", name="Open my workspace")
    expect(offer).to_be_visible(timeout=30_000)
    expect(bob.locator(".Toastify")).to_contain_text("shares the open tabs")

    offer.click()
    bob.wait_for_url(re.compile(r"/lab/workspaces/bob$"))
    wait_for_lab(bob)
    expect(show_room(bob).locator(".jp-CopilotRoom-promptBox")).to_be_visible()

    # Back on the shared workspace, nothing is offered twice: the room shows both people (the
    # change the offer follows), and two frames later no offer has been drawn.
    bob.goto(f"{lab.url}/lab")
    wait_for_lab(bob)
    expect(show_room(bob).locator(".jp-CopilotRoom-header")).to_contain_text("2 people")
    bob.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    expect(bob.get_by_role("button", name="Open my workspace")).to_have_count(0)
