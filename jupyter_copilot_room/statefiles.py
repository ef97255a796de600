"""The room's state directory: where it lives and how small JSON files in it are replaced safely."""

import json
import os
import tempfile
from pathlib import Path


def prepare_state_dir(path: Path) -> Path:
    """Create the state directory with a `.gitignore` of `*`, so room state never gets committed."""
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    return path


def write_json_atomically(path: Path, data: dict) -> None:
    """Temp file, fsync, rename: a crash leaves either the old file or the new one, never half."""
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


def read_json(path: Path) -> dict | None:
    """The file's object, or None when it does not exist yet."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
