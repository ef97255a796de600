"""The transcript's records in a kernel: a list of dicts, and a DataFrame for data teams."""

from __future__ import annotations

from typing import Any


class Records(list):
    """Transcript records (`seq`, `ts`, `kind`, `actor`, `payload`), oldest first."""

    def to_dataframe(self) -> Any:
        """One row a record, the payload's fields as `payload.<field>` columns and `ts` as a
        UTC time: who asked what (`prompt.submitted`) and what it cost (`usage`). Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe() needs pandas: pip install pandas") from None
        frame = pd.json_normalize(list(self), sep=".")
        if "ts" in frame:
            frame["ts"] = pd.to_datetime(frame["ts"], unit="s", utc=True)
        return frame
