"""The transcript's records in a kernel: a list of dicts, and a DataFrame for data teams."""

from __future__ import annotations

from typing import Any

from ..events.consumers import reads

#: The names a kernel's dataframe shows (`events/consumers.py`).
RECORDS = reads("kernel_records", handles=["person.seen"])


class Records(list):
    """Transcript records (`seq`, `ts`, `kind`, `actor`, `payload`), oldest first."""

    def to_dataframe(self) -> Any:
        """One row a record, the payload's fields as `payload.<field>` columns, `ts` as a UTC
        time, and a `_name` column beside `actor` and `payload.author` (the name each person
        last went by: on a plain `jupyter lab` usernames are random hex): who asked what
        (`prompt.submitted`) and what it cost (`usage`, booked to `payload.author`: tokens as
        whole numbers). Needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe() needs pandas: pip install pandas") from None
        frame = pd.json_normalize(list(self), sep=".")
        if "ts" in frame:
            frame["ts"] = pd.to_datetime(frame["ts"], unit="s", utc=True)
        names = self._names()
        for column, name_column in (("actor", "actor_name"), ("payload.author", "author_name")):
            if column in frame:
                named = frame[column].map(lambda user: names.get(user, user))
                frame.insert(frame.columns.get_loc(column) + 1, name_column, named)
        # A count missing from other kinds of record made a float column (7539.0): pandas'
        # nullable types keep whole numbers whole.
        return frame.convert_dtypes()

    def _names(self) -> dict[str, str]:
        names = {}
        for record in self:
            payload = record.get("payload")
            seen = record.get("kind") == "person.seen" and isinstance(payload, dict)
            if seen and payload.get("username") and payload.get("display_name"):
                names[payload["username"]] = payload["display_name"]
        return names
