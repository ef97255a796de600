"""One size switch for every benchmark: `BENCH_QUICK=1` runs each at a small size, so that
tests/test_benchmarks.py can check in seconds that every documented command still runs and prints
its figures. The figures of a quick run mean nothing; only the full run's are reported."""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

_VALUE = os.environ.get("BENCH_QUICK", "0")
if _VALUE not in ("0", "1", ""):
    raise SystemExit(
        f"BENCH_QUICK={_VALUE!r}: set 1 for small sizes, or 0 (or unset) for full ones"
    )
QUICK = _VALUE == "1"


def sized(full: T, quick: T) -> T:
    """`full`, or `quick` when BENCH_QUICK=1."""
    return quick if QUICK else full
