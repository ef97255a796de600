"""What the docs and the code tell people points at things that exist."""

import re
from pathlib import Path

from jupyter_copilot_room.app import CopilotRoom
from jupyter_copilot_room.settings import RoomSettings

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "jupyter_copilot_room"
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def sources():
    return [p for p in PACKAGE.rglob("*.py") if "labextension" not in p.parts]


def test_every_markdown_file_the_code_and_docs_cite_exists():
    cited = re.compile(r"(?<![\w/.:-])((?:[\w-]+/)*[\w-]+\.md)\b")
    missing = []
    for path in [*sources(), *DOCS]:
        for name in cited.findall(path.read_text(encoding="utf-8")):
            if not any((base / name).exists() for base in (ROOT, path.parent, ROOT / "docs")):
                missing.append(f"{path.relative_to(ROOT)} cites {name}")
    assert missing == []


def test_every_room_setting_has_help_that_speaks_to_users():
    traits = CopilotRoom.class_traits(config=True)
    for name in [*CopilotRoom.class_own_traits(config=True), *RoomSettings.model_fields]:
        help_text = traits[name].help
        assert help_text and "issue" not in help_text, f"c.CopilotRoom.{name}: {help_text!r}"


def test_the_architecture_names_every_module():
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [
        str(path.relative_to(PACKAGE))
        for path in sources()
        if path.name != "__init__.py" and path.name not in architecture
    ]
    assert unnamed == []
