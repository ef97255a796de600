"""Demo mode as a newcomer meets it: `jupyter lab` in a clone of `examples/pairing-repo`, no
login, the notebook open; opening it leaves the clone clean, and asking the demo model to edit the
notebook shows the agent in it (its cursor, the provenance badges) beside the room's card.

The whole-window screenshot of that moment is README's picture: with `UPDATE_DOCS_SCREENSHOT=1`
this test also copies it to `docs/images/room.png`.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.copilot import CopilotAgent

from ..harness.browser_fixtures import serving
from ..harness.pages import DARK, LIGHT, set_theme
from ..harness.server import REPO, JupyterServer
from .panel import fits_at_every_look, open_document, send, set_sidebar_width, show_room

EXAMPLE = REPO / "examples" / "pairing-repo"
README_PICTURE = REPO / "docs" / "images" / "room.png"
GIT = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.org",
}


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, env={**os.environ, **GIT}, check=True, capture_output=True
    ).stdout.decode()


def save(page, path: str) -> str:
    """Save the open document `path` through the collaboration layer; "saved" once it is on
    disk (JupyterLab asks first if the file changed on disk: that gives up after 30 s)."""
    return page.evaluate(
        """path => Promise.race([
          window.jupyterapp.shell.widgets('main').find(w => w.context?.path === path)
            .context.save().then(() => 'saved'),
          new Promise(resolve => setTimeout(() => resolve('no answer in 30 s'), 30000)),
        ])""",
        path,
    )


@pytest.fixture
def lab(tmp_path, model, request):
    """`jupyter lab` in demo mode (no login, no provider) in a git clone of the example."""
    server = JupyterServer(tmp_path, app="lab", room={"agent_class": CopilotAgent})
    shutil.copytree(EXAMPLE, server.root, dirs_exist_ok=True)
    git(server.root, "init", "-q")
    git(server.root, "add", "-A")
    git(server.root, "commit", "-q", "-m", "the example")
    env = {v: "" for v in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")}
    server.env.update(env)
    with serving(server, request, server.start):
        yield server


def test_the_demo_edits_the_open_notebook_and_opening_it_leaves_the_clone_clean(
    lab, open_lab, screenshot
):
    alice = show_room(open_lab("alice", viewport=(1280, 800)))
    expect(alice.locator(".jp-CopilotRoom-agent")).to_have_text("demo model")
    open_document(alice, "analysis.ipynb")
    cells = alice.locator(".jp-Notebook .jp-Cell")
    expect(cells).to_have_count(2, timeout=30_000)
    expect(alice.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=60_000
    )
    # Saved now, the notebook is written as the collaboration layer's own save (a second after
    # any change) would write it: the document whole, as opening the notebook left it.
    assert save(alice, "analysis.ipynb") == "saved"
    assert git(lab.root, "status", "--porcelain", "--ignored=no") == "", git(lab.root, "diff")

    set_sidebar_width(alice, 420)
    alice.get_by_role("button", name="Not now").click()  # the sign-in card folds to its button
    send(alice, "edit the notebook")
    card = alice.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("analysis.ipynb", timeout=30_000)
    card.get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(3, timeout=30_000)
    expect(cells.nth(2)).to_contain_text("median([1, 2, 3, 4])")
    # While the note waits for approval, the agent is in the notebook, its cursor on its cell.
    expect(card).to_contain_text("An even number of values", timeout=30_000)
    expect(alice.locator(".jp-Notebook .jp-remote-cursor")).to_have_count(1, timeout=15_000)
    expect(cells.nth(2).locator(".jp-CopilotRoom-provenance")).to_have_text("Copilot · Alice")
    alice.mouse.move(0, 0)
    picture = screenshot(alice, "window")
    if os.environ.get("UPDATE_DOCS_SCREENSHOT"):
        shutil.copy(picture, README_PICTURE)
    for theme in (LIGHT, DARK):
        set_theme(alice, theme)
        for width in (250, 500):
            set_sidebar_width(alice, width)
            screenshot(alice, f"{width}px-{theme.split()[-1]}")
    set_theme(alice, LIGHT)
    card.get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(4, timeout=30_000)
    expect(cells.nth(2)).to_contain_text("An even number of values")
    for added in (2, 3):
        badge = cells.nth(added).locator(".jp-CopilotRoom-provenance")
        expect(badge).to_have_text("Copilot · Alice")
    expect(alice.locator(".jp-CopilotRoom-reply").last).to_contain_text("Done", timeout=30_000)

    # "run the notebook": the execute card shows the code and the kernel; once approved the
    # output appears in everyone's notebook and the header shows the kernel's state.
    send(alice, "run the notebook")
    card = alice.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("run 1 cell of analysis.ipynb", timeout=30_000)
    expect(card.locator("pre.jp-CopilotRoom-result")).to_contain_text("median(times)")
    expect(card).to_contain_text("running python3 kernel")
    assert fits_at_every_look(alice, screenshot, "execute-", ".jp-CopilotRoom-approval") == []
    card.get_by_role("button", name="Approve").click()
    expect(cells.nth(1).locator(".jp-OutputArea-output")).to_contain_text(
        "(156.5, ", timeout=30_000
    )
    expect(cells.nth(1).locator(".jp-InputPrompt")).to_contain_text("[1]")
    expect(alice.locator(".jp-CopilotRoom-kernel")).to_have_text("Kernel: idle", timeout=10_000)
    expect(alice.locator(".jp-CopilotRoom-reply").last).to_contain_text("156.5", timeout=30_000)
