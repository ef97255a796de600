"""When the agent cannot run, as people see it: the advice first, that prompts wait, the details
collapsed and wrapped inside the panel, and a host's "Try again" that brings the agent back once
the runtime is installed, with no server restart."""

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.runtime import RUNTIME_VERSION, cache_dir

from ..harness import config
from ..harness.browser_fixtures import serving
from ..harness.helpers import no_script
from ..harness.pages import DARK, LIGHT, set_theme
from ..harness.server import JupyterServer
from .panel import axe_violations, layout_problems, send, set_sidebar_width, show_room

BANNER = ".jp-CopilotRoom-unavailable"


@pytest.fixture
def lab(tmp_path, model, request):
    """A `jupyter lab` whose Copilot runtime is not installed (an empty runtime directory)."""
    model.script = no_script
    model.requests.clear()
    runtime_dir = tmp_path / "runtime"
    server = JupyterServer(
        tmp_path,
        app="lab",
        room=config.copilot_agent(model.base_url),
        env={"JUPYTER_COPILOT_ROOM_RUNTIME_DIR": str(runtime_dir)},
    )
    server.runtime_dir = runtime_dir

    def start():
        server.launch()
        server.wait_until(
            lambda: server.api("alice", "GET", "room")[1]["agent"].get("state") == "unavailable",
            90,
            "unavailable agent",
        )

    with serving(server, request, start):
        yield server


def test_no_runtime_says_what_to_do_and_a_host_brings_the_agent_back(
    lab, open_lab, model, screenshot
):
    alice, bob = show_room(open_lab("alice")), show_room(open_lab("bob"))
    banner = alice.locator(BANNER)
    expect(banner).to_be_visible()
    # What to do comes first; that prompts wait, next; the exact error is collapsed.
    paragraphs = banner.locator("p")
    expect(paragraphs.nth(0)).to_contain_text("The Copilot runtime is not installed")
    expect(paragraphs.nth(0).locator("code")).to_have_text("jupyter copilot-room install-runtime")
    expect(paragraphs.nth(1)).to_contain_text("wait in the queue until the agent is back")
    details = banner.locator("details")
    expect(details.locator("pre")).to_be_hidden()
    expect(alice.get_by_role("button", name="Try again")).to_be_visible()
    expect(bob.locator(BANNER)).to_contain_text("a host can try again")
    expect(bob.get_by_role("button", name="Try again")).to_have_count(0)

    send(bob, "are you there?")  # accepted, waiting for the agent
    expect(bob.locator(".jp-CopilotRoom-queue")).to_contain_text("are you there?")

    screenshot(alice.locator("#jp-copilot-room"), "details-collapsed")
    details.locator("summary").click()
    expect(details.locator("pre")).to_contain_text(str(lab.runtime_dir / RUNTIME_VERSION))
    for theme in (LIGHT, DARK):
        set_theme(alice, theme)
        for width in (250, 500):
            set_sidebar_width(alice, width)
            assert layout_problems(alice, BANNER) == []
            assert axe_violations(alice, BANNER) == []
            wide = banner.evaluate("el => el.scrollWidth - el.clientWidth")
            assert wide <= 1, f"the banner scrolls sideways by {wide} px at {width} px"
            screenshot(alice.locator("#jp-copilot-room"), f"{width}px-{theme.split()[-1]}")
    set_theme(alice, LIGHT)

    # install-runtime puts the runtime in place; the host's retry finds it, no restart.
    (lab.runtime_dir / RUNTIME_VERSION).mkdir(parents=True)
    (lab.runtime_dir / RUNTIME_VERSION / "node_modules").symlink_to(cache_dir() / "node_modules")
    alice.get_by_role("button", name="Try again").click()
    for page in (alice, bob):
        expect(page.locator(BANNER)).to_have_count(0, timeout=90_000)
    expect(bob.locator(".jp-CopilotRoom-reply").first).to_be_visible(timeout=30_000)
    assert any(r.prompt == "[bob]: are you there?" for r in model.requests)
    assert "Traceback" not in lab.log.read_text()
