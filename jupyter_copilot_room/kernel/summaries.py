"""Bounded text summaries of notebook variables, attached to a prompt (`--with`, `attach=`).

The agent is shown a summary, never the object (nothing is pickled or uploaded): the type; for a
DataFrame its shape, dtypes and `head()`; for a numpy array its shape, dtype and statistics;
otherwise a truncated `repr`. Each summary is capped at `PER_VARIABLE` characters and all of them
at `TOTAL`, with a visible marker where text was cut. The summary becomes part of the prompt's
text, so the transcript records exactly what the agent was shown.
"""

from __future__ import annotations

import reprlib
import sys
from collections.abc import Mapping
from typing import Any

PER_VARIABLE = 4000
TOTAL = 12000
HEAD_ROWS = 5


def cut(text: str, limit: int) -> str:
    """`text`, or its first part and a marker saying how much was left out."""
    if len(text) <= limit:
        return text
    marker = f"\n… [truncated: {len(text) - limit} more characters not shown]"
    return text[: max(0, limit - len(marker))] + marker


def summarize(value: Any, limit: int = PER_VARIABLE) -> str:
    """The summary of one value, at most `limit` characters."""
    kind = type(value)
    lines = [f"type: {kind.__module__}.{kind.__qualname__}"]
    if _is_dataframe(value):
        lines += [
            f"shape: {value.shape}",
            "dtypes:",
            _text(value.dtypes),
            f"head({HEAD_ROWS}):",
            _text(value.head(HEAD_ROWS)),
        ]
    elif _is_array(value):
        lines += [f"shape: {value.shape}", f"dtype: {value.dtype}", *_array_stats(value)]
    else:
        shown = reprlib.Repr()  # keyword arguments only from Python 3.12
        shown.maxstring = shown.maxother = limit
        shown.maxlong = 200
        lines.append(f"repr: {shown.repr(value)}")
    return cut("\n".join(lines), limit)


def attach_summaries(text: str, values: Mapping[str, Any]) -> str:
    """`text` followed by a fenced summary of each named value, within `TOTAL` characters."""
    parts = [f"`{name}`:\n```text\n{summarize(value)}\n```" for name, value in values.items()]
    attached = cut("\n\n".join(parts), TOTAL)
    if attached.count("```") % 2:  # the cut fell inside a block: close it
        attached += "\n```"
    return f"{text.rstrip()}\n\nAttached from the notebook (summaries, not the data):\n\n{attached}"


def describe_variables(names: list[str], namespace: Mapping[str, Any]) -> str:
    """Each named variable's summary, or that it is not defined, within `TOTAL` characters: what
    the agent's `notebook_inspect` reads (this runs inside the notebook's kernel)."""
    parts = [
        f"`{name}`:\n" + (summarize(namespace[name]) if name in namespace else "not defined")
        for name in names
    ]
    return cut("\n\n".join(parts), TOTAL)


def _is_dataframe(value: Any) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame | pandas.Series)


def _is_array(value: Any) -> bool:
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.ndarray)


def _text(value: Any) -> str:
    """A pandas object's own text, within its display limits (never the whole frame)."""
    if not hasattr(value, "to_string"):  # a Series' `dtypes` is one dtype
        return str(value)
    pandas = sys.modules["pandas"]
    with pandas.option_context("display.max_columns", 20, "display.width", 120):
        if isinstance(value, pandas.Series):
            return value.to_string(max_rows=HEAD_ROWS * 2)
        return value.to_string(max_rows=HEAD_ROWS * 2, max_cols=20)


def _array_stats(value: Any) -> list[str]:
    numpy = sys.modules["numpy"]
    if value.size == 0 or not (numpy.issubdtype(value.dtype, numpy.number) or value.dtype == bool):
        return []
    with numpy.errstate(all="ignore"):
        data = value.astype(float) if value.dtype == bool else value
        finite = numpy.isfinite(data) if numpy.issubdtype(data.dtype, numpy.floating) else None
        stats = [
            f"min: {numpy.nanmin(data)}",
            f"max: {numpy.nanmax(data)}",
            f"mean: {numpy.nanmean(data)}",
            f"std: {numpy.nanstd(data)}",
        ]
        if finite is not None and not finite.all():
            stats.append(f"non-finite values: {int((~finite).sum())}")
    return stats
