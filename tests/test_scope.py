"""Nothing to translate and nothing LiITA holds: refused or answered at once, without an LM call (DummyLM)."""

from __future__ import annotations

import json
import random
import re

import dspy
import pytest
from click.testing import CliRunner
from dspy.utils.dummies import DummyLM

from nl2sparql.cli import main
from nl2sparql.data.dataset import load_dataset
from nl2sparql.data.off_topic import load_off_topic, off_topic_problems
from nl2sparql.errors import DatasetError, QuestionRejected
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime
from nl2sparql.modules.scope import CheckScope
from nl2sparql.retrieval.scope import load_scope_cues

EMPTY = {
    "empty": ("", "is empty"),
    "spaces": ("   ", "is empty"),
    "white space": ("\n\t \r\n", "is empty"),
    "punctuation": ("?!...", "has no words"),
    "digits": ("12345", "has no words"),
    "digits and signs": ("1 + 2 = ?", "has no words"),
    "symbols": ("€ % @ « » —", "has no words"),
    "too long": ("parola " * 300, "too long: 2,099 characters, the limit is 2,000"),
    "NUL": ("Quali lemmi\x00 esprimono gioia?", "control character (U+0000)"),
    "escape": ("\x1b[31mQuali lemmi esprimono gioia?", "control character (U+001B)"),
}


@pytest.fixture(scope="module")
def runtime():
    """The real retriever and off-topic index (e5, cached vectors); no endpoint: nothing here runs a query."""
    return Runtime(endpoint=object())


def in_scope_lm(n: int = 200) -> DummyLM:
    """A DummyLM that answers 'in scope' whenever the relevance step asks it."""
    return DummyLM([{"in_scope": "True"}] * n)


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_nothing_to_translate_is_a_one_line_error_without_an_lm_call(name, runtime):
    text, says = EMPTY[name]
    lm = DummyLM([])
    program = NL2SPARQL(ProgramSettings(), runtime)
    program.set_lm(lm)
    with pytest.raises(QuestionRejected, match=re.escape(says)) as caught:
        program(text)
    assert "\n" not in str(caught.value) and lm.history == []


@pytest.mark.parametrize("name", ["empty", "digits", "too long", "NUL"])
def test_the_cli_says_the_same_line_with_exit_2_and_loads_no_model(name, monkeypatch):
    def no_load(*args, **kwargs):
        raise AssertionError("a program was loaded for an empty question")

    monkeypatch.setattr("nl2sparql.artifacts.load.load", no_load)
    text, says = EMPTY[name]
    result = CliRunner().invoke(main, ["ask", text])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: the question"), result.output
    assert says in lines[0]


def test_the_toolbox_behind_mcp_and_the_web_page_says_the_same(runtime):
    from nl2sparql.serve.tools import Toolbox

    box = Toolbox(runtime=runtime, lm_object=DummyLM([]))
    for name in ("spaces", "digits", "escape"):
        text, says = EMPTY[name]
        with pytest.raises(QuestionRejected, match=re.escape(says)):
            box.translate(text)
    with pytest.raises(QuestionRejected, match="must be a string"):
        box.translate(None)


def test_the_off_topic_file_is_well_formed_and_half_in_each_language():
    questions = load_off_topic()
    assert len(questions) >= 80 and off_topic_problems(questions) == []
    assert sum(q.language == "it" for q in questions) == sum(q.language == "en" for q in questions)
    assert {q.split for q in questions} == {"train", "dev", "test"}


def test_off_topic_test_questions_are_sent_away_by_the_cheap_stage(runtime):
    lm = in_scope_lm()
    scope = CheckScope(runtime)
    test = [q for q in load_off_topic() if q.split == "test"]
    with dspy.context(lm=lm):
        judged = {q.question: scope(question=q.question) for q in test}
    kept = [question for question, out in judged.items() if out.in_scope]
    # The LM would have said "in scope" to every question it was asked: all were decided before it.
    assert kept == [] and lm.history == [] and all(out.reason for out in judged.values())


def test_in_scope_questions_pass_the_relevance_step(runtime):
    records = [r for r in load_dataset() if r.split in ("dev", "test")]
    sample = random.Random(29).sample(records, 40)
    questions = [r.question_it for r in sample[:20]] + [r.question_en for r in sample[20:]]
    questions += ["Quali parole siciliane significano 'cane'?", "Che emozioni evoca la parola 'pioggia'?"]
    cues = load_scope_cues()
    questions += [r["example_" + language] for r in cues.resources for language in ("it", "en")]
    scope = CheckScope(runtime)
    with dspy.context(lm=in_scope_lm()):
        refused = [q for q in questions if not scope(question=q).in_scope]
    assert refused == []


