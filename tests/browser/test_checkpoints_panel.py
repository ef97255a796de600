"""Checkpoints in the panel (issue 16): a turn that changed files says "Changed N files", its
diff opens in a dialog for a member, and a host reverts it from the turn ("Revert this turn" is
not offered to a member while hosts do not allow authors to)."""

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .panel import fits_at_every_look, send, show_room

ORIGINAL = "first line\nsecond line\n"


def edits_two_files(request):
    if request.tool_results:
        return Reply("Both files are edited.")
    command = "printf 'agent\\n' >> notes.txt && printf 'new file\\n' > a-rather-long-name.md"
    return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "edit"}),))


@pytest.mark.shared_lab  # a created room: its diff and revert are its own routes, not main's
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


def edit_then_shell(root):
    """The first prompt asks to edit stats.py (it is rejected); the next runs a command."""

    def script(request):
        if request.tool_results:
            return Reply("Done.")
        if "guard" in request.prompt:
            path = str(root / "stats.py")
            edit = {"path": path, "old_str": "/ len(xs)", "new_str": "/ max(len(xs), 1)"}
            return Reply(tool_calls=(ToolCall("edit", edit),))
        command = "printf 'made by the agent\\n' > made.txt"
        return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "make"}),))

    return script


#: What a person's editor does: save a file through Jupyter's contents API.
SAVE = (
    "(p) => window.jupyterapp.serviceManager.contents"
    ".save(p, {type: 'file', format: 'text', content: 'mine\\n'})"
)


def test_a_persons_saves_during_a_turn_are_never_its_checkpoint(open_lab, lab, model, screenshot):
    """Issue 42: a turn whose only edit was rejected has nothing to revert, although a person
    saved a file through JupyterLab and another on disk meanwhile; a turn that ran a shell
    command names what changed while it ran, and a person's save is not among it."""
    (lab.root / "stats.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    model.script = edit_then_shell(lab.root)
    alice, bob = (show_room(open_lab(user)) for user in ("alice", "bob"))

    send(bob, "guard the mean")
    card = bob.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=30_000)
    alice.evaluate(SAVE, "people.txt")  # Alice's editor saves through Jupyter's contents API
    (lab.root / "scratch.txt").write_text("typed in a terminal\n")  # and someone, on disk
    card.get_by_role("button", name="Reject").click()
    first = bob.locator(".jp-CopilotRoom-prompt").first
    expect(first).to_have_attribute("data-state", "completed", timeout=30_000)

    send(bob, "make a file")
    card = bob.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=30_000)
    alice.evaluate(SAVE, "more-notes.txt")
    card.get_by_role("button", name="Approve").click()
    made = bob.locator(".jp-CopilotRoom-checkpoint")
    expect(made).to_have_count(1, timeout=30_000)  # the second turn's: checkpoints go in order
    expect(made).to_contain_text("Changed 1 file: made.txt")
    expect(made).to_contain_text("changed while the agent's shell ran: made.txt")
    expect(first.locator(".jp-CopilotRoom-checkpoint")).to_have_count(0)
    problems = fits_at_every_look(alice, screenshot, "people-saves-", ".jp-CopilotRoom-checkpoint")
    assert problems == []
    assert (lab.root / "people.txt").read_text() == "mine\n"
    assert (lab.root / "scratch.txt").read_text() == "typed in a terminal\n"
    assert (lab.root / "stats.py").read_text().endswith("/ len(xs)\n"), "the edit was rejected"
