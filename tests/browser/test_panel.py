"""The room panel in a real JupyterLab, used by several people at once."""

import base64
import contextlib
import re
import struct
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import nbformat
import pytest
from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import Reply, ToolCall

from ..harness.pages import DARK, LIGHT, set_theme
from .panel import (
    PROMPT,
    QUESTION_AND_COMMAND,
    assert_first_reply_grows,
    close_connection_lost_dialogs,
    layout_problems,
    replies,
    send,
    set_sidebar_width,
    show_room,
)


def open_room(open_lab, user, **kwargs):
    return show_room(open_lab(user, **kwargs))


def echo(request):
    return Reply(f"Answer to {request.prompt}: " + "streamed words " * 30, chunk_size=6, delay=0.03)


@pytest.mark.shared_lab
def test_host_and_member_share_one_live_room(lab, model, open_lab, screenshot):
    model.script = echo
    alice, bob = open_room(open_lab, "alice"), open_room(open_lab, "bob")
    send(alice, "first from alice")
    send(bob, "then bob")
    expect(bob.locator(".jp-CopilotRoom-notice")).to_contain_text("queued: 1 ahead")
    queue = bob.locator(".jp-CopilotRoom-queueItem")
    expect(queue).to_have_count(2)
    expect(queue.nth(1)).to_contain_text("waiting")
    expect(queue.nth(1).get_by_role("button", name="Withdraw Bob's prompt")).to_be_visible()
    expect(alice.get_by_role("button", name="Abort the running turn")).to_be_visible()
    expect(bob.get_by_role("button", name="Abort the running turn")).to_have_count(0)

    # Streaming: bob sees alice's reply grow before it is complete.
    assert_first_reply_grows(bob)
    screenshot(bob, "streaming")
    expect(replies(alice)).to_have_count(2, timeout=30_000)
    expect(replies(bob).nth(1)).to_contain_text("Answer to [bob]: then bob", timeout=30_000)
    for page in (alice, bob):
        expect(page.locator(".jp-CopilotRoom-queueItem")).to_have_count(0, timeout=30_000)
    # Text, not innerText: entries scrolled off screen are not laid out (content-visibility).
    # The same words; where a streamed reply's blocks put a space depends on when a page drew it.
    # Each page draws the last delta when it arrives: they agree within a moment, not at once.
    deadline = time.monotonic() + 10
    while True:
        logs = [(p.locator('[role="log"]').text_content() or "").split() for p in (alice, bob)]
        if logs[0] == logs[1] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert logs[0] == logs[1]
    order = alice.locator(".jp-CopilotRoom-promptText").all_text_contents()
    assert order == ["first from alice", "then bob"]
    screenshot(alice, "light")
    set_theme(alice, DARK)
    alice.evaluate("() => window.jupyterapp.commands.execute('copilot-room:open')")
    expect(alice.locator(".jp-CopilotRoom-room")).to_be_visible()
    screenshot(alice, "dark")


@pytest.mark.shared_lab
def test_only_the_author_and_hosts_answer_an_approval(lab, model, open_lab, screenshot):
    def script(request):
        if request.tool_results:
            return Reply("Done: " + request.tool_results[-1])
        return Reply(
            "I need to run a command.",
            tool_calls=(
                ToolCall(
                    "bash",
                    {"command": "echo from-the-browser > approved.txt", "description": "write"},
                ),
            ),
        )

    model.script = script
    alice, bob = open_room(open_lab, "alice"), open_room(open_lab, "bob")
    send(bob, "please write the file")
    for page in (alice, bob):
        card = page.locator(".jp-CopilotRoom-approval")
        expect(card).to_be_visible(timeout=30_000)
        expect(card).to_contain_text("echo from-the-browser > approved.txt")
    carol = open_room(open_lab, "carol")
    card = carol.locator(".jp-CopilotRoom-approval")
    expect(card).to_contain_text("waiting on Bob or a host")
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    expect(
        alice.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Approve")
    ).to_be_visible()
    screenshot(carol, "viewer-waits")
    host_card = alice.locator(".jp-CopilotRoom-approval")
    expect(host_card.get_by_role("button", name="Reject")).to_be_visible()
    screenshot(alice.locator("#jp-copilot-room"), "host-panel")
    bob.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Approve").click()
    expect(alice.locator(".jp-CopilotRoom-approval")).to_have_count(0, timeout=30_000)
    tool = alice.locator(".jp-CopilotRoom-tool")
    expect(tool).to_contain_text("echo from-the-browser")
    expect(tool).to_have_attribute("data-state", "success", timeout=30_000)
    expect(alice.locator(".jp-CopilotRoom-request")).to_contain_text("approved by Bob")
    assert (lab.root / "approved.txt").read_text() == "from-the-browser\n"