def test_an_off_topic_question_gets_what_liita_holds_in_its_language_and_no_query(runtime):
    lm = DummyLM([])
    program = NL2SPARQL(ProgramSettings(), runtime)
    program.set_lm(lm)
    out = program("Che tempo fa domani a Roma?")
    assert not out.in_scope and out.sparql == "" and out.attempts == [] and lm.history == []
    assert out.answer.startswith("Questa domanda non riguarda") and "siciliano e parmigiano" in out.answer
    assert "weather" in out.scope_reason and out.usage["calls"] == 0 and out.seconds < 2
    english = program("Write a Python function that sorts a list.")
    assert english.answer.startswith("This question is not about") and english.answer.count("\n- ") == 5


def test_the_step_can_be_turned_off_and_is_saved_with_the_program(runtime, tmp_path):
    lm = DummyLM([{"sparql": "SELEC"}])
    program = NL2SPARQL(ProgramSettings(check_scope=False, max_repairs=0), runtime)
    with dspy.context(lm=lm):
        out = program("Che tempo fa domani a Roma?")  # off: straight to generate, whose query does not parse
    assert out.in_scope and [a.outcome for a in out.attempts] == ["syntax"] and len(lm.history) == 1
    program.scope.predict.signature = program.scope.predict.signature.with_instructions("In or out?")
    program.save(str(tmp_path / "program.json"))
    assert "scope.predict" in json.loads((tmp_path / "program.json").read_text())
    loaded = NL2SPARQL(runtime=runtime)
    loaded.load(str(tmp_path / "program.json"))
    assert loaded.scope.predict.signature.instructions == "In or out?"


def test_the_local_engine_constrains_the_lm_stage_to_a_yes_or_no(tmp_path_factory):
    import os
    from pathlib import Path

    from llama_cpp import Llama

    from nl2sparql.modules.grammar import SCOPE_GRAMMAR, GrammarChecker, asks_for_scope
    from nl2sparql.modules.local_lm import LOCAL_MODELS, assemble
    from nl2sparql.paths import MODELS_ENV
    from nl2sparql.signatures import GenerateSparql, JudgeScope

    adapter = dspy.ChatAdapter()
    assert asks_for_scope(adapter.format(JudgeScope, [], {"question": "Blip?"}))
    assert not asks_for_scope(adapter.format(GenerateSparql, [], dict.fromkeys(GenerateSparql.input_fields, "x")))
    folder = Path(os.environ.get(MODELS_ENV) or tmp_path_factory.mktemp("models"))
    llama = Llama(model_path=str(assemble(LOCAL_MODELS["qwen-0.5b"], folder)), vocab_only=True, verbose=False)
    try:
        checker = GrammarChecker(llama, SCOPE_GRAMMAR)
        for value in (True, False):
            assert checker.accepts(adapter.format_assistant_message_content(JudgeScope, {"in_scope": value}).rstrip())
        refused = ["Yes, it is in scope.", "[[ ## in_scope ## ]]\nYes\n\n[[ ## completed ## ]]",
                   "[[ ## in_scope ## ]]\nTrue, it asks about words\n\n[[ ## completed ## ]]"]
        assert not any(checker.accepts(text) for text in refused)
    finally:
        llama.close()


def test_a_broken_off_topic_file_names_each_problem(tmp_path):
    from nl2sparql.data.off_topic import load_off_topic, off_topic_problems

    lines = [json.dumps({"id": "a", "question": "Che ore sono?", "language": "it", "kind": "chat", "split": "train"}),
             json.dumps({"id": "a", "question": "che ore sono", "language": "fr", "kind": "chat", "split": "dev"}),
             json.dumps({"id": "b", "question": "What time is it?", "language": "en", "kind": "gossip",
                         "split": "later"})]
    path = tmp_path / "off_topic.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problems = off_topic_problems(load_off_topic(path))
    for expected in [("a", "language 'fr' is not one of it, en"), ("b", "kind 'gossip' is not one of weather, "
                     "arithmetic, knowledge, people, code, chat, near-miss, nonsense"), ("a", "id used more than once"),
                     ("a", "question used more than once"), ("(file)", "no question has split 'test'")]:
        assert expected in problems
    path.write_text(lines[0][:-3] + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="off_topic.jsonl:1: not valid JSON"):
        load_off_topic(path)
