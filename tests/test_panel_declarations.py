"""The panel's TypeScript declarations are generated from the Python ones (`panel_declarations`):
the shipped file is what the generator writes now, so a setting, an action or a limit changed in
Python without regenerating fails here, and the panel never types one of them by hand."""

import re
from pathlib import Path

import pytest
from pydantic import create_model
from pydantic.fields import FieldInfo

from jupyter_copilot_room import panel_declarations, rule_cases, typescript
from jupyter_copilot_room.access import rules
from jupyter_copilot_room.access.roles import Action, Role
from jupyter_copilot_room.settings import RoomSettings


def test_the_shipped_panel_declarations_are_the_ones_the_python_declarations_make():
    """`python -m jupyter_copilot_room.panel_declarations` after changing a setting, an action
    or a limit in events/."""
    shipped = panel_declarations.OUTPUT.read_text()
    assert shipped == panel_declarations.declarations(), (
        f"run python -m {panel_declarations.MODULE}"
    )


def test_every_setting_is_declared_with_its_help_bounds_and_default_in_order():
    declared = [
        panel_declarations.setting_declaration(name, field)
        for name, field in RoomSettings.model_fields.items()
    ]
    assert [entry["name"] for entry in declared] == list(RoomSettings.model_fields)
    by_name = {entry["name"]: entry for entry in declared}
    assert by_name["execution_timeout"] == {
        "name": "execution_timeout",
        "kind": "number",
        "description": RoomSettings.model_fields["execution_timeout"].description,
        "default": 300.0,
        "gt": 0,
        "le": 86_400,
    }
    assert by_name["max_waiting_prompts"]["kind"] == "integer"
    assert by_name["authors_can_revert"]["kind"] == "boolean"
    assert by_name["admission"]["choices"] == ["ask-host", "viewer", "member", "refuse"]
    assert by_name["approval_policy"]["default"]["shell"] == {"default": "ask", "rules": []}
    assert all(entry["description"] for entry in declared), "every setting needs help text"


def test_every_action_of_the_role_table_is_in_the_panels_action_type():
    text = panel_declarations.declarations()
    union = text.split("export type Action =", 1)[1].split(";", 1)[0]
    assert [member.strip(" |'\n") for member in union.split("\n") if member.strip()] == [
        action.value for action in Action
    ]


def test_a_setting_the_panel_has_no_editor_for_fails_the_generation():
    Odd = create_model("Odd", colour=(str, FieldInfo(default="red", description="A colour.")))
    with pytest.raises(TypeError, match="colour: no panel kind for <class 'str'>"):
        panel_declarations.setting_declaration("colour", Odd.model_fields["colour"])


def test_strings_take_the_quotes_prettier_gives_them():
    assert typescript.string("plain") == "'plain'"
    assert typescript.string("a host's") == '"a host\'s"'
    assert typescript.string("'ask' or \"two\"") == "'\\'ask\\' or \"two\"'"
    assert typescript.string("'a' 'b' \"c\"") == "\"'a' 'b' \\\"c\\\"\""


def test_a_list_that_does_not_fit_the_line_is_broken_one_item_a_line():
    assert typescript.const("X", ["a"], "Short.") == "/** Short. */\nexport const X = ['a'];"
    broken = typescript.const("LONG_NAME", ["x" * 40, "y" * 40], "Long.")
    x, y = "x" * 40, "y" * 40
    assert broken.splitlines()[1:] == ["export const LONG_NAME = [", f"  '{x}',", f"  '{y}'", "];"]


def test_the_panel_types_no_word_of_the_wire_by_hand():
    """The vocabulary the panel switches on is generated once; a hand-typed copy would drift."""
    generated = re.findall(
        r"^export (?:type|interface) (\w+)", panel_declarations.declarations(), re.M
    )
    for word in ["Role", "PromptState", "AgentState", "RequestOutcome", "ExportFormat"]:
        assert word in generated
    source = Path(panel_declarations.OUTPUT).parents[1]
    typed_by_hand = {
        f"{path.relative_to(source)}: {name}"
        for path in [*source.rglob("*.ts"), *source.rglob("*.tsx")]
        if "generated" not in path.parts
        for name in re.findall(
            r"^export (?:type|interface) (\w+)\b(?! \}) *[=<{]", path.read_text(), re.M
        )
        if name in generated
    }
    assert typed_by_hand == set()


def test_the_shipped_rule_cases_are_what_access_rules_answers_now():
    """labextension/test/rule_cases.spec.ts tests policy.ts against this table: a rule changed in
    `access/rules.py` without regenerating it fails here, and then there if the panel differs."""
    assert rule_cases.OUTPUT.read_text() == rule_cases.rule_cases(), (
        f"run python -m {panel_declarations.MODULE}"
    )


def test_the_rule_cases_cover_every_role_terms_and_card_shape():
    table = rule_cases.case_table()
    assert {person["role"] for person in table["people"]} == {role.value for role in Role}
    assert {person["username"] for person in table["people"]} == {"alice", "bob", "carol"}
    assert {tuple(person["can"]) for person in table["people"]} == {
        tuple(rules.listed(role, terms)) for role in Role for terms in rules_terms()
    }
    shapes = table["cards"]
    assert rules.admission_answerers() in shapes
    assert any(card.get("excluded") for card in shapes)  # a promote card of two
    assert any(not card["roles"] for card in shapes)  # a settled card
    assert len(table["answers"]) == len(shapes) * len(table["people"])


def rules_terms() -> list[rules.Terms]:
    return [
        rules.Terms(chat, revert, claim)
        for chat in (False, True)
        for revert in (False, True)
        for claim in (False, True)
    ]
