"""Driving the room panel in a page, as a person would: shared by the browser and hub tests."""

import time
from pathlib import Path

from playwright.sync_api import expect

from jupyter_copilot_room.agent.scripted_model import ToolCall

from ..harness.pages import DARK, LIGHT, set_theme

PROMPT = 'textarea[aria-label="Prompt for the agent"]'

# A question and a shell command in one model reply: two cards wait at the same time.
QUESTION_AND_COMMAND = (
    ToolCall(
        "ask_user",
        {
            "question": "Which file should I write, and may I overwrite it if it exists?",
            "choices": ["approved.txt", "a-rather-long-file-name-for-the-answer.txt"],
        },
    ),
    ToolCall("bash", {"command": "echo from-the-browser > approved.txt", "description": "write"}),
)


def show_room(page):
    """Open the room in JupyterLab's sidebar (its command) and wait for it."""
    page.evaluate("() => window.jupyterapp.commands.execute('copilot-room:open')")
    expect(page.locator(".jp-CopilotRoom-room, .jp-CopilotRoom-door")).to_be_visible()
    return page


def close_connection_lost_dialogs(page):
    """While the server is down long enough for JupyterLab's own polls to notice, JupyterLab shows
    its modal "Server Connection Error" dialog: close it as a person would, whenever it shows up
    in the way of the test's next action. Returns the list the closes are counted in: a dialog
    that opened during a keystroke took that keystroke."""
    dialog = page.locator(".jp-Dialog", has_text="Server Connection Error")
    closed: list[float] = []

    def close(found) -> None:
        found.get_by_role("button", name="Close").click()
        closed.append(time.monotonic())

    page.add_locator_handler(dialog, close, no_wait_after=True)
    return closed


def open_document(page, path: str) -> None:
    """Open `path` in JupyterLab, as the file browser would."""
    page.evaluate(
        "async path => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        path,
    )


def send(page, text):
    box = page.locator(PROMPT)
    expect(box).to_be_enabled(timeout=30_000)  # the room said this person may prompt
    box.click()  # JupyterLab may move the focus to a document it just opened
    box.fill(text)
    expect(box).to_have_value(text)
    box.press("Enter")
    expect(box).to_have_value("", timeout=15_000)  # sent: the box empties


def replies(page):
    return page.locator(".jp-CopilotRoom-reply")


def assert_first_reply_grows(page, timeout: float = 30):
    """The first reply is seen at three or more lengths: it streams, not all at the end."""
    seen = set()
    deadline = time.monotonic() + timeout
    while len(seen) < 3 and time.monotonic() < deadline:
        if replies(page).count():
            seen.add(len(replies(page).first.text_content() or ""))  # laid out or not
    assert len(seen) >= 3, f"the reply should grow while it streams, saw lengths {seen}"


def set_sidebar_width(page, width: int) -> None:
    """Drag the handle between the left sidebar and the main area until the room is `width` px
    wide, as a person resizing the sidebar would."""
    panel = page.locator("#jp-copilot-room")
    handle = page.locator("#jp-main-split-panel > .lm-SplitPanel-handle:not(.lm-mod-hidden)").first
    for _ in range(3):
        now = panel.bounding_box()["width"]
        if abs(now - width) < 1:
            return
        grip = handle.bounding_box()
        x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + width - now, y, steps=4)
        page.mouse.up()
    now = panel.bounding_box()["width"]
    assert abs(now - width) < 1, f"the room is {now} px wide, not {width} px"