def test_a_viewer_cannot_prompt(lab, open_lab, screenshot):
    carol = open_lab("carol")
    expect(carol.locator(".jp-CopilotRoom-room")).to_be_hidden()
    carol.locator("body").press("Control+Shift+Y")  # the "open the room" shortcut
    expect(carol.locator(".jp-CopilotRoom-room")).to_be_visible()
    box = carol.locator('textarea[aria-label="Prompt (disabled)"]')
    expect(box).to_be_disabled()
    expect(carol.locator(".jp-CopilotRoom-reason")).to_contain_text("Viewers watch the room")
    screenshot(carol, "viewer")


@pytest.mark.shared_lab
def test_a_pending_person_waits_until_a_host_admits_them(lab, open_lab, screenshot):
    dave = open_room(open_lab, "dave")
    expect(dave.locator(".jp-CopilotRoom-door")).to_contain_text("Waiting to join the room")
    screenshot(dave, "waiting")
    alice = open_room(open_lab, "alice")
    alice.locator(".jp-CopilotRoom-peopleBox > summary").click()
    card = alice.locator(".jp-CopilotRoom-admission")
    expect(card).to_contain_text("Dave asks to join")
    card.get_by_role("button", name="Admit as member").click()
    expect(dave.locator(PROMPT)).to_be_enabled(timeout=15_000)
    expect(alice.locator(".jp-CopilotRoom-admission")).to_have_count(0)


@pytest.mark.shared_lab
def test_a_tab_closed_at_the_door_takes_its_card_away_at_once(lab, open_lab):
    """Without the panel's word, the card would stay for the knock's 90 s."""
    alice = open_room(open_lab, "alice")
    erin = open_room(open_lab, "erin")
    expect(erin.locator(".jp-CopilotRoom-door")).to_contain_text("Waiting to join the room")
    alice.locator(".jp-CopilotRoom-peopleBox > summary").click()
    expect(alice.locator(".jp-CopilotRoom-admission")).to_contain_text("Erin asks to join")
    erin.close(run_before_unload=True)
    expect(alice.locator(".jp-CopilotRoom-admission")).to_have_count(0, timeout=10_000)


@pytest.mark.shared_lab
def test_reload_mid_stream_resumes_the_live_transcript(lab, model, open_lab):
    model.script = lambda request: Reply("slow words " * 80, chunk_size=5, delay=0.05)
    bob = open_room(open_lab, "bob")
    send(bob, "tell me slowly")
    expect(replies(bob)).to_have_count(1, timeout=30_000)
    bob.reload()
    bob.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.commands.hasCommand('copilot-room:open')"
    )
    bob.evaluate("() => window.jupyterapp.commands.execute('copilot-room:open')")
    reply = replies(bob).first
    expect(reply).to_have_attribute("data-state", "streaming", timeout=15_000)
    expect(reply).to_have_attribute("data-state", "done", timeout=30_000)
    # The text's textContent (innerText is empty for an entry scrolled off screen, not laid
    # out), awaited: a reply's last text shows up to 50 ms after it ended.
    expect(reply.locator(".jp-CopilotRoom-markdown")).to_have_text(
        re.compile(r"^\s*(slow words ?){80}\s*$")
    )


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.shared_lab
def test_pickers_target_a_skill_or_agent_and_local_commands_stay_private(
    lab, model, open_lab, screenshot
):
    write(
        lab.root / ".github/skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews a change\n---\nREVIEW-STEPS\n",
    )
    write(
        lab.root / ".github/skills/explain/SKILL.md",
        "---\nname: explain\ndescription: Explains code\n---\nEXPLAIN-STEPS\n",
    )
    write(
        lab.root / ".github/agents/tester.md",
        "---\nname: tester\ndescription: Writes tests\n---\nYou write tests.\n",
    )
    model.script = lambda request: Reply("ok")
    bob = open_room(open_lab, "bob")
    box = bob.locator(PROMPT)

    box.fill("/")
    picker = bob.get_by_role("listbox", name="Skills")
    expect(picker.get_by_role("option")).to_have_count(2)
    box.press_sequentially("exp")
    expect(picker.get_by_role("option")).to_have_count(1)
    screenshot(bob, "skill-picker")
    box.press("Enter")
    expect(bob.locator(".jp-CopilotRoom-target")).to_contain_text("/explain")
    box.fill("what does this do?")
    box.press("Enter")
    expect(bob.locator(".jp-CopilotRoom-prompt .jp-CopilotRoom-badge")).to_contain_text(
        "/explain", timeout=30_000
    )
    expect(replies(bob)).to_have_count(1, timeout=30_000)
    assert any("EXPLAIN-STEPS" in r.prompt for r in model.requests)

    box.fill("@")
    agents = bob.get_by_role("listbox", name="Custom agents")
    expect(agents.get_by_role("option")).to_have_text(["@tester Writes tests"])
    box.press("Escape")
    expect(agents).to_have_count(0)

    asked = len(model.requests)
    box.fill("/skills")
    box.press("Enter")
    notice = bob.locator(".jp-CopilotRoom-notice")
    expect(notice).to_contain_text("/review: Reviews a change")
    alice = open_room(open_lab, "alice")
    expect(alice.locator('[role="log"]')).not_to_contain_text("Reviews a change")
    assert len(model.requests) == asked, "/skills never reaches the agent"
    assert lab.api("alice", "GET", "room")[1]["queue"] == []


