"""What the docs and the code tell people points at things that exist."""

import re
from pathlib import Path

import yaml
from jupyter_core.paths import SYSTEM_CONFIG_PATH

from jupyter_copilot_room.access.hub_grants import MEMBER_SCOPE, VIEWER_SCOPE
from jupyter_copilot_room.app import CopilotRoom
from jupyter_copilot_room.cli import CopilotRoomCommand
from jupyter_copilot_room.fronts.front_settings import front_traits
from jupyter_copilot_room.settings import FROM_OTHER_TRAITS, RoomSettings

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
    settings = [FROM_OTHER_TRAITS.get(name, name) for name in RoomSettings.model_fields]
    fronts = front_traits()
    for name in [*CopilotRoom.class_own_traits(config=True), *fronts, *settings]:
        help_text = traits[name].help
        assert help_text and "issue" not in help_text, f"c.CopilotRoom.{name}: {help_text!r}"


def test_help_all_lists_every_configuration_trait(capsys):
    CopilotRoomCommand().print_help(classes=True)  # `jupyter copilot-room --help-all`
    shown = capsys.readouterr().out
    missing = [
        n for n in CopilotRoom.class_trait_names(config=True) if f"--CopilotRoom.{n}=" not in shown
    ]
    assert missing == []


def test_the_architecture_names_every_module():
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    unnamed = [
        str(path.relative_to(PACKAGE))
        for path in sources()
        if path.name != "__init__.py" and path.name not in architecture
    ]
    assert unnamed == []


def test_the_kubernetes_example_configures_real_settings_where_the_server_reads_them():
    values = yaml.safe_load((ROOT / "examples" / "kubernetes" / "config.yaml").read_text())
    (room_file,) = values["singleuser"]["extraFiles"].values()
    mount = Path(room_file["mountPath"])
    assert mount.parent.name == "jupyter_server_config.d" and mount.suffix == ".json"
    assert str(mount.parent.parent) in SYSTEM_CONFIG_PATH
    known = set(CopilotRoom.class_traits(config=True)) | set(RoomSettings.model_fields)
    assert set(room_file["data"]["CopilotRoom"]) - known == set()
    custom_scopes = values["hub"]["config"]["JupyterHub"]["custom_scopes"]
    allowed = values["hub"]["config"]["KubeSpawner"]["oauth_client_allowed_scopes"]
    assert set(custom_scopes) == set(allowed) == {MEMBER_SCOPE, VIEWER_SCOPE}
