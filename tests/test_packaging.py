"""What the code imports, pyproject.toml declares: a fresh `pip install jupyter-copilot-room`
brings every distribution the package imports, `[test]` every one the tests and benchmarks
import, and nothing is declared that nothing needs.

The imports are read from the source (every `import` statement, in functions and under
`TYPE_CHECKING` too) and mapped to the distributions installed here that provide them."""

import ast
import re
import sys
import tomllib
from collections import defaultdict
from functools import cache
from importlib.metadata import files, packages_distributions
from pathlib import Path

from .harness.helpers import parsed

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "jupyter_copilot_room"

# Declared, never imported: what they bring is used at run time.
RUN_TIME_ONLY = {
    # The host application of the panel (labextension/): the room is driven from JupyterLab.
    "jupyterlab",
    # Its jupyter_server_ydoc holds the open notebooks the agent edits live (found in the web
    # app's settings, `notebooks/editor.py`, `notebooks/open_notebooks.py`).
    "jupyter-collaboration",
    # The time zones `zoneinfo` reads an export's zone from where the system has none
    # (`export.zone`).
    "tzdata",
    # Pinned below 2.0 for githubkit, which imports it (see pyproject.toml).
    "hishel",
}


def normalize(name: str) -> str:
    """A distribution's name as PEP 503 compares names."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return normalize(match.group(1))


def project() -> dict:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["project"]


def dependencies() -> set[str]:
    return {requirement_name(r) for r in project().get("dependencies", [])}


def extras() -> dict[str, set[str]]:
    return {
        extra: {requirement_name(r) for r in requirements}
        for extra, requirements in project().get("optional-dependencies", {}).items()
    }


def sources(*folders: Path) -> list[Path]:
    return [
        path
        for folder in folders
        for path in sorted(folder.rglob("*.py"))
        if not {"labextension", "node_modules"} & set(path.relative_to(ROOT).parts)
    ]


def parsed_file(path: Path) -> ast.Module:
    return parsed(path.read_text(encoding="utf-8"), str(path))


def imported_modules(paths: list[Path]) -> dict[str, list[str]]:
    """Every absolute import in `paths`, as `{dotted module: ["file:line", ...]}`. For
    `from a.b import c` the module is `a.b.c` (c may be a module); `pytest_plugins` counts."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        where = path.relative_to(ROOT)
        for node in ast.walk(parsed_file(path)):
            modules: list[str] = []
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets
            ):
                modules = [
                    c.value
                    for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                ]
            for module in modules:
                found[module].append(f"{where}:{node.lineno}")
    return found


@cache
def providers() -> dict[str, list[str]]:
    return packages_distributions()


def distributions_of(module: str) -> set[str]:
    """The installed distributions that provide `module`. A top-level name several of them
    share (`pycrdt`, with pycrdt-websocket's `pycrdt.websocket`) goes to the one whose files
    hold the longest part of the dotted name."""
    candidates = providers().get(module.partition(".")[0], [])
    if len(candidates) > 1:
        parts = module.split(".")
        for n in range(len(parts), 0, -1):
            stem = "/".join(parts[:n])
            wanted = {f"{stem}.py", f"{stem}/__init__.py"}
            owners = {d for d in candidates if any(str(f) in wanted for f in files(d) or ())}
            if owners:
                return {normalize(d) for d in owners}
    return {normalize(d) for d in candidates}


def third_party(paths: list[Path], local: set[str]) -> dict[str, dict[str, list[str]]]:
    """`{distribution: {module: ["file:line", ...]}}` for the imports of `paths` that are not
    the standard library or `local`; a module no installed distribution provides is listed
    under `"<not installed>"`."""
    found: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for module, where in imported_modules(paths).items():
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names or top in local:
            continue
        for distribution in distributions_of(module) or {"<not installed>"}:
            found[distribution][module] = where
    return found


def undeclared(found: dict[str, dict[str, list[str]]], declared: set[str]) -> list[str]:
    """One line a distribution of `found` not in `declared`: its modules, where imported."""
    lines = []
    for distribution, modules in sorted(found.items()):
        if distribution not in declared:
            where = sorted({w for ws in modules.values() for w in ws})
            names = sorted({m.partition(".")[0] for m in modules})
            lines.append(f"{distribution} ({', '.join(names)}): {', '.join(where[:3])}")
    return lines


def package_imports() -> dict[str, dict[str, list[str]]]:
    return third_party(sources(PACKAGE), {PACKAGE.name})


def test_every_imported_package_is_declared():
    """The package's imports are `[project.dependencies]`, or an extra other than `test` for
    one imported only when a kernel asks for it (pandas, for `to_dataframe()`)."""
    optional = set().union(*(names for extra, names in extras().items() if extra != "test"))
    assert undeclared(package_imports(), dependencies() | optional) == []


def test_every_package_the_tests_import_is_declared_for_them():
    folders = [ROOT / "tests", ROOT / "benchmarks"]
    local = {PACKAGE.name, *(p.name for p in folders)}
    local |= {p.stem for p in sources(*folders)}  # benchmarks import their siblings by name
    declared = dependencies().union(*extras().values())
    assert undeclared(third_party(sources(*folders), local), declared) == []


def test_every_declared_dependency_is_imported_or_needed_at_run_time():
    unused = dependencies() - set(package_imports()) - RUN_TIME_ONLY
    assert unused == set()
