"""Runs a benchmark written as a pytest test (one that needs the test suite's fixtures: a
Jupyter server in process, the scripted model) from `python benchmarks/<name>.py`."""

import sys
from pathlib import Path

import pytest

PLUGINS = ("pytest_jupyter.jupyter_server", "tests.harness.pytest_plugin")


def run(path: str) -> int:
    """pytest on `path` alone, printing as it goes, in file order, leaving no cache behind."""
    sys.path.insert(0, str(Path(__file__).parents[1]))  # this checkout's `tests`, not another's
    options = ["-q", "-s", "-p", "no:randomly", "-p", "no:cacheprovider"]
    return int(pytest.main([path, *options, *(arg for p in PLUGINS for arg in ("-p", p))]))
