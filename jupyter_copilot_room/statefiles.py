"""The room's state directory: where it lives and how small JSON files in it are replaced safely.

By default it lives in Jupyter's data directory, keyed by the repository, outside the agent's
working tree: what the agent edits at someone's request can never be the room's own state (its
transcript, admissions, settings). Rooms of 0.1 kept it in `<repository>/.copilot-room/`; it is
moved from there once, on the first start.
"""

import hashlib
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from jupyter_core.paths import jupyter_data_dir

log = logging.getLogger(__name__)

#: Where 0.1 kept a room's state, inside its repository.
LEGACY_FOLDER = ".copilot-room"
#: The room's transcript in its state directory: there once the room has started.
TRANSCRIPT_FILE = "transcript.jsonl"


def default_state_dir(repository: Path) -> Path:
    """`<jupyter data dir>/copilot_room/<repository name>-<hash of its path>`."""
    real = repository.expanduser().resolve()
    key = hashlib.sha256(str(real).encode()).hexdigest()[:12]
    return Path(jupyter_data_dir()) / "copilot_room" / f"{real.name or 'root'}-{key}"


def move_legacy_state(repository: Path, state_dir: Path) -> None:
    """Move a 0.1 room's state out of its repository, unless the new place has a room already."""
    legacy = repository / LEGACY_FOLDER
    if not (legacy / TRANSCRIPT_FILE).exists() or (state_dir / TRANSCRIPT_FILE).exists():
        return
    state_dir.mkdir(parents=True, exist_ok=True)
    for entry in legacy.iterdir():
        shutil.move(str(entry), str(state_dir / entry.name))
    legacy.rmdir()
    log.warning("Moved the Copilot room's state from %s to %s", legacy, state_dir)


def prepare_state_dir(path: Path) -> Path:
    """Create the state directory with a `.gitignore` of `*`, so room state never gets committed."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    return path


def write_json_atomically(path: Path, data: dict) -> None:
    """Temp file, fsync, rename: a crash leaves either the old file or the new one, never half.
    The folder is made if it is not there yet (a front's first state file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_cache(path: Path, data: dict) -> None:
    """Write a cache of what the transcript already holds. It is rebuilt at every start, so a
    write that fails (a full disk) must not fail the command that was recorded: it is logged."""
    try:
        write_json_atomically(path, data)
    except OSError as err:
        log.warning("Could not write %s (%s); the transcript holds the change.", path, err)


def read_json(path: Path) -> dict | None:
    """The file's object, or None when it does not exist yet."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
