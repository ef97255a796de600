"""Side threads in the panel (issue 31): "Fork" on a finished turn asks for a title and opens
the thread in a panel of its own, where the owner prompts and answers its cards while the room
goes on; "Promote as diff…" previews the changes and sends the room a card, which a host
approves into the shared files. A member not added sees that the thread exists, not its content.
The thread's panel keeps its commands while the sidebar shows another room.
"""

import subprocess

from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from .panel import (
    PROMPT,
    layout_problems,
    problems_at_every_look,
    send,
    show_room,
    unreachable_buttons,
)
from .test_rooms_panel import switch_to


def script(request):
    if request.tool_results:
        return Reply("Wrote polars_try.py: polars reads the data in 0.2 s.")
    if request.prompt.endswith("try polars"):
        command = "printf 'import polars\\n' > polars_try.py"
        return Reply(tool_calls=(ToolCall("bash", {"command": command, "description": "try"}),))
    return Reply(f"Noted: {request.prompt.split(']: ', 1)[-1]}")


def git(folder, *args):
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def test_fork_work_in_a_thread_and_promote_its_diff_for_a_host_to_approve(
    open_lab, lab, model, screenshot
):
    git(lab.root, "init", "-q", "-b", "main")
    (lab.root / "analysis.py").write_text("import pandas\n")
    git(lab.root, "add", "analysis.py")
    git(lab.root, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "start")
    model.script = script
    (lab.root / "other").mkdir()
    assert lab.api("alice", "POST", "rooms", {"name": "other", "repository": "other"})[0] == 201
    alice = show_room(open_lab("alice"))
    send(alice, "load the sales data")
    prompt = alice.locator(".jp-CopilotRoom-prompt").first
    expect(prompt).to_have_attribute("data-state", "completed", timeout=30_000)

    prompt.get_by_role("button", name="Fork a side thread from here").click()
    dialog = alice.locator(".jp-Dialog")
    dialog.locator("input").fill("polars instead of pandas")
    screenshot(dialog.locator(".jp-Dialog-content"), "forking")
    dialog.get_by_role("button", name="Fork").click()

    thread = alice.locator(".jp-CopilotRoom-threadPanel")
    expect(thread.locator(".jp-CopilotRoom-threadTitle")).to_have_text("polars instead of pandas")
    expect(alice.locator("#jp-copilot-room .jp-CopilotRoom-threads")).to_contain_text("1 open")
    # Lines about people name them as they are called today (the record holds usernames).
    expect(thread.locator(".jp-CopilotRoom-system").first).to_contain_text(
        "Alice forked this side thread from the room main after Alice's turn “load the sales data”"
    )
    box = thread.locator(PROMPT)
    expect(box).to_be_enabled(timeout=30_000)
    box.fill("try polars")
    box.press("Enter")
    card = thread.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=60_000)
    card.get_by_role("button", name="Approve").click()
    expect(thread.locator(".jp-CopilotRoom-reply").last).to_contain_text(
        "polars reads the data", timeout=30_000
    )
    expect(alice.locator("#jp-copilot-room .jp-CopilotRoom-reply")).to_have_count(1)
    screenshot(alice, "thread-at-work")
    assert not (lab.root / "polars_try.py").exists(), "the thread works in its own worktree"

    # bob, a member not added, sees that the thread exists and whose it is, and cannot open it.
    bob = show_room(open_lab("bob"))
    threads = bob.locator(".jp-CopilotRoom-threads")
    threads.locator("summary").click()
    expect(threads).to_contain_text("polars instead of pandas")
    expect(threads.get_by_role("button")).to_have_count(0)
    expect(bob.locator("#jp-copilot-room .jp-CopilotRoom-system").last).to_contain_text(
        "Alice opened the side thread “polars instead of pandas”."
    )

    thread.get_by_role("button", name="Promote as diff…").click()
    preview = alice.locator(".jp-Dialog")
    expect(preview.locator(".jp-CopilotRoom-diffView")).to_contain_text("+import polars")
    screenshot(preview.locator(".jp-Dialog-content"), "promote-preview")
    preview.get_by_role("button", name="Send the card").click()

    room_card = bob.locator(".jp-CopilotRoom-approval[data-kind='promote']")
    expect(room_card).to_contain_text("Bring back a side thread's changes", timeout=30_000)
    expect(room_card).to_contain_text("+import polars")
    expect(room_card.get_by_role("button", name="Approve")).to_have_count(0)
    host_card = alice.locator("#jp-copilot-room .jp-CopilotRoom-approval[data-kind='promote']")
    problems = problems_at_every_look(
        alice,
        screenshot,
        "promote-card-",
        lambda look: layout_problems(look, "#jp-copilot-room") + unreachable_buttons(look),
    )
    assert problems == []
    host_card.get_by_role("button", name="Approve").click()
    expect(alice.locator("#jp-copilot-room .jp-CopilotRoom-checkpoint")).to_contain_text(
        "polars_try.py", timeout=30_000
    )
    assert (lab.root / "polars_try.py").read_text() == "import polars\n"

    # The sidebar moves to another room: the thread's panel reads its own document, so its
    # owner still adds a person (from the thread's room) and closes it from there.
    switch_to(alice, "other")
    screenshot(alice, "thread-beside-another-room")
    thread.get_by_role("button", name="Add a person…").click()
    chooser = alice.locator(".jp-Dialog")
    expect(chooser.locator("select option")).to_have_text(["Bob"])
    chooser.get_by_role("button", name="Add").click()
    expect(threads.get_by_role("button", name="Open")).to_have_count(1)  # bob may open it now
    thread.get_by_role("button", name="Close thread…").click()
    alice.locator(".jp-Dialog").get_by_role("button", name="Close thread").click()
    expect(thread.locator(".jp-CopilotRoom-threadBar")).to_have_attribute("data-state", "closed")
    expect(thread.locator(".jp-CopilotRoom-threadBar").get_by_role("button")).to_have_count(0)


