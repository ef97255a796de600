"""The oldest versions the room supports (issue 30), in a real browser: pyproject.toml's lower
bounds (`tests/oldest-versions.txt`, pip's constraints) in a virtual environment of their own, the
room installed there from this checkout, and demo mode's notebook edit made live in the open
notebook through jupyter-collaboration's shared document, then saved. `test_demo.py` walks the
same path on the newest versions, which the rest of the suite runs on."""

import json
import shutil
import subprocess
import sys
import time

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.copilot import CopilotAgent

from ..harness.browser_fixtures import serving
from ..harness.server import REPO, JupyterServer
from .panel import open_document, send, show_room

CONSTRAINTS = REPO / "tests" / "oldest-versions.txt"
EXAMPLE = REPO / "examples" / "pairing-repo"


def pinned() -> dict[str, str]:
    """The constraints file's `name==version` lines."""
    lines = (line.split("#")[0].strip() for line in CONSTRAINTS.read_text().splitlines())
    return dict(line.split("==") for line in lines if line)


@pytest.fixture(scope="module")
def oldest_python(tmp_path_factory):
    """The python of a fresh virtual environment with the room and the oldest versions."""
    folder = tmp_path_factory.mktemp("oldest-env")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet", "--no-compile"]
    installed = subprocess.run(
        [*pip, "--constraint", str(CONSTRAINTS), str(REPO)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    names = json.dumps(list(pinned()))
    versions = subprocess.run(
        [
            str(python),
            "-c",
            f"import importlib.metadata as m, json; "
            f"print(json.dumps({{n: m.version(n) for n in {names}}}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(versions.stdout) == pinned(), "pip installed other versions than pinned"
    return python


@pytest.fixture
def lab(tmp_path, oldest_python, request):
    """`jupyter lab` of the oldest versions, in demo mode, in a copy of the example."""
    server = JupyterServer(
        tmp_path, app="lab", room={"agent_class": CopilotAgent}, python=oldest_python
    )
    shutil.copytree(EXAMPLE, server.root, dirs_exist_ok=True)
    server.env.update({v: "" for v in ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")})
    with serving(server, request, server.start):
        yield server


def test_the_demo_edits_the_open_notebook_on_the_oldest_supported_versions(
    lab, open_lab, screenshot
):
    alice = show_room(open_lab("alice"))
    expect(alice.locator(".jp-CopilotRoom-agent")).to_have_text("demo model")
    open_document(alice, "analysis.ipynb")
    cells = alice.locator(".jp-Notebook .jp-Cell")
    expect(cells).to_have_count(2, timeout=30_000)

    send(alice, "edit the notebook")
    card = alice.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("analysis.ipynb", timeout=30_000)
    card.get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(3, timeout=30_000)
    expect(cells.nth(2)).to_contain_text("median([1, 2, 3, 4])")
    expect(cells.nth(2).locator(".jp-CopilotRoom-provenance")).to_have_text("Copilot · Alice")
    expect(card).to_contain_text("An even number of values", timeout=30_000)
    card.get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(4, timeout=30_000)
    expect(cells.nth(2)).to_contain_text("An even number of values")
    expect(alice.locator(".jp-CopilotRoom-reply").last).to_contain_text("Done", timeout=30_000)
    screenshot(alice, "oldest-versions")

    deadline = time.monotonic() + 30
    while len(sources := _cells_on_disk(lab.root / "analysis.ipynb")) < 4:
        assert time.monotonic() < deadline, f"the edits were not saved: {sources}"
        time.sleep(0.5)
    assert "An even number of values" in sources[2]
    assert "median([1, 2, 3, 4])" in sources[3]


def _cells_on_disk(path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells]
