"""The browser harness itself: two people in one lab, each known by their login cookie."""

import time

from ..harness.pages import DARK, page_api, set_theme

WS_OPENS = """async () => {
    const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
    const url = new URL(`${config.baseUrl || '/'}copilot-room/ws`, location.href);
    url.protocol = url.protocol.replace('http', 'ws');
    if (config.token) url.searchParams.set('token', config.token);  // as JupyterLab does
    return await new Promise(resolve => {
        const ws = new WebSocket(url);
        ws.binaryType = 'arraybuffer';
        ws.onmessage = event => {
            ws.close();
            resolve({opened: true, bytes: event.data.byteLength});
        };
        ws.onclose = event => resolve({opened: false, code: event.code, reason: event.reason});
        setTimeout(() => resolve({opened: false, timeout: true}), 10000);
    });
}"""


def test_two_people_in_one_lab_are_known_by_their_cookies(lab, model, open_lab, screenshot):
    began = time.monotonic()
    alice, bob = open_lab("alice"), open_lab("bob")
    opened = time.monotonic() - began

    for page, role in ((alice, "host"), (bob, "member")):
        assert page.locator(".jp-LabShell").is_visible()
        # The page's own fetch, cookie only: JupyterLab's server token names nobody.
        room = page_api(page, "GET", "room")
        assert room["status"] == 200, room
        assert room["json"]["me"]["username"] == page.user
        assert room["json"]["me"]["role"] == role
        assert room["json"]["agent"]["state"] == "idle"
        # ...and the live document's websocket, as JupyterLab would open it.
        ws = page.evaluate(WS_OPENS)
        assert ws["opened"] and ws["bytes"] > 0, ws

    # A cookie-authenticated POST passes the XSRF check with JupyterLab's header, not without it.
    refused = page_api(bob, "POST", "prompts", {"text": "no xsrf", "target": None}, xsrf=False)
    assert refused["status"] == 403, refused
    accepted = page_api(bob, "POST", "prompts", {"text": "hello from bob", "target": None})
    assert accepted["status"] == 202, accepted
    assert lab.api("alice", "GET", "room")[1]["me"]["role"] == "host"

    screenshot(alice, "light")
    set_theme(alice, DARK)
    assert alice.evaluate("() => document.body.dataset.jpThemeLight") == "false"
    screenshot(alice, "dark")

    assert not [p for page in (alice, bob) for p in page.problems if "copilot" in p.lower()]
    print(f"lab ready in {lab.startup_seconds:.1f} s; two pages open in {opened:.1f} s")
