"""Approval policies in the panel (issue 16): a host makes `rm *` need two approvers in Room
settings, the room says the new policy in one readable line; the author approves a matching
command and everyone's card says who approved and who still may (another member reads it, with
no buttons), and what waits on whom moves from the author to the hosts, alike in each person's
sidebar tab and in the room list the switcher reads (issue 26); a host approves and it runs; the
transcript's line names both and the rule. A 12,000-character command's card says how much it
hides, and "Show all" shows the rest (issue 27)."""

import re
import time

from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness.pages import page_api
from .panel import fits_at_every_look, layout_problems, send, show_room


def runs_the_prompt(request):
    """Each prompt is the shell command the agent runs."""
    if request.tool_results:
        return Reply("Done.")
    command = request.prompt.split("]: ", 1)[1].split("\n", 1)[0]
    return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "run"}),))


TAB = '.lm-TabBar-tab[data-id="jp-copilot-room"]'


def waiting_agree(pages_and_counts):
    """Each person's sidebar tab and the room list (`GET rooms`, the switcher's) count the same
    cards waiting on them in main."""
    for page, count in pages_and_counts:
        rooms = page_api(page, "GET", "rooms")["json"]["rooms"]
        [main] = [room for room in rooms if room["name"] == "main"]
        assert main["waiting_on_you"] == count, (page.user, main)
        tab = page.locator(TAB)
        if count:
            expect(tab).to_have_attribute("data-copilot-attention", str(count))
        else:
            expect(tab).not_to_have_attribute("data-copilot-attention", re.compile(r"."))


def test_a_host_asks_two_approvers_for_rm_and_the_card_says_who_still_may(
    open_lab, lab, model, screenshot
):
    (lab.root / "doomed.txt").write_text("bye")
    model.script = runs_the_prompt
    dave = open_lab("dave")  # knocks: a host admits him as a member below
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))
    assert page_api(alice, "POST", "admissions/dave", {"decision": "member"})["status"] == 200
    show_room(dave)

    alice.get_by_role("button", name="Room settings…").click()
    editor = alice.locator(".jp-Dialog .jp-CopilotRoom-approvalPolicy")
    rules = editor.get_by_label('shell rules, one "pattern -> decision" a line')
    rules.fill("git status* -> auto\nrm * -> two")
    editor.locator("legend").click()  # leaving the field sends it
    said = bob.locator(".jp-CopilotRoom-system").filter(has_text="changed the room settings")
    expect(said).to_contain_text(
        "Alice changed the room settings: approval_policy = shell: git status* auto · rm * two "
        "approvers · default ask; the rest ask."
    )

    # One source of truth: the notebook-edits checkbox is the policy's notebook default.
    notebook = editor.locator(".jp-CopilotRoom-approvalKind", has_text="notebook").locator("select")
    checkbox = alice.locator('.jp-Dialog [data-setting="auto_approve_notebook_edits"]')
    expect(notebook).to_have_value("ask")
    expect(checkbox).not_to_be_checked()
    expect(checkbox).to_be_enabled()  # the rules' change is saved
    checkbox.click()  # a controlled checkbox: it turns once the room saved the change
    expect(checkbox).to_be_checked()
    expect(notebook).to_have_value("auto")
    notebook.select_option("ask")
    expect(checkbox).not_to_be_checked()

    editor.evaluate("n => n.scrollIntoView({block: 'start'})")
    problems = layout_problems(alice, ".jp-Dialog .jp-CopilotRoom-approvalPolicy")
    screenshot(alice.locator(".jp-Dialog-content"), "policy-editor")
    alice.locator(".jp-Dialog").get_by_role("button", name="Close").click()

    send(bob, "rm doomed.txt")
    card = bob.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("Needs two approvers", timeout=30_000)
    expect(card).to_contain_text("(rule shell: rm * -> two).")
    waiting_agree([(alice, 0), (bob, 1), (dave, 0)])  # it waits on its author first
    card.get_by_role("button", name="Approve").click()

    for page in (alice, bob, dave):
        expect(page.locator(".jp-CopilotRoom-twoApprovers")).to_have_text(
            "Approved by Bob; needs one more: a host."
        )
    expect(
        bob.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Approve")
    ).to_have_count(0)
    expect(dave.locator(".jp-CopilotRoom-approval").get_by_role("button")).to_have_count(0)
    assert (lab.root / "doomed.txt").exists()  # one approval is not enough
    waiting_agree([(alice, 1), (bob, 0), (dave, 0)])  # then on a host, no longer on its author
    problems += fits_at_every_look(
        alice, screenshot, "two-approvers-card-", ".jp-CopilotRoom-approval"
    )

    alice.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Approve").click()
    line = dave.locator(".jp-CopilotRoom-request").filter(has_text="rm doomed.txt")
    expect(line).to_contain_text("approved by Bob and Alice", timeout=30_000)
    expect(line).to_contain_text("Rule: shell: rm * -> two")
    expect(dave.locator(".jp-CopilotRoom-approval")).to_have_count(0)
    screenshot(line, "settled-line")
    # The card settles, then the runtime runs the command: the file goes a moment later.
    deadline = time.monotonic() + 15
    while (lab.root / "doomed.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (lab.root / "doomed.txt").exists()

    # Nothing is approved unseen (issue 27): a long command's card says how much it hides, and
    # "Show all" brings the rest, also to someone who only reads the card.
    end = "END-OF-THE-LONG-COMMAND"
    send(bob, "echo " + "x" * 11_971 + " " + end)  # 12,000 characters: 4,000 past the limit
    long_card_selector = ".jp-CopilotRoom-approval"
    long_card = dave.locator(long_card_selector)
    expect(long_card.locator(".jp-CopilotRoom-hidden")).to_have_text(
        "4,000 more characters hiddenShow all", timeout=30_000
    )
    command = long_card.locator(".jp-CopilotRoom-cardSummary")
    expect(command).not_to_contain_text(end)
    problems += fits_at_every_look(dave, screenshot, "long-command-", long_card_selector)
    long_card.get_by_role("button", name="Show all").click()
    expect(command).to_contain_text(end)
    expect(long_card.locator(".jp-CopilotRoom-hidden")).to_have_count(0)
    command.evaluate("n => { n.scrollTop = n.scrollHeight; }")
    problems += fits_at_every_look(dave, screenshot, "long-command-all-", long_card_selector)
    bob.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Reject").click()
    expect(dave.locator(".jp-CopilotRoom-approval")).to_have_count(0, timeout=30_000)
    assert problems == [], problems
