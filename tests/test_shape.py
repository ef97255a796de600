"""The package's shape, as a reader meets it: modules short enough to read whole (the panel's
TypeScript too), each module and class name meaning one thing, and objects composed rather than
one object split over files (a class inheriting from two of the package's own classes is such a
split)."""

import ast
import importlib
import inspect
from collections import Counter
from pathlib import Path

import jupyter_copilot_room

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


def test_no_class_inherits_from_two_of_the_packages_classes():
    split = {}
    for path in MODULES:
        module = importlib.import_module(module_name(path))
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            ours = [b.__name__ for b in cls.__bases__ if b.__module__.startswith(PACKAGE.name)]
            if len(ours) >= 2:
                split[f"{module.__name__}.{name}"] = ours
    assert split == {}


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
