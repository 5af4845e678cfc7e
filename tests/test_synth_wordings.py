"""`optimize run --optimizer finetune --synth-wordings one`: each synthetic pair teaches one language, Italian and
English in turn, with its paraphrases in that language; curated records keep every wording."""

from __future__ import annotations

from click.testing import CliRunner

from nl2sparql.data.dataset import AnswerVariables, Record
from nl2sparql.optimize.finetune.examples import build_examples
from nl2sparql.optimize.finetune.synth import one_language_each


def pair(number: int, paraphrases: dict | None = None) -> Record:
    return Record(id=f"syn-{number}", question_it=f"domanda {number}", question_en=f"question {number}",
                  sparql="SELECT ?x WHERE { ?x ?p ?o }", patterns=("lemma_lookup",), complexity="simple",
                  answer_variables=AnswerVariables(), split="train", paraphrases=paraphrases or {},
                  source="synth")


class Prompter:
    """The two calls build_examples makes of a program: the chat request for a wording, the answer's format."""

    def generate_messages(self, question: str, exclude_ids=()) -> list[dict]:
        return [{"role": "user", "content": question}]

    def generate_answer(self, sparql: str) -> str:
        return sparql


def test_one_language_per_pair_in_turn_with_its_paraphrases():
    pairs = [pair(0, {"it": ("riformulata 0",), "en": ("reworded 0",)}), pair(1, {"en": ("reworded 1",)}), pair(2)]
    examples = build_examples(Prompter(), pairs, wordings_of=one_language_each(pairs))
    assert [(e.record_id, e.language, e.question) for e in examples] == [
        ("syn-0", "it", "domanda 0"), ("syn-0", "it", "riformulata 0"),
        ("syn-1", "en", "question 1"), ("syn-1", "en", "reworded 1"),
        ("syn-2", "it", "domanda 2")]
    # By default every wording is an example, as for curated records.
    assert len(build_examples(Prompter(), pairs)) == 9


def test_the_option_reaches_the_fine_tune(monkeypatch):
    from nl2sparql.cli import main
    from nl2sparql.errors import Nl2SparqlError
    from nl2sparql.optimize.finetune import job

    seen = []

    def stop(config, **_):
        seen.append(config)
        raise Nl2SparqlError("stopped before training")

    monkeypatch.setattr(job, "run_finetune", stop)
    args = ["optimize", "run", "--optimizer", "finetune", "--lm", "local/qwen-0.5b"]
    assert "stopped before training" in CliRunner().invoke(main, [*args, "--synth-wordings", "one"]).output
    assert "stopped before training" in CliRunner().invoke(main, args).output
    assert [c.synth_wordings for c in seen] == ["one", "both"] and seen[0].to_json()["synth_wordings"] == "one"
    assert CliRunner().invoke(main, [*args, "--synth-wordings", "three"]).exit_code == 2
