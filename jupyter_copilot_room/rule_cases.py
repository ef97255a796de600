"""The panel asks its rule functions (labextension/src/policy.ts: `mayAnswer`, `mayApprove`,
`waitsOn`, `whoApproves`, `stillMayApprove`, `mayChangeRole`, `mayWithdraw`, `mayRevert`,
`maySteer`, `mayRevertAnyway`, `isAdmitted`, `isAtTheDoor`) what `access/rules.py` decides on the
server. So that they cannot drift apart, this module writes what the Python rules answer over
their inputs taken systematically (every role, every `Terms`, each card shape the room makes,
the card's author, someone else it may name and someone it never names) as a case table, and
labextension/test/rule_cases.spec.ts runs the TypeScript over it.
`python -m jupyter_copilot_room.panel_declarations` writes it; a test checks it is current.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .access import rules
from .access.roles import Action, Role
from .access.rules import Terms

OUTPUT = Path(__file__).resolve().parent.parent / "labextension/test/generated/rule_cases.json"

#: The people a card can name: its author, someone else (who may approve it too), a stranger.
AUTHOR, OTHER, STRANGER = "alice", "bob", "carol"


#: What each column of a table's rows holds (`me` and `card`: an index in `people`, `cards`).
COLUMNS = {
    "answers": ["card", "me", "mayAnswer", "mayApprove", "waitsOn"],
    "words": ["card", "stillMayApprove", "whoApproves of 1", "whoApproves of 2"],
    "ownOrAny": ["me", "author", "mayWithdraw", "mayRevert", "maySteer", "mayRevertAnyway"],
    "changeRole": ["me", "person's role", "mayChangeRole"],
    "roles": ["role", "isAdmitted", "isAtTheDoor"],
}


def every_terms() -> list[Terms]:
    flags = itertools.product((False, True), repeat=3)
    return [Terms(chat, revert, claim) for chat, revert, claim in flags]


def cards() -> list[dict[str, Any]]:
    """Every shape of `answerers` the room writes: a request, question or execute card and a
    promote card, of one or two approvers, open or settled, approved by nobody, its author,
    someone else or both; and an admission card. Each shape once."""
    shapes = [
        rules.request_answerers(AUTHOR, needed, approvals, open_=open_, kind=kind)
        for needed, approvals, open_, kind in itertools.product(
            (1, 2),
            ((), (AUTHOR,), (OTHER,), (AUTHOR, OTHER)),
            (True, False),
            ("", rules.PROMOTE),
        )
    ]
    shapes.append(rules.admission_answerers())
    unique = {json.dumps(shape, sort_keys=True): shape for shape in shapes}
    return list(unique.values())


def _people() -> Iterator[tuple[dict[str, Any], Terms]]:
    """Each person as the panel knows them (`GET room`'s `me`), with the terms that made it."""
    for username, role, terms in itertools.product((AUTHOR, OTHER, STRANGER), Role, every_terms()):
        yield {"username": username, "role": role.value, "can": rules.listed(role, terms)}, terms


def _table(rows: Iterator[tuple[dict[str, Any], list[Any]]]) -> list[list[Any]]:
    """One row per distinct input: the panel sees `me.can`, not the terms behind it, so two
    terms that give the same `me` must give the same answers (else the panel could not agree)."""
    table: dict[str, list[Any]] = {}
    for key, row in rows:
        text = json.dumps(key, sort_keys=True)
        if table.setdefault(text, row) != row:
            raise ValueError(f"the rules answer {key} in two ways the panel cannot tell apart")
    return list(table.values())


def case_table() -> dict[str, Any]:
    """What the Python rules answer, as rows the TypeScript test reads."""
    shapes = cards()
    people = list(_people())
    mes = list({json.dumps(me, sort_keys=True): me for me, _ in people}.values())
    index = {json.dumps(me, sort_keys=True): n for n, me in enumerate(mes)}

    def me_of(me: dict[str, Any]) -> int:
        return index[json.dumps(me, sort_keys=True)]

    def answers() -> Iterator[tuple[dict[str, Any], list[Any]]]:
        for (c, card), (me, _) in itertools.product(enumerate(shapes), people):
            who, role = me["username"], Role(me["role"])
            row = [c, me_of(me)] + [
                rule(card, who, role)
                for rule in (rules.may_answer, rules.may_approve, rules.waits_on)
            ]
            yield {"card": c, "me": me}, row

    def own_or_any() -> Iterator[tuple[dict[str, Any], list[Any]]]:
        for (me, terms), author in itertools.product(people, (AUTHOR, OTHER)):
            who, role = me["username"], Role(me["role"])
            row = [
                me_of(me),
                author,
                rules.may_withdraw(role, who, author, terms),
                rules.may_revert(role, who, author, terms),
                rules.may_steer(role, who, author),
                rules.may_revert_anyway(role, terms),
            ]
            yield {"me": me, "author": author}, row

    def change_role() -> Iterator[tuple[dict[str, Any], list[Any]]]:
        for (me, terms), person in itertools.product(people, Role):
            role = Role(me["role"])
            allowed = rules.may(role, Action.MANAGE_PEOPLE, terms) and rules.re_roleable(person)
            yield {"me": me, "person": person.value}, [me_of(me), person.value, allowed]

    return {
        "about": f"written by `python -m {__package__}.panel_declarations` from access/rules.py",
        "columns": COLUMNS,
        "people": mes,
        "cards": shapes,
        "answers": _table(answers()),
        "words": [
            [c, rules.still_may(card), *(rules.who_approves(card, needed) for needed in (1, 2))]
            for c, card in enumerate(shapes)
        ],
        "ownOrAny": _table(own_or_any()),
        "changeRole": _table(change_role()),
        "roles": [[role.value, rules.admitted(role), rules.at_the_door(role)] for role in Role],
    }


def rule_cases() -> str:
    """The text of the shipped table, one row a line, so a changed rule shows as changed rows."""
    parts = []
    for key, value in case_table().items():
        if isinstance(value, list):
            text = "[\n" + ",\n".join(f"    {json.dumps(row)}" for row in value) + "\n  ]"
        else:
            text = json.dumps(value)
        parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_rule_cases() -> None:
    """Write the table (run after changing a rule the panel mirrors)."""
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(rule_cases())