# Every piece of text and every control of `box`, with where it shows: no two may overlap, and
# none may stick out of the box (what a scrolling or ellipsis container clips does not count).
# Text an ellipsis cuts short counts too, unless a `title` there holds the whole text.
LAYOUT_PROBLEMS = """box => {
    const outer = box.getBoundingClientRect();
    const clip = node => {
        let rect = {left: -Infinity, right: Infinity, top: -Infinity, bottom: Infinity};
        for (let el = node.parentElement; el && el !== box; el = el.parentElement) {
            if (getComputedStyle(el).overflowX !== 'visible') {
                const r = el.getBoundingClientRect();
                rect = {left: Math.max(rect.left, r.left), right: Math.min(rect.right, r.right),
                        top: Math.max(rect.top, r.top), bottom: Math.min(rect.bottom, r.bottom)};
            }
        }
        return rect;
    };
    const visible = (node, r) => {
        const c = clip(node);
        return {left: Math.max(r.left, c.left), right: Math.min(r.right, c.right),
                top: Math.max(r.top, c.top), bottom: Math.min(r.bottom, c.bottom)};
    };
    const items = [];
    const texts = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    while (texts.nextNode()) {
        const node = texts.currentNode;
        // Text nobody sees (a closed <details>, display: none) cannot overlap anything.
        if (!node.textContent.trim() || !node.parentElement.checkVisibility()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) {
            items.push({node, rect: r, what: JSON.stringify(node.textContent.trim().slice(0, 40))});
        }
    }
    const controls = 'img, input, select, textarea, button, .jp-CopilotRoom-avatar';
    for (const el of box.querySelectorAll(controls)) {
        if (!el.checkVisibility()) continue;
        items.push({node: el, rect: el.getBoundingClientRect(), what: `<${el.tagName.toLowerCase()}
            class="${el.className}">`.replace(/\\s+/g, ' ')});
    }
    const shown = items
        .map(item => ({...item, seen: visible(item.node, item.rect)}))
        .filter(i => i.rect.width > 0 && i.rect.height > 0 && i.seen.right - i.seen.left > 0.5
                     && i.seen.bottom - i.seen.top > 0.5);
    const problems = [];
    // Text cut short with an ellipsis, unless a tooltip on it (or around it) holds it whole.
    for (const el of box.querySelectorAll('*')) {
        const style = getComputedStyle(el);
        if (style.textOverflow !== 'ellipsis' || el.scrollWidth <= el.clientWidth + 1
            || !el.checkVisibility()) continue;
        const text = el.textContent.trim();
        const tip = el.closest('[title]');
        if (text && !(tip && box.contains(tip) && tip.title.includes(text))) {
            problems.push(`${JSON.stringify(text.slice(0, 40))} is cut short`);
        }
    }
    // A placeholder wider than its field, or with more lines than its text area, is cut short.
    const canvas = document.createElement('canvas').getContext('2d');
    for (const el of box.querySelectorAll('input[placeholder], textarea[placeholder]')) {
        const style = getComputedStyle(el);
        if (el.value || el.getClientRects().length === 0) continue;
        let cut;
        if (el.tagName === 'TEXTAREA') {
            // The placeholder's lines, wrapped as the text area wraps them, in a copy of it.
            const copy = document.createElement('div');
            for (const name of ['font', 'letterSpacing', 'lineHeight', 'padding', 'wordBreak',
                                'overflowWrap', 'tabSize']) {
                copy.style[name] = style[name];
            }
            Object.assign(copy.style, {position: 'fixed', visibility: 'hidden', boxSizing:
                'content-box', whiteSpace: 'pre-wrap', border: '0', height: 'auto',
                width: `${el.clientWidth - parseFloat(style.paddingLeft)
                          - parseFloat(style.paddingRight)}px`});
            copy.textContent = el.placeholder;
            document.body.appendChild(copy);
            cut = copy.offsetHeight > el.clientHeight + 1;
            copy.remove();
        } else {
            canvas.font = `${style.fontSize} ${style.fontFamily}`;
            const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
            cut = canvas.measureText(el.placeholder).width > el.clientWidth - pad + 1;
        }
        if (cut) problems.push(`the placeholder ${JSON.stringify(el.placeholder)} is cut short`);
    }
    for (const i of shown) {
        if (i.seen.left < outer.left - 0.5 || i.seen.right > outer.right + 0.5 ||
            i.seen.top < outer.top - 0.5 || i.seen.bottom > outer.bottom + 0.5) {
            problems.push(`${i.what} sticks out of its box`);
        }
    }
    // A sticky bar (a card's buttons at the tray's foot) is opaque and covers what scrolls
    // under it, by design: that is no overlap.
    const stickyOf = node => {
        for (let el = node.nodeType === 1 ? node : node.parentElement; el && el !== box;
             el = el.parentElement) {
            if (getComputedStyle(el).position === 'sticky') return el;
        }
        return null;
    };
    for (const [n, a] of shown.entries()) {
        for (const b of shown.slice(n + 1)) {
            if (a.node === b.node || a.node.contains(b.node) || b.node.contains(a.node)) continue;
            if (stickyOf(a.node) !== stickyOf(b.node)) continue;
            const w = Math.min(a.seen.right, b.seen.right) - Math.max(a.seen.left, b.seen.left);
            const h = Math.min(a.seen.bottom, b.seen.bottom) - Math.max(a.seen.top, b.seen.top);
            if (w > 1 && h > 1) problems.push(`${a.what} overlaps ${b.what}`);
        }
    }
    return problems;
}"""


