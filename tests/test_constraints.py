from nl2sparql.retrieval.constraints import format_constraints, load_constraints, select_constraints
from nl2sparql.data.dataset import PATTERNS


def test_every_pattern_gets_base_rules_first():
    for pattern in PATTERNS:
        chosen = select_constraints({pattern})
        assert chosen[0].name == "base"


def test_translation_rules_say_the_direction():
    text = format_constraints(select_constraints({"translation"}))
    assert "Italian → dialect" in text and "LexicalReources" in text
    assert "elita:HasEmotion" not in text


def test_emotion_and_relation_rules_are_selected_together():
    names = {c.name for c in select_constraints({"emotion", "semantic_relation"})}
    assert {"base", "emotion", "complit"} <= names and "translation" not in names


def test_catalog_patterns_are_known():
    known = set(PATTERNS) | {"*"}
    for constraint_set in load_constraints():
        assert constraint_set.patterns <= known, constraint_set.name
        assert constraint_set.rules