def test_panel_goes_offline_and_resyncs_after_a_server_restart(lab, model, open_lab, screenshot):
    model.script = lambda request: Reply("before the restart")
    bob = open_room(open_lab, "bob")
    send(bob, "hello")
    expect(replies(bob)).to_have_count(1, timeout=30_000)
    close_connection_lost_dialogs(bob)
    lab.stop()
    expect(bob.locator(".jp-CopilotRoom-offline")).to_be_visible(timeout=15_000)
    screenshot(bob, "offline")
    lab.start()
    expect(bob.locator(".jp-CopilotRoom-offline")).to_have_count(0, timeout=30_000)
    expect(replies(bob)).to_have_count(1)  # the rebuilt document replaces the old copy
    expect(bob.locator(".jp-CopilotRoom-promptText")).to_have_text(["hello"])
    model.script = lambda request: Reply("after the restart")
    send(bob, "again")
    expect(replies(bob).nth(1)).to_contain_text("after the restart", timeout=30_000)


@pytest.mark.shared_lab
def test_the_agent_edits_an_open_notebook_with_its_cursor_and_provenance_badges(
    lab, model, open_lab, screenshot
):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {  # no "Select Kernel" dialog in the way
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [
        nbformat.v4.new_code_cell("values = [1, 2]"),
        nbformat.v4.new_code_cell("total = 0"),
    ]
    nbformat.write(notebook, lab.root / "pair.ipynb")
    target = notebook.cells[1].id

    def script(request):
        if any("Inserted" in r for r in request.tool_results):
            return Reply("The notebook is tidy.")
        if request.tool_results:
            return Reply(
                tool_calls=(
                    ToolCall(
                        "notebook_insert_cell",
                        {
                            "path": "pair.ipynb",
                            "index": 2,
                            "cell_type": "code",
                            "source": "print(total)",
                        },
                    ),
                )
            )
        return Reply(
            tool_calls=(
                ToolCall(
                    "notebook_replace_cell",
                    {"path": "pair.ipynb", "cell_id": target, "source": "total = sum(values)"},
                ),
            )
        )

    model.script = script
    bob = open_room(open_lab, "bob")
    bob.evaluate(
        "async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        f"{lab.name}/pair.ipynb",
    )
    cells = bob.locator(".jp-Notebook .jp-Cell")
    expect(cells).to_have_count(2, timeout=30_000)
    send(bob, "fix the total")
    bob.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Approve").click()
    expect(cells.nth(1)).to_contain_text("total = sum(values)", timeout=30_000)
    # While the agent waits for its second approval it is in the notebook, cursor and all.
    expect(bob.locator(".jp-CopilotRoom-approval")).to_contain_text("insert a code cell")
    expect(bob.locator(".jp-Notebook .jp-remote-cursor")).to_have_count(1, timeout=15_000)
    badge = cells.nth(1).locator(".jp-CopilotRoom-provenance")
    expect(badge).to_have_text("Copilot · Bob")
    screenshot(bob, "agent-in-notebook")
    bob.locator(".jp-CopilotRoom-approval").get_by_role("button", name="Approve").click()
    expect(cells).to_have_count(3, timeout=30_000)
    expect(cells.nth(2).locator(".jp-CopilotRoom-provenance")).to_have_text("Copilot · Bob")
    expect(cells.nth(0).locator(".jp-CopilotRoom-provenance")).to_have_count(0)
    expect(bob.locator(".jp-Notebook .jp-remote-cursor")).to_have_count(0, timeout=15_000)
    badge.click()
    expect(bob.locator(".jp-CopilotRoom-prompt.jp-mod-flash")).to_contain_text("fix the total")


@pytest.mark.shared_lab
def test_a_refused_action_is_explained_to_the_person_who_pressed_it(
    lab, model, open_lab, screenshot
):
    model.script = lambda request: Reply("slow words " * 150, chunk_size=5, delay=0.05)
    alice, bob = open_room(open_lab, "alice"), open_room(open_lab, "bob")
    send(alice, "a long answer, please")
    send(bob, "then mine")
    queue = bob.locator(".jp-CopilotRoom-queue")
    withdraw = queue.get_by_role("button", name="Withdraw Bob's prompt")
    expect(withdraw).to_be_visible()

    def started_meanwhile(route):
        """Between bob's click and his request reaching the server, his prompt starts."""
        assert lab.api("alice", "POST", "abort")[0] == 200
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            waiting = lab.api("alice", "GET", "room")[1]["queue"]
            if waiting and (waiting[0]["author"], waiting[0]["state"]) == ("bob", "working"):
                break
            time.sleep(0.1)
        route.continue_()

    bob.route(f"**/copilot-room/api/rooms/{lab.name}/prompts/*", started_meanwhile)
    withdraw.click()
    bob.locator(".jp-Dialog").get_by_role("button", name="Withdraw").click()  # it asks first
    expect(queue.get_by_role("alert")).to_contain_text("only waiting prompts can be withdrawn")
    screenshot(bob.locator("#jp-copilot-room"), "withdraw-refused")

    # A host's button while the server cannot be reached: said next to it too.
    alice.locator(".jp-CopilotRoom-peopleBox > summary").click()
    alice.route(f"**/copilot-room/api/rooms/{lab.name}/participants/*", lambda route: route.abort())
    alice.get_by_role("button", name="Remove Bob from the room").click()
    alice.locator(".jp-Dialog").get_by_role("button", name="Remove").click()
    people = alice.locator(".jp-CopilotRoom-people")
    expect(people.get_by_role("alert")).to_contain_text("The server cannot be reached")


def asks_and_runs(request):
    """A question and a shell command at once: both cards wait at the same time."""
    if request.tool_results:
        return Reply("Done.")
    return Reply(tool_calls=QUESTION_AND_COMMAND)


CARD_BOXES = (
    ".jp-CopilotRoom-card, .jp-CopilotRoom-queueItem, .jp-CopilotRoom-personRow,"
    " .jp-CopilotRoom-header"
)


@pytest.mark.shared_lab
def test_cards_fit_the_sidebar_at_250_and_500_px_in_light_and_dark(
    lab, model, open_lab, screenshot
):
    model.script = asks_and_runs
    tall = {"viewport": (1280, 1200)}
    alice, carol = open_room(open_lab, "alice", **tall), open_room(open_lab, "carol", **tall)
    open_room(open_lab, "dave")  # at the door: alice gets an admission card
    send(open_room(open_lab, "bob"), "please write the file")
    for page in (alice, carol):
        expect(page.locator(".jp-CopilotRoom-approval")).to_be_visible(timeout=30_000)
        page.locator(".jp-CopilotRoom-peopleBox > summary").click()
    expect(alice.locator(".jp-CopilotRoom-admission")).to_be_visible()
    expect(carol.locator(".jp-CopilotRoom-approval")).to_contain_text("waiting on Bob or a host")
    # The status bar follows the room too, also for a viewer in a room where nothing else moves.
    status = carol.locator(".jp-CopilotRoom-statusItem")
    expect(status).to_have_text(f"Copilot · {lab.name}: waiting for approval")

    problems = []
    for theme, name in ((LIGHT, "light"), (DARK, "dark")):
        for page in (alice, carol):
            set_theme(page, theme)
            for width in (250, 500):
                set_sidebar_width(page, width)
                screenshot(page.locator("#jp-copilot-room"), f"{page.user}-{width}px-{name}")
                problems += [
                    f"{page.user}, {width} px, {name}: {problem}"
                    for problem in layout_problems(page, CARD_BOXES)
                ]
    assert not problems, "\n".join(problems)


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A plain one-colour PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@contextlib.contextmanager
def remote_server():
    """A server on 127.0.0.1 (another origin than the lab's): yields its base URL and the list of
    paths it was asked for; it answers every GET with a small image."""
    hits: list[str] = []
    image = png(48, 24, (230, 120, 20))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(image)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(image)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="remote-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.shared_lab
def test_a_reply_fetches_nothing_remote_until_a_person_clicks(lab, model, open_lab, screenshot):
    inline = "data:image/png;base64," + base64.b64encode(png(16, 16, (40, 90, 200))).decode()
    with remote_server() as (remote, hits):
        host = remote.removeprefix("http://")
        reply = (
            "Here is the chart:\n\n"
            f"![x]({remote}/leak?secret=1)\n\n"
            f'<img src="{remote}/raw?secret=2" alt="raw" srcset="{remote}/srcset 2x">\n\n'
            f'<form action="{remote}/form"><button>Reload the lab</button>'
            '<input value="typed"></form>\n\n'
            f'<p style="background-image: url({remote}/css?secret=3)">A styled line.</p>\n\n'
            f'<iframe src="{remote}/frame"></iframe>\n\n'
            f"An inline image stays: ![inline]({inline})\n\n"
            # JupyterLab draws a diagram in the live page before any sanitizer: left as source.
            f"```mermaid\ngraph TD\n  A[\"<img src='{remote}/diagram'>\"] --> B\n```\n"
        )
        model.script = lambda request: Reply(reply, chunk_size=40)
        alice, bob = open_room(open_lab, "alice"), open_room(open_lab, "bob")
        send(bob, "show me the chart")
        for page in (alice, bob):
            expect(replies(page).first).to_have_attribute("data-state", "done", timeout=30_000)
        # Both panels show the reply: whatever it could fetch by itself has been asked for by
        # now; give a late request the time to arrive all the same.
        alice.wait_for_timeout(1500)
        assert hits == [], f"the reply made a browser fetch {hits}"
        for page in (alice, bob):
            shown = replies(page).first
            # (the reply's own copy buttons aside)
            expect(shown.get_by_role("button", name=re.compile("^Load image"))).to_have_text(
                [f"Load image from {host}", f"Load image from {host}"]
            )
            expect(shown.locator("form, input, iframe, [srcset], [style*='url']")).to_have_count(0)
            expect(shown.get_by_role("button", name="Reload the lab")).to_have_count(0)
            expect(shown.locator("img")).to_have_count(1)  # the data: image, as it is
            expect(shown.locator("img")).to_have_attribute("src", inline)
            expect(shown).to_contain_text("A styled line.")
            expect(shown.locator("pre")).to_contain_text("graph TD")
        problems = []
        for theme, name in ((LIGHT, "light"), (DARK, "dark")):
            set_theme(alice, theme)
            for width in (250, 500):
                set_sidebar_width(alice, width)
                screenshot(alice.locator("#jp-copilot-room"), f"placeholder-{width}px-{name}")
                problems += [
                    f"{width} px, {name}: {problem}"
                    for problem in layout_problems(alice, ".jp-CopilotRoom-reply")
                ]
        assert not problems, "\n".join(problems)
        assert hits == []

        # alice chooses to see the first image: it loads in her browser, once, and only there.
        replies(alice).first.get_by_role("button", name=f"Load image from {host}").first.click()
        loaded = replies(alice).first.locator(f'img[src="{remote}/leak?secret=1"]')
        expect(loaded).to_be_visible()
        alice.wait_for_function(
            "img => img.complete && img.naturalWidth === 48", arg=loaded.element_handle()
        )
        screenshot(alice.locator("#jp-copilot-room"), "loaded")
        bob.wait_for_timeout(1000)
        assert hits == ["/leak?secret=1"]
        placeholders = re.compile("^Load image")
        expect(replies(bob).first.get_by_role("button", name=placeholders)).to_have_count(2)
        expect(replies(alice).first.get_by_role("button", name=placeholders)).to_have_count(1)
