"""The room on a REAL JupyterHub (see `tests/harness/hub.py`): alice's single-user server, shared
with four visitors. Fixtures in `tests/harness/hub_fixtures.py`.

Run: `python -m pytest tests/hub` (hub log on failure, screenshots and `timings.json` land in
`tests/hub/artifacts/`).
"""

from ..harness.browser_fixtures import (  # noqa: F401 (fixtures for the tests below)
    browser,
    jp_asyncio_loop,
    jp_server_cleanup,
    model,
)
from ..harness.hub_fixtures import hub, people, screenshots_on_failure, timings  # noqa: F401
