"""The compact prompt of a fine-tuned generate step: fewer tokens, the same markers, answers parsed as before."""

from __future__ import annotations

import dspy
from dspy.utils.dummies import DummyLM

from nl2sparql.modules.compact import CompactAdapter, generate_adapter
from nl2sparql.modules.grammar import asks_for_sparql
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime

from conftest import PREFIXES

QUESTION = "Quali lemmi si scrivono «casa»?"
CASA = PREFIXES + 'SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } }'
FINETUNED = {"use_examples": False, "use_constraints": False, "ontology_k": 0, "check_scope": False}


def _messages(endpoint, compact: bool) -> list[dict]:
    program = NL2SPARQL(ProgramSettings(**FINETUNED, compact_prompt=compact), Runtime(endpoint=endpoint))
    return program.generate_messages(QUESTION)


def test_the_compact_prompt_drops_descriptions_and_empty_fields_but_keeps_the_markers(endpoint):
    full, compact = _messages(endpoint, False), _messages(endpoint, True)
    assert [m["role"] for m in compact] == ["system", "user"]
    assert "Your input fields are" in full[0]["content"] and "Your input fields are" not in compact[0]["content"]
    assert compact[0]["content"].startswith("Write one SPARQL query")
    user = compact[1]["content"]
    assert "[[ ## question ## ]]\n" + QUESTION in user and "[[ ## analysis ## ]]" in user
    assert "[[ ## examples ## ]]" not in user and "[[ ## constraints ## ]]" not in user  # empty for this version
    assert asks_for_sparql(compact)  # the local engine still applies its SPARQL grammar
    assert sum(len(m["content"]) for m in compact) < 0.5 * sum(len(m["content"]) for m in full)


def test_a_compact_program_is_asked_compactly_and_reads_the_answer(endpoint):
    lm = DummyLM([{"sparql": CASA}])
    dspy.configure(lm=lm)
    program = NL2SPARQL(ProgramSettings(**FINETUNED, compact_prompt=True), Runtime(endpoint=endpoint))
    out = program(QUESTION)
    assert out.ok and out.rows
    sent = lm.history[-1]["messages"]
    assert "Your input fields are" not in sent[0]["content"] and "[[ ## examples ## ]]" not in sent[1]["content"]


def test_the_adapter_follows_the_setting():
    assert isinstance(generate_adapter(ProgramSettings(compact_prompt=True)), CompactAdapter)
    assert not isinstance(generate_adapter(ProgramSettings()), CompactAdapter)
