"""One version (issue 54): the panel's `labextension/package.json` is its one source (the
package's `__version__`, pyproject.toml's `[tool.hatch.version]`); CHANGELOG.md's newest heading
and every place the docs and examples name the package's version agree with it, and no page
states a version of its own ("What runs today (0.4)" did, while the package said 0.1.0)."""

import json
import re
from pathlib import Path

import yaml

import jupyter_copilot_room

ROOT = Path(__file__).parents[1]
VERSION = json.loads((ROOT / "labextension" / "package.json").read_text())["version"]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_the_package_says_the_version_of_package_json():
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert jupyter_copilot_room.__version__ == VERSION


def test_the_changelogs_newest_heading_is_the_version():
    headings = re.findall(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings[0] == VERSION


def test_the_kubernetes_example_runs_the_images_of_this_version():
    values = yaml.safe_load((ROOT / "examples" / "kubernetes" / "config.yaml").read_text())
    assert values["singleuser"]["image"]["tag"] == VERSION


def test_the_docs_state_no_version_of_their_own():
    """The package's version appears in no page but through package.json: an image tag or a
    wheel's name is built from it, and no feature list says which version it describes."""
    stated = re.compile(
        r"copilot-room-singleuser:(\d[\w.]*)|jupyter_copilot_room-(\d[\w.]*)-py3"
        r"|(?:runs|works|supports?) today \((\d[\w.]*)\)"
    )
    found = {
        f"{page.name}: {match.group(0)}"
        for page in PAGES
        for match in stated.finditer(page.read_text(encoding="utf-8"))
    }
    assert found == set()
