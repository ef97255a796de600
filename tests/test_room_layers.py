"""Which way the room's layers import: the room knows an agent only through the seam
(`agent/seam.py`), and the factory builds rooms from a typed configuration, never from the server
extension that reads it (`app.py`). An import the other way ties the core to one adapter or to
one half-initialized application object."""

import ast
from pathlib import Path

import jupyter_copilot_room

from .harness.helpers import parsed

PACKAGE = Path(jupyter_copilot_room.__file__).parent
#: The agent adapters: modules behind the seam.
ADAPTERS = ("jupyter_copilot_room.agent.acp", "jupyter_copilot_room.agent.copilot")


def imports_of(path: Path) -> set[str]:
    """The modules `path` imports from the package, by absolute name, at any depth of its code."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(parsed(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found |= {name, *(f"{name}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {name for name in found if name.startswith("jupyter_copilot_room")}


def test_the_room_imports_no_agent_adapter():
    stray = {
        (str(path.relative_to(PACKAGE)), name)
        for path in (PACKAGE / "room").rglob("*.py")
        for name in imports_of(path)
        if name.startswith(ADAPTERS)
    }
    assert stray == set(), "the room reaches an agent through agent/seam.py only"


def test_the_factory_imports_nothing_of_the_app():
    """It is given a `RoomConfig` (`room_config.py`), not the `ExtensionApp`."""
    factory = PACKAGE / "room_factory.py"
    stray = {name for name in imports_of(factory) if name.startswith("jupyter_copilot_room.app")}
    assert stray == set()
