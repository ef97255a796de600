"""`jupyter copilot-room install-runtime` without Node or npm (issue 30): the pinned runtime from
the npm registry over HTTPS with Python, checked against its pinned integrity; a tarball that
does not match, an unreachable registry and a missing file each get one clear error and leave
nothing installed. The first test downloads the real package from the real registry."""

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from jupyter_copilot_room.agent.runtime import RUNTIME_VERSION, npm_package
from jupyter_copilot_room.agent.runtime_download import RUNTIME_INTEGRITY

BIN = Path(sys.executable).parent  # the environment's scripts: python, jupyter, no node or npm


def install_runtime(tmp_path, *args, registry=None):
    """The command as a person runs it, with only the environment's scripts on PATH."""
    env = {
        "PATH": str(BIN),
        "HOME": str(tmp_path / "home"),
        "JUPYTER_COPILOT_ROOM_RUNTIME_DIR": str(tmp_path / "runtime"),
        **({"npm_config_registry": registry} if registry else {}),
        **{k: v for k, v in os.environ.items() if k in ("SSL_CERT_FILE", "HTTPS_PROXY")},
    }
    return subprocess.run(
        [str(BIN / "jupyter"), "copilot-room", "install-runtime", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def binary(tmp_path) -> Path:
    name = "copilot.exe" if sys.platform == "win32" else "copilot"
    return tmp_path / "runtime" / RUNTIME_VERSION / "node_modules" / npm_package() / name


def test_the_runtime_installs_with_no_node_or_npm_on_path(tmp_path):
    assert [shutil.which(tool, path=str(BIN)) for tool in ("npm", "node")] == [None, None]
    done = install_runtime(tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"Copilot runtime {RUNTIME_VERSION} installed: {binary(tmp_path)}" in done.stdout
    ran = subprocess.run([binary(tmp_path), "--version"], capture_output=True, text=True)
    assert f"GitHub Copilot CLI {RUNTIME_VERSION}" in ran.stdout
    assert oct(binary(tmp_path).parent.stat().st_mode & 0o777) == "0o755", "others may run it"
    checked = install_runtime(tmp_path, "--check")
    assert checked.returncode == 0 and str(binary(tmp_path)) in checked.stdout


def fake_tarball() -> bytes:
    """A package that looks like the runtime's, but is not its bytes."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in (("package/copilot", b"#!/bin/sh\necho pwned\n"), ("package/x", b"")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.fixture
def registry():
    """A registry on 127.0.0.1 whose metadata `said` an integrity and whose tarball is fake."""
    served = {"integrity": RUNTIME_INTEGRITY[npm_package()]}

    class Registry(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.endswith(".tgz"):
                body, kind = fake_tarball(), "application/octet-stream"
            else:
                tarball = f"http://127.0.0.1:{server.server_port}/runtime.tgz"
                dist = {"tarball": tarball, "integrity": served["integrity"]}
                body, kind = json.dumps({"dist": dist}).encode(), "application/json"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Registry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    served["url"] = f"http://127.0.0.1:{server.server_port}/"
    yield served
    server.shutdown()


def refused(done, *words) -> None:
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def test_a_tarball_that_is_not_the_pinned_one_is_refused_and_nothing_installed(tmp_path, registry):
    refused(install_runtime(tmp_path, registry=registry["url"]), "integrity check failed")
    assert not binary(tmp_path).exists()
    registry["integrity"] = "sha512-" + "A" * 86 + "=="  # the registry itself says another one
    refused(install_runtime(tmp_path, registry=registry["url"]), "another integrity")
    assert not binary(tmp_path).exists()


def test_an_air_gapped_install_from_a_tarball_is_checked_the_same_way(tmp_path):
    tarball = tmp_path / "copilot.tgz"
    tarball.write_bytes(fake_tarball())
    refused(install_runtime(tmp_path, f"--from={tarball}"), "integrity check failed")
    refused(install_runtime(tmp_path, f"--from={tmp_path / 'none.tgz'}"), "cannot be read")
    assert not binary(tmp_path).exists()
    assert gzip.decompress(tarball.read_bytes())  # a real gzip: refused for its bytes, not form


def test_an_unreachable_registry_says_so_in_one_clear_error(tmp_path):
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as closed:
        port = closed.server_port  # bound, then closed: nothing listens there
    refused(install_runtime(tmp_path, registry=f"http://127.0.0.1:{port}/"), "cannot be reached")
    refused(install_runtime(tmp_path, "--check"), "not installed")
