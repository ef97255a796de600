"""Checkpoints in the panel (issue 16): a turn that changed files says "Changed N files", its
diff opens in a dialog for a member, and a host reverts it from the turn ("Revert this turn" is
not offered to a member while hosts do not allow authors to)."""

from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .panel import fits_at_every_look, send, show_room

ORIGINAL = "first line\nsecond line\n"


def edits_two_files(request):
    if request.tool_results:
        return Reply("Both files are edited.")
    command = "printf 'agent\\n' >> notes.txt && printf 'new file\\n' > a-rather-long-name.md"
    return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "edit"}),))


def test_a_turn_shows_its_changed_files_diff_and_a_hosts_revert(open_lab, lab, model, screenshot):
    (lab.root / "notes.txt").write_text(ORIGINAL)
    model.script = edits_two_files
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))

    send(bob, "add a line to the notes and write a new file")
    card = bob.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=30_000)
    card.get_by_role("button", name="Approve").click()
    line = bob.locator(".jp-CopilotRoom-checkpoint")
    expect(line).to_contain_text("Changed 2 files", timeout=30_000)
    expect(line).to_contain_text("notes.txt")
    expect(bob.get_by_role("button", name="Revert this turn")).to_have_count(0)

    bob.locator(".jp-CopilotRoom-checkpoint").get_by_role("button", name="Diff").click()
    diff = bob.locator(".jp-CopilotRoom-checkpointDiff")
    expect(diff).to_contain_text("+agent")
    screenshot(bob.locator(".jp-Dialog-content"), "diff-dialog")
    bob.get_by_role("button", name="Close").click()

    problems = fits_at_every_look(alice, screenshot, "checkpoint-", ".jp-CopilotRoom-checkpoint")
    assert problems == []
    alice.get_by_role("button", name="Revert this turn").click()
    alice.locator(".jp-Dialog").get_by_role("button", name="Revert").click()
    expect(alice.locator(".jp-CopilotRoom-system").filter(has_text="reverted")).to_contain_text(
        "Alice reverted Bob's turn"
    )
    expect(bob.locator(".jp-CopilotRoom-checkpoint").first).to_contain_text("(reverted)")
    assert (lab.root / "notes.txt").read_text() == ORIGINAL
    assert not (lab.root / "a-rather-long-name.md").exists()