def problems_at_every_look(page, take, label: str, check, widths=(250, 500)) -> list[str]:
    """At each sidebar width in the light and the dark theme: a screenshot of the room
    (`take(locator, "<label><width>px-<theme>")`) and what `check(page)` finds there, each problem
    prefixed with where it was seen. The page ends in the light theme."""
    problems = []
    for theme, name in ((LIGHT, "light"), (DARK, "dark")):
        set_theme(page, theme)
        for width in widths:
            set_sidebar_width(page, width)
            take(page.locator("#jp-copilot-room"), f"{label}{width}px-{name}")
            problems += [f"{width} px, {name}: {problem}" for problem in check(page)]
    set_theme(page, LIGHT)
    return problems


def fits_at_every_look(page, take, label: str, selector: str, widths=(250, 500)) -> list[str]:
    """What overlaps or sticks out in `selector` at each width and theme, with a screenshot of
    each look (`problems_at_every_look` with `layout_problems` as the check)."""
    return problems_at_every_look(
        page, take, label, lambda look: layout_problems(look, selector), widths
    )


def unreachable_buttons(page) -> list[str]:
    """An approval card whose top is in sight in the tray has its buttons in sight too (they
    stay at the tray's foot), however tall the card: nobody scrolls to answer what they see."""
    return page.evaluate(
        """() => {
            const tray = document.querySelector('.jp-CopilotRoom-trayBody');
            if (!tray) return [];
            const view = tray.getBoundingClientRect();
            const found = [];
            for (const card of tray.querySelectorAll('.jp-CopilotRoom-approval')) {
                const actions = card.querySelector('.jp-CopilotRoom-cardActions');
                const top = card.getBoundingClientRect().top;
                if (!actions || top < view.top || top >= view.bottom - 24) continue;
                const box = actions.getBoundingClientRect();
                if (box.bottom > view.bottom + 1 || box.top < view.top - 1) {
                    found.push(`${card.getAttribute('aria-label')}: its buttons are out of sight`);
                }
            }
            return found;
        }"""
    )


def nameless_door_buttons(page) -> list[str]:
    """Scrolled anywhere, a door card's buttons are never in sight in the tray without the name
    of the person they admit."""
    return page.evaluate(
        """async () => {
            const tray = document.querySelector('.jp-CopilotRoom-trayBody');
            if (!tray) return [];
            const inSight = node => {  // within the tray's view, and not under anything
                const view = tray.getBoundingClientRect(), box = node.getBoundingClientRect();
                const at = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
                return box.top >= view.top && box.bottom <= view.bottom && node.contains(at);
            };
            const found = new Set();
            const was = tray.scrollTop;
            for (let top = 0; top <= tray.scrollHeight; top += 8) {
                tray.scrollTop = top;
                await new Promise(requestAnimationFrame);
                for (const card of tray.querySelectorAll('.jp-CopilotRoom-admission')) {
                    const buttons = [...card.querySelectorAll('button')].some(inSight);
                    if (buttons && !inSight(card.querySelector('.jp-CopilotRoom-cardFor'))) {
                        found.add(`${card.getAttribute('aria-label')}: buttons without the name`);
                    }
                }
            }
            tray.scrollTop = was;
            return [...found];
        }"""
    )


