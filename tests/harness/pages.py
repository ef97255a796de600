"""JupyterLab in a browser page (Playwright), for the browser and hub tests: waiting for the
shell, themes, screenshots and the room's API called the way the page calls it."""

from __future__ import annotations

import re
from pathlib import Path

SHELL = "#jp-main-dock-panel"
SPLASH = "#jupyterlab-splash"
LIGHT, DARK = "JupyterLab Light", "JupyterLab Dark"
ARTIFACTS = Path(__file__).parents[1] / "browser" / "artifacts"


#: The room offers each person a workspace of their own once per browser (labextension's
#: workspace.ts): a test page has had the offer, unless its test is about it.
OFFERED = "() => localStorage.setItem('copilot-room:own-workspace-offered', 'in an earlier visit')"


def new_page(
    browser, user: str, viewport=(1280, 800), timezone: str | None = None, offer_workspace=False
):
    """A page in a new browser context (its own cookies, its clock in `timezone` if given) for
    `user`. Console errors and uncaught page errors collect in `page.problems`; `page.user` is
    `user`."""
    context = browser.new_context(
        viewport={"width": viewport[0], "height": viewport[1]}, timezone_id=timezone
    )
    if not offer_workspace:
        context.add_init_script(f"({OFFERED})()")
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.problems = []
    page.on("console", lambda m: page.problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda err: page.problems.append(str(err)))
    page.user = user
    return page


def wait_for_lab(page, timeout: float = 60_000) -> None:
    """JupyterLab's shell is shown, the app restored its layout, the splash screen is gone and the
    main area has its first tab: the launcher JupyterLab opens into an empty main area after the
    restore (or the document the address names) takes the keyboard focus as it appears, which
    under load came after a test had already put the focus in the room (CI)."""
    page.wait_for_selector(SHELL, state="visible", timeout=timeout)
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=timeout)
    page.evaluate("() => window.jupyterapp.restored")
    page.wait_for_selector(SPLASH, state="detached", timeout=timeout)
    page.wait_for_selector(f"{SHELL} .lm-TabBar-tab", timeout=timeout)


def artifact_name(node) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", node.name)


def save_screenshot(page, name: str, **kwargs) -> Path:
    """`page` may be a Page or a Locator (a screenshot of that element only)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), **kwargs)
    return path


def set_theme(page, theme: str = DARK) -> None:
    """Switch JupyterLab's theme with its own command and wait until it is applied.

    The command saves the choice in the lab's user settings, which every user of this server
    shares: pages opened (or reloaded) later start in that theme.
    """
    page.evaluate(
        "theme => window.jupyterapp.commands.execute('apputils:change-theme', {theme})", theme
    )
    page.wait_for_function(
        "theme => document.body.dataset.jpThemeName === theme", arg=theme, timeout=30_000
    )
    # JupyterLab shows its splash screen while the theme's stylesheet loads.
    page.wait_for_selector(SPLASH, state="detached", timeout=30_000)


def page_api(page, method: str, path: str, body=None, *, xsrf: bool = True) -> dict:
    """Call the room's REST API from the page as JupyterLab's `ServerConnection` does: the login
    cookie, the `_xsrf` cookie echoed as `X-XSRFToken`, and `Authorization: token <the server's
    token>` from the page config. Returns `{"status", "json"}`."""
    return page.evaluate(
        """async ([method, path, body, xsrf]) => {
            const config = JSON.parse(
                document.getElementById('jupyter-config-data').textContent);
            const headers = {'Content-Type': 'application/json'};
            if (config.token) headers['Authorization'] = `token ${config.token}`;
            const cookie = document.cookie.split('; ').find(c => c.startsWith('_xsrf='));
            if (xsrf && cookie) headers['X-XSRFToken'] = cookie.slice('_xsrf='.length);
            const base = config.baseUrl || '/';
            const response = await fetch(`${base}copilot-room/api/${path}`, {
                method, headers, credentials: 'same-origin',
                body: body === null ? undefined : JSON.stringify(body),
            });
            const text = await response.text();
            let json = null;
            try { json = JSON.parse(text); } catch (e) {}
            return {status: response.status, json, text};
        }""",
        [method, path, body, xsrf],
    )