def test_a_member_brings_a_thread_back_as_a_prompt_and_only_a_host_applies_its_diff(
    open_lab, lab, model, screenshot
):
    """Issue 42: "Promote as prompt…" from the panel queues the thread's last reply in the room;
    the promote card of a member's thread is not theirs to approve (it says so), a host's it is."""
    git(lab.root, "init", "-q", "-b", "main")
    (lab.root / "analysis.py").write_text("import pandas\n")
    git(lab.root, "add", "analysis.py")
    git(lab.root, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-qm", "start")
    model.script = script
    bob = show_room(open_lab("bob"))
    send(bob, "load the sales data")
    prompt = bob.locator(".jp-CopilotRoom-prompt").first
    expect(prompt).to_have_attribute("data-state", "completed", timeout=30_000)
    prompt.get_by_role("button", name="Fork a side thread from here").click()
    bob.locator(".jp-Dialog input").fill("polars")
    bob.locator(".jp-Dialog").get_by_role("button", name="Fork").click()
    thread = bob.locator(".jp-CopilotRoom-threadPanel")
    box = thread.locator(PROMPT)
    expect(box).to_be_enabled(timeout=30_000)
    # What is said in the thread's panel is said in the thread, and its button says so.
    expect(thread.locator(".jp-CopilotRoom-say")).to_contain_text("Say to the thread")
    expect(bob.locator("#jp-copilot-room .jp-CopilotRoom-say")).to_contain_text("Say to the room")
    box.fill("try polars")
    box.press("Enter")
    card = thread.locator(".jp-CopilotRoom-approval")
    expect(card).to_have_count(1, timeout=60_000)
    card.get_by_role("button", name="Approve").click()  # the thread's own card: its author's
    expect(thread.locator(".jp-CopilotRoom-reply").last).to_contain_text(
        "polars reads the data", timeout=30_000
    )

    thread.get_by_role("button", name="Promote as prompt…").click()
    preview = bob.locator(".jp-Dialog")
    expect(preview).to_contain_text("polars reads the data")
    preview.locator("textarea").fill("We tried polars; adopt it:")
    screenshot(preview.locator(".jp-Dialog-content"), "promote-as-prompt")
    preview.get_by_role("button", name="Queue in the room").click()
    room_prompt = bob.locator("#jp-copilot-room .jp-CopilotRoom-prompt").last
    expect(room_prompt).to_contain_text("We tried polars; adopt it:", timeout=30_000)
    expect(room_prompt).to_contain_text("polars reads the data")
    expect(room_prompt).to_have_attribute("data-state", "completed", timeout=30_000)

    thread.get_by_role("button", name="Promote as diff…").click()
    preview = bob.locator(".jp-Dialog")
    expect(preview).to_contain_text("you approve it yourself only as a host")
    preview.get_by_role("button", name="Send the card").click()
    own = bob.locator("#jp-copilot-room .jp-CopilotRoom-approval[data-kind='promote']")
    expect(own).to_contain_text(
        "Bringing this thread back needs a host; Bob approves it only as a host.", timeout=30_000
    )
    expect(own.get_by_role("button", name="Approve")).to_have_count(0)
    expect(own.locator(".jp-CopilotRoom-waitingOn")).to_have_text(
        "You cannot answer this: waiting on a host."
    )
    problems = problems_at_every_look(
        bob,
        screenshot,
        "member-owner-promote-card-",
        lambda look: layout_problems(look, "#jp-copilot-room"),
    )
    assert problems == []
    assert not (lab.root / "polars_try.py").exists(), "nothing applied before a host approves"

    alice = show_room(open_lab("alice"))
    host_card = alice.locator("#jp-copilot-room .jp-CopilotRoom-approval[data-kind='promote']")
    host_card.get_by_role("button", name="Approve").click()
    expect(alice.locator("#jp-copilot-room .jp-CopilotRoom-checkpoint").last).to_contain_text(
        "polars_try.py", timeout=30_000
    )
    assert (lab.root / "polars_try.py").read_text() == "import polars\n"
