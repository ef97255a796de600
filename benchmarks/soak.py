"""The collaboration soak for longer: `tests/browser/test_soak.py` with each typing phase lasting
`SOAK_PHASE` seconds instead of 12. Prints what each person typed and what the agent did; passes
only if the file on disk, both browsers and the agent's last read hold all of it."""

import os
import sys
from pathlib import Path

from quick import sized

SOAK_PHASE = sized(150, 3)  # seconds: about 8 minutes of typing in all (quick: a few deletions)

if __name__ == "__main__":
    from with_pytest import run

    os.environ["COPILOT_ROOM_SOAK_PHASE"] = str(SOAK_PHASE)
    test = Path(__file__).resolve().parent.parent / "tests" / "browser" / "test_soak.py"
    sys.exit(run(str(test)))
