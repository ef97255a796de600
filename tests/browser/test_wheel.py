"""Installed like any Jupyter extension (issue 30): `python -m build` makes the sdist and, from
it, the wheel, which holds the prebuilt panel and the server extension's enabling config. The
wheel goes into a fresh virtual environment whose PATH has no node, npm or jlpm; there the
server and the panel are listed enabled and OK, and a `jupyter lab` serves the room panel to a
real browser. The same wheel comes from the checkout directly, and the sdist holds every file
the checkout tracks but CI's and Binder's."""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ..harness.pages import new_page, wait_for_lab
from ..harness.server import REPO, ServerProcess, free_port
from .panel import show_room

TOKEN = "wheel-test-token"


def build(out: Path, *only: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "build", *only, "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def contents(wheel: Path) -> dict[str, str]:
    """Each file of a wheel and its sha256, but the RECORD (which lists those hashes)."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name: hashlib.sha256(archive.read(name)).hexdigest()
            for name in archive.namelist()
            if not name.endswith("/RECORD")
        }


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> tuple[Path, Path]:
    """The sdist and the wheel `python -m build` makes from it."""
    out = build(tmp_path_factory.mktemp("dist"))
    [sdist] = out.glob("*.tar.gz")
    [wheel] = out.glob("*.whl")
    return sdist, wheel


# What the checkout tracks for CI and Binder alone, and git's and the image's own files.
NOT_PACKAGED = (".ci/", "binder/", ".gitignore", ".dockerignore", ".pre-commit-config.yaml")


def test_the_sdist_holds_every_file_the_checkout_tracks(dist):
    """check-manifest's rule: a file git tracks and the sdist lacks is a build from the sdist
    that differs from the checkout (tests reading docs/ or examples/, a README link)."""
    sdist, _ = dist
    with tarfile.open(sdist) as archive:
        packaged = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    missing = [f for f in tracked if f not in packaged and not f.startswith(NOT_PACKAGED)]
    assert missing == [], f"tracked but not in the sdist: {missing}"


def test_the_wheel_installs_without_node_and_serves_the_room_panel(
    dist, tmp_path, browser, screenshot
):
    sdist, wheel = dist
    [direct] = build(tmp_path / "direct", "--wheel").glob("*.whl")
    assert contents(direct) == contents(wheel), "the sdist builds the same wheel"
    names = set(contents(wheel))
    data = f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.data/data"
    assert f"{data}/share/jupyter/labextensions/jupyter-copilot-room/install.json" in names
    assert f"{data}/share/jupyter/labextensions/jupyter-copilot-room/package.json" in names
    assert f"{data}/etc/jupyter/jupyter_server_config.d/jupyter_copilot_room.json" in names
    with tarfile.open(sdist) as archive:
        assert any(n.endswith("/labextension/static/style.js") for n in archive.getnames())
        assert any(n.endswith("/LICENSE") for n in archive.getnames())
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(archive.read(n) for n in names if n.endswith(".dist-info/METADATA"))
    assert b"Classifier: Framework :: Jupyter :: JupyterLab :: Extensions :: Prebuilt" in metadata
    assert b"Description-Content-Type: text/markdown" in metadata

    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True, timeout=120)
    scripts = env_dir / "bin"
    start = time.monotonic()
    installed = subprocess.run(
        # --no-compile: a quarter less of the suite's time; Python compiles what it imports.
        [str(scripts / "pip"), "install", "--quiet", "--no-compile", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    print(f"\nthe wheel installed in {time.monotonic() - start:.1f} s")
    assert [shutil.which(tool, path=str(scripts)) for tool in ("node", "npm")] == [None, None]
    home = tmp_path / "home"
    env = {
        "PATH": str(scripts),  # no node, npm or jlpm: nothing of the panel is built here
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_COPILOT_ROOM_RUNTIME_DIR": os.environ.get("JUPYTER_COPILOT_ROOM_RUNTIME_DIR", ""),
    }

    def jupyter(*args: str) -> str:
        done = subprocess.run(
            [str(scripts / "jupyter"), *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # no colours

    server_list = jupyter("server", "extension", "list")
    assert "jupyter_copilot_room enabled" in server_list, server_list
    assert re.search(r"jupyter_copilot_room \S+ OK", server_list), server_list
    lab_list = jupyter("labextension", "list")
    assert re.search(r"jupyter-copilot-room v\S+ enabled OK", lab_list), lab_list

    root = tmp_path / "root"
    root.mkdir()
    port = free_port()
    lab = ServerProcess(tmp_path, "wheel-lab")
    argv = [str(scripts / "jupyter"), "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1"]
    argv += [f"--port={port}", f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={root}"]
    argv += ["--LabApp.news_url=None", "--LabApp.expose_app_in_browser=True"]
    lab.spawn(argv, env, cwd=root)
    page = None
    try:
        url = f"http://127.0.0.1:{port}"
        lab.wait_until(lambda: _answers(f"{url}/api/status?token={TOKEN}"), 90, "the server")
        page = new_page(browser, "host")
        page.goto(f"{url}/lab?token={TOKEN}")
        wait_for_lab(page)
        show_room(page)
        expect(page.locator("#jp-copilot-room")).to_be_visible()
        screenshot(page, "from-the-wheel")
    finally:
        if page is not None:
            page.context.close()
        lab.stop()


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False
