"""The example notebook's tables name people as the room does (issue 42 saw random hex usernames,
which are what a plain `jupyter lab` gives its guests)."""

import json
from pathlib import Path

from jupyter_copilot_room.kernel.record_frames import Records

NOTEBOOK = Path(__file__).parents[1] / "examples" / "pairing-repo" / "from-a-notebook.ipynb"
GUEST = "5a1c0e8f3b2d4c6e9f7a1b3c5d7e9f01"


def test_the_example_notebooks_tables_show_names_not_usernames():
    records = Records(
        [
            {
                "seq": 1,
                "ts": 1.0,
                "kind": "person.seen",
                "actor": GUEST,
                "payload": {"username": GUEST, "display_name": "Anonymous Io"},
            },
            {
                "seq": 2,
                "ts": 2.0,
                "kind": "prompt.submitted",
                "actor": GUEST,
                "payload": {"id": "p1", "text": "hello", "origin": "kernel"},
            },
            {
                "seq": 3,
                "ts": 3.0,
                "kind": "usage",
                "actor": None,
                "payload": {
                    "prompt_id": "p1",
                    "author": GUEST,
                    "input_tokens": 10,
                    "output_tokens": 2,
                },
            },
        ]
    )

    class Room:
        def transcript(self):
            return records

    cells = [
        "".join(cell["source"])
        for cell in json.loads(NOTEBOOK.read_text())["cells"]
        if cell["cell_type"] == "code" and "records" in "".join(cell["source"])
    ]
    assert len(cells) == 2
    namespace = {"room": Room()}
    shown = []
    for source in cells:
        *body, last = source.strip().split("\n")
        exec("\n".join(body), namespace)
        shown.append(eval(last, namespace).to_string())
    assert all("Anonymous Io" in table for table in shown), shown
    assert not any(GUEST in table for table in shown), shown
