"""A fake GitHub on 127.0.0.1 for sign-ins that run to their end: https with a certificate made
here, trusted by whoever gets its file as SSL_CERT_FILE (the Copilot runtime), answering the two
calls the runtime makes to finish a login. An enterprise host (`c.CopilotRoom.github_host`)
pointed at it takes the runtime's own flow there."""

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .certificates import self_signed

TOKEN = "fake-github-login-7b3d91"  # what the fake GitHub hands the runtime for it (no real token)

#: Whose login it is, and its quota as GitHub says it (`copilot_internal/user`).
USER = {
    "login": "octo-host",
    "chat_enabled": True,
    "quota_reset_date_utc": "2027-01-01T00:00:00.000Z",
    "quota_snapshots": {
        "premium_interactions": {
            "quota_id": "premium_interactions",
            "entitlement": 300,
            "remaining": 120,
            "quota_remaining": 120.0,
            "percent_remaining": 40.0,
            "unlimited": False,
            "overage_count": 0,
            "overage_permitted": False,
            "timestamp_utc": "2026-12-01T09:00:00.000Z",
        },
    },
}


class FakeGitHub(BaseHTTPRequestHandler):
    """The two calls the runtime makes to finish a login: the code for a token, then whose."""

    calls: list[str]

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.calls.append(f"POST {self.path}")
        self.answer({"access_token": TOKEN, "token_type": "bearer", "scope": "read:user"})

    def do_GET(self):
        self.calls.append(f"GET {self.path}")
        if self.path.startswith("/copilot_internal/user"):
            self.answer(USER)
        else:
            self.send_error(404)

    def answer(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def fake_github(directory: Path) -> Iterator[tuple[str, Path]]:
    """`127.0.0.1:<port>` of an https GitHub, and its self-signed certificate's file (in
    `directory`) for the runtime to trust."""
    cert_file, context = self_signed(directory, "github")
    FakeGitHub.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeGitHub)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", cert_file
    finally:
        server.shutdown()
        server.server_close()
