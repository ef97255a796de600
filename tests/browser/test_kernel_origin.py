"""A prompt sent from a notebook kernel says so in the panel, beside its (authenticated) author."""

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply

from ..harness import people
from .panel import fits_at_every_look, show_room


@pytest.mark.shared_lab
def test_a_kernels_prompt_shows_from_a_notebook_kernel_beside_its_author(
    lab, model, open_lab, screenshot
):
    model.script = lambda request: Reply("Looked at it.")
    code, sent = lab.api(
        people.HOST, "POST", "prompts", {"text": "From my notebook", "origin": "kernel"}
    )
    assert code == 202, sent
    code, _ = lab.api(people.MEMBER, "POST", "prompts", {"text": "From my panel"})
    assert code == 202
    bob = show_room(open_lab(people.MEMBER))
    prompts = bob.locator(".jp-CopilotRoom-prompt")
    expect(prompts).to_have_count(2, timeout=30_000)
    kernel, panel = prompts.nth(0), prompts.nth(1)
    expect(kernel.locator(".jp-CopilotRoom-origin")).to_have_text("(from a notebook kernel)")
    expect(kernel.locator(".jp-CopilotRoom-entryHeader")).to_contain_text("Alice")
    expect(panel.locator(".jp-CopilotRoom-origin")).to_have_count(0)
    problems = fits_at_every_look(
        bob, screenshot, "kernel-origin-", ".jp-CopilotRoom-prompt .jp-CopilotRoom-entryHeader"
    )
    assert not problems, problems
