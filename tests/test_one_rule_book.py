"""Who may do what is decided in `access/rules.py` alone (principle 8 of docs/architecture.md):
no Python outside `access/` compares a role, and no TypeScript outside `policy.ts` and
`generated/` reads one. A front, a handler or a view that re-derives a rule will one day
disagree with it; these tests fail the day one does."""

import ast
import re
from pathlib import Path

from jupyter_copilot_room.access.roles import Role

from .harness.helpers import parsed

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "jupyter_copilot_room"
PANEL = ROOT / "labextension" / "src"
ROLE_VALUES = {role.value for role in Role}
#: The role table's own names: comparing against them is comparing roles.
ROLE_NAMES = {"Role", "ADMITTED", "ANSWERING_ROLES", "ADMITTING_ROLES"}


def _mentions_a_role(node: ast.AST) -> bool:
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and part.id in ROLE_NAMES:
            return True
        if isinstance(part, ast.Attribute) and part.attr in ROLE_NAMES:
            return True
    return False


def _is_role_word(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in ROLE_VALUES


def _names_role(node: ast.AST) -> bool:
    """An operand that reads someone's role: `role`, `x.role`, `x["role"]`, `x.get("role")`."""
    text = ast.unparse(node)
    return bool(re.search(r"\brole\b", text))


def role_comparisons(source: str) -> list[str]:
    """Each comparison in `source` that compares a role, and each use of the bare role table's
    `can` (which ignores the room's settings that `rules.may` applies)."""
    found = []
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            word = any(_is_role_word(op) for op in operands)
            if any(_mentions_a_role(op) for op in operands) or (
                word and any(_names_role(op) for op in operands)
            ):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").endswith("roles"):
            found += [f"import {alias.name}" for alias in node.names if alias.name == "can"]
    return found


def test_no_python_outside_access_compares_a_role():
    offenders = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if "access" not in path.relative_to(PACKAGE).parts[:1]
        and (found := role_comparisons(path.read_text()))
    }
    assert offenders == {}


def test_the_python_check_sees_every_way_of_comparing_a_role():
    """The check itself: each of these is a rule re-derived, as 0.3 had them."""
    for source in [
        "if force and role != Role.HOST: pass",
        "admitted = role in ADMITTED",
        "x = role is Role.PENDING",
        'x = any(p.get("role") == "pending" for p in people)',
        "x = current not in (Role.MEMBER, Role.VIEWER)",
        "from ..access.roles import Action, can",
    ]:
        assert role_comparisons(source), source
    for source in ['x = role == "assistant"', "x = rules.admitted(role)", "x = a == b"]:
        assert not role_comparisons(source), source


#: A read of a role in TypeScript: `me.role`, `x['role']`, `role === ...`, `{ role } = x`.
TS_ROLE_READ = re.compile(
    r"\.role\b|\[\s*['\"]role['\"]\s*\]|\brole\s*[!=]==|[!=]==\s*role\b|\{[^}=]*\brole\b[^}]*\}\s*="
)


def role_reads(source: str) -> list[str]:
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.S)  # comments say what they like
    return [line.strip() for line in code.splitlines() if TS_ROLE_READ.search(line)]


def test_no_typescript_outside_policy_reads_a_role():
    offenders = {
        str(path.relative_to(PANEL)): found
        for path in sorted([*PANEL.rglob("*.ts"), *PANEL.rglob("*.tsx")])
        if path.name != "policy.ts"
        and "generated" not in path.relative_to(PANEL).parts
        and (found := role_reads(path.read_text()))
    }
    assert offenders == {}


def test_the_typescript_check_sees_a_role_read_and_not_an_aria_role():
    assert role_reads("const host = me?.role === 'host';")
    assert role_reads("if (me && !isAdmitted(me.role)) {")
    assert role_reads("const { role } = person;")
    assert not role_reads('<div className="x" role="status">')
    assert not role_reads("// a host's role is fixed by configuration (me.role)")
