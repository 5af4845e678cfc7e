"""A question's time: the deadline that bounds it, where its seconds went, and the steps a person sees."""

from __future__ import annotations

import time

import dspy
from dspy.utils.dummies import DummyLM

from nl2sparql.eval.scoring.program import spent
from nl2sparql.eval.scoring.scored import ScoredQuestion
from nl2sparql.kb.results import QueryResult, Term
from nl2sparql.modules.answer import LABEL_QUERY, prediction_json
from nl2sparql.modules.clock import Clock, current_call
from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime

from conftest import PREFIXES

GOOD = PREFIXES + 'SELECT ?lemma WHERE { GRAPH <http://liita.it/data> { ?lemma ontolex:writtenRep "casa"@it } }'
BROKEN = PREFIXES + "SELECT ?lemma WHERE { ?lemma ontolex:writtenRep "  # never parses


class SlowEndpoint:
    """An endpoint that answers every query with one lemma after `seconds`."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds

    def execute(self, query: str) -> QueryResult:
        time.sleep(self.seconds)
        if query.startswith(LABEL_QUERY.split("%s")[0]):  # the readable answer's label look-up
            return QueryResult(("iri", "label"))
        return QueryResult(("lemma",), ((Term("iri", "http://liita.it/data/id/lemma/1"),),))

    def close(self) -> None:
        pass


class SlowStep:
    """A generate or repair step that takes `seconds` before its module answers."""

    def __init__(self, step, seconds: float) -> None:
        self.step, self.seconds = step, seconds

    def __call__(self, **inputs):
        time.sleep(self.seconds)
        return self.step(**inputs)


def program(answers: list[str], endpoint=None, **settings) -> NL2SPARQL:
    dspy.configure(lm=DummyLM([{"sparql": a} for a in answers]))
    options = {"examples_k": 0, "ontology_k": 0, "ground_entities": False, "check_scope": False, **settings}
    return NL2SPARQL(ProgramSettings(**options), Runtime(endpoint=endpoint or SlowEndpoint()))


def test_a_deadline_stops_a_program_that_would_repair_forever_and_shows_the_best_query_so_far():
    prog = program([BROKEN] * 100_000, max_repairs=1_000_000, deadline_s=0.5)
    started = time.perf_counter()
    out = prog("Which lemmas are written 'casa'?")
    assert time.perf_counter() - started < 0.5 + 1.0
    assert out.stopped_early and len(out.attempts) > 3
    assert out.sparql.startswith(PREFIXES) and not out.ok
    assert any("Stopped early at the 0.5 s limit" in note for note in out.notes)
    assert prediction_json(out)["stopped_early"] is True


def test_no_more_candidates_are_sampled_once_the_deadline_has_passed():
    prog = program([BROKEN] * 10, candidates=5, max_repairs=0, deadline_s=0.3)
    prog.write.generate = SlowStep(prog.generate, 0.2)
    out = prog("Quali lemmi si scrivono 'casa'?")
    assert out.stopped_early and [a.step for a in out.attempts] == ["generate", "sample:1"]
    assert any(note.startswith("Interrotto dopo 0.3 s") for note in out.notes)


def test_a_question_answered_in_time_did_not_stop_early_and_no_deadline_means_none():
    out = program([GOOD], deadline_s=30)("Which lemmas are written 'casa'?")
    assert out.ok and not out.stopped_early and not out.notes
    assert Clock(None).stop_at is None and Clock(0).stop_at is None and not Clock(0).passed()


def test_lm_calls_and_queries_stop_a_little_before_the_deadline_so_the_answer_is_out_by_it():
    assert Clock(60.0, started=100.0).stop_at == 100.0 + 60.0 - 1.5  # 1.5 s to read the answer out
    assert Clock(0.5, started=0.0).stop_at == 0.5 - 0.025  # a short deadline keeps 5% of itself


def test_each_attempt_says_how_long_its_lm_call_and_its_execution_took():
    prog = program([BROKEN, GOOD], endpoint=SlowEndpoint(0.1))
    prog.write.generate = SlowStep(prog.generate, 0.2)
    prog.write.repair = SlowStep(prog.repair, 0.3)
    out = prog("Which lemmas are written 'casa'?")
    first, repair = out.attempts
    assert first.outcome == "syntax" and first.lm_seconds >= 0.2 and first.exec_seconds == 0.0
    assert repair.outcome == "ok" and repair.lm_seconds >= 0.3 and repair.exec_seconds >= 0.1
    shown = prediction_json(out)["attempts"][1]
    assert shown["lm_seconds"] >= 0.3 and shown["grammar_refused"] == 0 and shown["grammar_seconds"] == 0.0
    totals = spent(out)
    assert totals["lm_seconds"] >= 0.5 and totals["exec_seconds"] >= 0.1 and not totals["stopped_early"]


def test_what_the_local_engine_reports_during_an_lm_call_reaches_the_attempt():
    prog = program([GOOD])

    class Refusing:
        """Stands for the local engine: it adds the grammar's refusals to the program's current LM call."""

        def __init__(self, step) -> None:
            self.step = step

        def __call__(self, **inputs):
            call = current_call()
            assert call is not None and call.stop_at is not None and 0 < call.remaining() <= 60
            call.grammar_refused += 7
            call.grammar_seconds += 0.25
            return self.step(**inputs)

    prog.write.generate = Refusing(prog.generate)
    out = prog("Which lemmas are written 'casa'?")
    assert (out.attempts[0].grammar_refused, out.attempts[0].grammar_seconds) == (7, 0.25)
    assert current_call() is None  # only while the call runs


def test_progress_hears_each_step_in_order():
    steps: list[str] = []
    program([BROKEN, GOOD])("Which lemmas are written 'casa'?", progress=steps.append)
    assert steps == ["analyze", "generate", "run", "repair", "run"]


def test_reports_written_before_the_time_fields_still_load():
    old = {"id": "q1", "language": "it", "question": "d", "patterns": ["x"], "gold_sparql": "ASK {}",
           "seconds": 3.0}
    scored = ScoredQuestion.from_json(old)
    assert (scored.lm_seconds, scored.grammar_refused, scored.stopped_early) == (0.0, 0, False)
    assert ScoredQuestion.from_json(scored.to_json()) == scored
    again = ScoredQuestion.from_json({**old, "lm_seconds": 2.5, "grammar_refused": 4, "grammar_seconds": 1.5})
    assert again.to_json()["grammar_seconds"] == 1.5


class RunawayEndpoint(SlowEndpoint):
    """An endpoint whose queries run until the caller's stop time (or 30 s), like a query with no selective
    triple: it returns the flagged empty result a timed-out query gives."""

    def execute(self, query: str) -> QueryResult:
        from nl2sparql.kb.endpoint import time_allowed

        started = time.perf_counter()
        time.sleep(time_allowed(30.0, started))
        return QueryResult(("lemma",), truncated=True, timed_out=True)


def test_a_query_that_would_run_past_the_deadline_is_ended_by_it():
    prog = program([GOOD] * 10, endpoint=RunawayEndpoint(), deadline_s=1.0)
    started = time.perf_counter()
    out = prog("Which lemmas are written 'casa'?")
    assert time.perf_counter() - started < 1.0 + 1.0
    assert out.stopped_early and len(out.attempts) == 1
