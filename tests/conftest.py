"""Fixtures: `tests/harness/pytest_plugin.py`; helpers to import: `tests/harness/helpers.py`."""

pytest_plugins = ("pytest_jupyter.jupyter_server", "tests.harness.pytest_plugin")