def layout_problems(page, selector: str) -> list[str]:
    """What overlaps or sticks out in each element matching `selector` (see LAYOUT_PROBLEMS)."""
    problems = []
    for box in page.locator(selector).all():
        name = box.get_attribute("aria-label") or box.get_attribute("class")
        problems += [f"{name}: {problem}" for problem in box.evaluate(LAYOUT_PROBLEMS)]
    return problems


AXE = Path(__file__).parents[2] / "labextension" / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page, selector: str = "#jp-copilot-room") -> list[str]:
    """The serious and critical accessibility violations axe-core finds in `selector` (colour
    contrast included), one line per element: rule, impact, what axe says and the element."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        assert AXE.exists(), f"{AXE} is missing: run `jlpm install` in labextension/"
        page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async selector => {
            const result = await window.axe.run(document.querySelector(selector),
                                                {resultTypes: ['violations']});
            return result.violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .flatMap(v => v.nodes.map(n => ({id: v.id, impact: v.impact,
                    summary: n.failureSummary.replace(/\\s+/g, ' '),
                    html: n.html.slice(0, 160)})));
        }""",
        selector,
    )
    return [f"{v['id']} ({v['impact']}): {v['summary']} in {v['html']}" for v in found]


def attach(page, item: str | None = None):
    """Open the prompt box's "Attach" menu and choose `item` (a menu item's name: an offer such
    as "The notebook x.ipynb", "Image…", "Repository file…"); return the menu."""
    page.get_by_role("button", name="Attach…").click()
    menu = page.get_by_role("menu", name="Attach to your next prompt")
    if item is not None:
        menu.get_by_role("menuitem", name=item).click()
    return menu


def prompt_box_problems(page) -> list[str]:
    """The prompt box and each of its controls must be whole inside the panel and on screen,
    whatever else the panel shows, its buttons on one toolbar row."""
    return page.evaluate(
        """() => {
            const panel = document.querySelector('#jp-copilot-room').getBoundingClientRect();
            const box = document.querySelector('.jp-CopilotRoom-promptBox');
            if (!box) return ['the prompt box is not shown'];
            const bottom = Math.min(panel.bottom, window.innerHeight);
            const problems = [];
            for (const el of [box, ...box.querySelectorAll('textarea, button, input')]) {
                const r = el.getBoundingClientRect();
                if (r.height === 0) continue;
                if (r.top < panel.top - 0.5 || r.bottom > bottom + 0.5 || r.height < 8 ||
                        r.left < panel.left - 0.5 || r.right > panel.right + 0.5) {
                    problems.push(`${el.tagName.toLowerCase()} ${JSON.stringify(
                        el.textContent.trim() || el.getAttribute('aria-label'))} is at ` +
                        `${Math.round(r.top)}..${Math.round(r.bottom)}, the panel at ` +
                        `${Math.round(panel.top)}..${Math.round(bottom)}`);
                }
                const x = (r.left + r.right) / 2, y = r.bottom - 2;
                const top = document.elementFromPoint(x, y);
                if (el !== box && top && !el.contains(top)) {
                    problems.push(`${el.tagName.toLowerCase()} ${JSON.stringify(
                        el.textContent.trim() || el.getAttribute('aria-label'))} is covered by ` +
                        `${top.className || top.tagName}`);
                }
            }
            // One toolbar row under the text: "Attach", then the send buttons.
            const rows = new Set([...box.querySelectorAll('.jp-CopilotRoom-promptActions button')]
                .map(b => b.getBoundingClientRect())
                .filter(r => r.height > 0)
                .map(r => Math.round(r.top)));
            if (rows.size > 1) {
                problems.push(`the toolbar under the prompt takes ${rows.size} rows`);
            }
            return problems;
        }"""
    )
