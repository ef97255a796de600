"""Browser tests of the room's JupyterLab panel: fixtures in `tests/harness/browser_fixtures.py`,
page helpers in `tests/harness/pages.py`.

Run: `python -m pytest tests/browser` (screenshots land in `tests/browser/artifacts/`).
"""

from ..harness.browser_fixtures import (  # noqa: F401 (fixtures for the tests below)
    browser,
    jp_asyncio_loop,
    jp_server_cleanup,
    lab,
    model,
    open_lab,
    pages,
    screenshot,
    shared_lab_server,
)
