"""How the person who started the server learns the host-claim secret.

The claim link is printed the way jupyter_server prints its own URLs (every address it lists,
with the base URL and its `token` parameter as it shows it), after them, so the link that works
is the one for the address already open in the browser: cookies are per host, and a claim made
from `localhost` while the room is open on `127.0.0.1` would make a second, anonymous person the
host. The log shows only the secret's ends (logs are kept and shared); the whole secret and links
are in a page in Jupyter's runtime directory that only the server's user can read, as
jupyter_server's own `jpserver-<pid>-open.html`.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlparse

from jupyter_server.utils import url_path_join

if TYPE_CHECKING:
    from jupyter_server.serverapp import ServerApp

CLAIM_PATH = "copilot-room/claim"


def masked(secret: str) -> str:
    """The secret with its middle hidden: enough to tell two secrets apart, not to use one."""
    return f"{secret[:4]}…{secret[-4:]}"


def claim_urls(serverapp: ServerApp, secret: str) -> list[str]:
    """The claim link at each address jupyter_server lists for itself (`connect_url`)."""
    urls = []
    for line in serverapp.connect_url.splitlines():
        listed = line.strip()
        if "://" not in listed:
            continue  # the hint jupyter_server adds when it listens on every interface
        parts = urlparse(listed)
        # The secret is URL-safe, the token as jupyter_server shows it (`...` when configured).
        token = [f"&token={v}" for k, v in parse_qsl(parts.query) if k == "token"]
        path = url_path_join(serverapp.base_url, CLAIM_PATH)
        urls.append(parts._replace(path=path, query=f"secret={secret}{''.join(token)}").geturl())
    return urls


def claim_page_path(serverapp: ServerApp) -> Path:
    return Path(serverapp.runtime_dir) / f"copilot-room-{os.getpid()}-claim.html"


def write_claim_page(path: Path, secret: str, urls: list[str]) -> None:
    """A page only the server's user can read: the secret to paste in the room panel's door, and
    the links."""
    links = "\n".join(f'<li><a href="{html.escape(u)}">{html.escape(u)}</a></li>' for u in urls)
    page = (
        "<!doctype html><meta charset='utf-8'><title>Copilot room: become its host</title>\n"
        "<h1>Become the Copilot room's host</h1>\n"
        "<p>In the JupyterLab tab you already have open, open the Copilot room, choose "
        "<b>I started this server</b> and paste this secret:</p>\n"
        f"<p><code style='font-size:1.3em;user-select:all'>{html.escape(secret)}</code></p>\n"
        "<p>Or open the link for the address that tab shows (it works once):</p>\n"
        f"<ul>\n{links}\n</ul>\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(page)


def announcement(serverapp: ServerApp, secret: str, page: Path) -> str:
    """The log's lines: what to do, the page with the whole secret, the links it holds."""
    shown = "\n".join(f"    {url}" for url in claim_urls(serverapp, masked(secret)))
    return (
        "The Copilot room has no host yet. If you started this server, become its host: in the "
        "room panel of the JupyterLab tab you have open, choose 'I started this server' and paste "
        f"the secret from\n    {page.as_uri()}\n"
        "(readable only by you; it also holds the one-time links, shown here without the "
        f"middle of the secret):\n{shown}"
    )
