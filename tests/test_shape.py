"""The package's shape, as a reader meets it: modules short enough to read whole (the panel's
TypeScript too), each module and class name meaning one thing, and objects composed rather than
one object split over files (a class inheriting from two of the package's own classes is such a
split)."""

import ast
import importlib
import inspect
import sys
from collections import Counter
from pathlib import Path

import jupyter_copilot_room
from jupyter_copilot_room import app

from .harness.helpers import parsed

PACKAGE = Path(jupyter_copilot_room.__file__).parent
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "labextension" not in p.parts)
MAX_LINES = 400
# The panel's TypeScript, held to the same rule. Not generated/: panel_declarations.py writes it
# from the Python declarations (tests/test_panel_declarations.py checks it is current).
PANEL_SOURCE = PACKAGE.parent / "labextension" / "src"
PANEL_MODULES = sorted(
    p
    for p in (*PANEL_SOURCE.rglob("*.ts"), *PANEL_SOURCE.rglob("*.tsx"))
    if "generated" not in p.relative_to(PANEL_SOURCE).parts
)


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(
        ".__init__"
    )


def test_no_module_is_over_400_lines():
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in MODULES
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_panel_module_is_over_400_lines():
    assert PANEL_MODULES, f"no TypeScript found under {PANEL_SOURCE}"
    long = {
        str(p.relative_to(PANEL_SOURCE)): n
        for p in PANEL_MODULES
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def makers() -> dict[type, str]:
    """Each class of the package, by the module that made it. A class says where it was made
    (`__module__`), except one built by calling `type()` through a metaclass written in Python
    (traitlets' `MetaHasTraits`): it names the metaclass's module, which does not hold it; such a
    class belongs to the package module that binds it."""
    made: dict[type, str] = {}
    for path in MODULES:
        module = importlib.import_module(module_name(path))
        for _, cls in inspect.getmembers(module, inspect.isclass):
            named = sys.modules.get(cls.__module__)
            if cls.__module__ == module.__name__:
                made[cls] = module.__name__
            elif getattr(named, cls.__qualname__, None) is not cls:
                made.setdefault(cls, module.__name__)
    return made


def test_no_class_inherits_from_two_of_the_packages_classes():
    made = makers()
    split = {}
    for cls, module in made.items():
        ours = [b.__name__ for b in cls.__bases__ if b in made]
        if len(ours) >= 2:
            split[f"{module}.{cls.__name__}"] = ours
    assert split == {}


def test_a_class_built_by_type_belongs_to_the_module_that_builds_it():
    assert app.RoomSettingsConfig.__module__ != app.__name__  # what it says of itself
    assert makers()[app.RoomSettingsConfig] == app.__name__


def test_module_names_are_unique():
    names = Counter(p.name for p in MODULES if p.name != "__init__.py")
    assert {name: n for name, n in names.items() if n > 1} == {}


def test_class_names_are_unique():
    where: dict[str, list[str]] = {}
    for path in MODULES:
        for node in parsed(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in where.items() if len(paths) > 1} == {}


#: Each outside SDK (by its import name) and the only modules that import it, as
#: docs/architecture.md names them: a folder's modules, or these files, each of which does.
IMPORTERS = {
    "copilot": ("agent/copilot/",),
    "acp": ("agent/acp/",),
    "githubkit": ("fronts/github/github_rest.py",),
    "slack_sdk": ("fronts/slack/slack_service.py",),
    "msal": ("fronts/teams/bot_token.py",),
    "jwt": ("fronts/teams/caller_check.py",),
    "microsoft_agents": ("fronts/teams/teams_service.py", "fronts/teams/teams_bridge.py"),
}


def imported(path: Path) -> set[str]:
    """The top-level packages `path` imports, at any depth of its code."""
    names = set()
    for node in ast.walk(parsed(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return names


def test_each_outside_sdk_is_imported_only_where_the_architecture_says():
    found: dict[str, set[str]] = {sdk: set() for sdk in IMPORTERS}
    for path in MODULES:
        for sdk in imported(path) & IMPORTERS.keys():
            found[sdk].add(path.relative_to(PACKAGE).as_posix())
    for sdk, allowed in IMPORTERS.items():
        assert found[sdk], f"nothing imports {sdk}: the table is stale"
        stray = {p for p in found[sdk] if not p.startswith(allowed)}
        assert stray == set(), f"{sdk} is imported outside {allowed}"
        files = {a for a in allowed if a.endswith(".py")}
        assert files <= found[sdk], f"{sdk}: {files - found[sdk]} no longer import it"


#: The room's inside, which a front reaches only through the API (`api/`).
INSIDE = ("jupyter_copilot_room.room", "jupyter_copilot_room.access")


def package_imports(path: Path) -> set[str]:
    """The package's modules `path` imports (relative imports resolved), at any depth."""
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    names = set()
    for node in ast.walk(parsed(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            names |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return names


def test_no_front_imports_the_rooms_inside():
    """A front is a client of the API: the words it shows and the rules it needs come from
    `api/`, never from `room/` or `access/` (issue 53)."""
    fronts = [p for p in MODULES if p.relative_to(PACKAGE).parts[0] == "fronts"]
    assert fronts, "the fronts moved: this test is stale"
    stray = {
        f"{p.relative_to(PACKAGE)}: {name}"
        for p in fronts
        for name in package_imports(p)
        if any(name == inside or name.startswith(inside + ".") for inside in INSIDE)
    }
    assert stray == set()


def test_the_room_api_hands_out_no_room():
    """`RoomAPI` keeps its room inside: no public attribute, property or method gives it."""
    from jupyter_copilot_room.api import RoomAPI
    from jupyter_copilot_room.room.room import Room

    room = object.__new__(Room)  # built by nothing: what the API holds, not a working room
    api = RoomAPI(room, threads=None)  # type: ignore[arg-type]
    assert all(v is not room for k, v in vars(api).items() if not k.startswith("_"))
    for name, member in inspect.getmembers(RoomAPI):
        if name.startswith("_"):
            continue
        function = member.fget if isinstance(member, property) else member
        returns = str(inspect.signature(function).return_annotation)
        assert "Room" not in returns.replace("RoomAPI", "").replace("RoomLinksAPI", ""), name
        if isinstance(member, property):
            try:
                value = getattr(api, name)
            except Exception:  # a property that needs a working room: its annotation is checked
                continue
            assert value is not room, name
