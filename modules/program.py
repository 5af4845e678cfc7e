"""The composed program: analyze → retrieve → generate → validate → execute → repair."""

from __future__ import annotations

import functools
import re
import time
from dataclasses import dataclass
from typing import Callable, Sequence

import dspy
from nl2sparql.modules.answer import answer_for
from nl2sparql.modules.clock import Clock
from nl2sparql.modules.compact import generate_adapter
from nl2sparql.modules.attempt import endpoint_limits, run_query
from nl2sparql.modules.fixes import retag_dialect_words
from nl2sparql.modules.plan_choice import decide, rank_candidates, shown
from nl2sparql.modules.question import check_question
from nl2sparql.modules.refine import Context, GenerateAndRepair
from nl2sparql.modules.runtime import Runtime
from nl2sparql.modules.scope import CheckScope, off_topic_prediction
from nl2sparql.modules.steps import Analyze, Generate, Repair, describe
from nl2sparql.retrieval.constraints import format_constraints, select_constraints
from nl2sparql.retrieval.language import guess_language
from nl2sparql.retrieval.ontology import format_terms
from nl2sparql.retrieval.patterns import PatternAnalysis
from nl2sparql.signatures import GenerateSparqlInConversation


@dataclass(frozen=True)
class ProgramSettings:
    """Knobs of the pipeline that are not compiled: repair budget and how much context generation sees."""

    max_repairs: int = 2
    # False: a query that runs and returns no rows is answered as it is once the deterministic fixes are
    # tried, without an LM repair (it rarely finds the rows and costs a second completion).
    repair_empty: bool = True
    examples_k: int = 3
    ontology_k: int = 4
    analyze_with_lm: bool = False
    use_examples: bool = True
    use_constraints: bool = True
    ground_entities: bool = True
    # False: examples are shown without their PREFIX lines, so the model need not write them either (fewer
    # prompt and completion tokens); the known prefixes are declared after generation (modules/fixes.py).
    demo_prefixes: bool = True
    # Execution-guided choice: when the first query fails or returns nothing, sample this many more (at
    # `candidate_temperature`), execute them all and answer with the result most agree on (modules/choice.py);
    # repair runs only when none of them returns rows. 0: off.
    candidates: int = 0
    candidate_temperature: float = 0.7
    # The relevance step before generate (modules/scope.py): an off-topic question is answered with what the
    # knowledge base holds, without SPARQL. False: every question goes to generate.
    check_scope: bool = True
    # Seconds a question may take: LM calls stop generating when it runs out, repairs and candidates are
    # skipped once it has passed, and the answer says it stopped early (modules/clock.py). 0 or None: none.
    deadline_s: float | None = 60.0
    # True: the generate step is asked in the compact format a fine-tuned version was trained on (the task in one
    # paragraph, no field descriptions, empty inputs left out; modules/compact.py).
    compact_prompt: bool = False
    # What the follow-up step's rewrite sees of the last turn (modules/followup.py): True, its question, SPARQL and
    # a summary of its answer; False, the question and the answer alone (a prompt about half as long).
    followup_sparql: bool = True
    # How many first rows of each earlier answer the rewrite sees (its row count and columns are always there).
    followup_rows: int = 3
    # How a follow-up is answered (modules/conversation.py): "rewrite", made a standalone question first (a second
    # LM call); "chat", the generate step reads the earlier turns as chat turns itself (one call; for a version
    # fine-tuned on such turns).
    followup_mode: str = "rewrite"
    # Choose, don't guess (modules/plan_choice.py; a version with a ranker): the enumerator's executed plans are
    # scored by the ranker; the best answers without the generator when its probability reaches `rank_accept`,
    # answers after the generator when it reaches `rank_fallback` or the generator's answer agrees with a candidate,
    # and the generator's query answers otherwise. `rank_budget_s`: seconds the enumeration may take.
    rank: bool = False
    rank_accept: float = 0.9
    rank_fallback: float = 0.5
    rank_budget_s: float = 1.6
    # Honest doubt (modules/doubt.py): an empty answer, a zero count, a "no" or a close call between two readings is
    # said to be in doubt, explained from its plan and shown with the enumerator's other readings (a few seconds).
    doubt: bool = True


class NL2SPARQL(dspy.Module):
    """Question → SPARQL, executed and repaired, with a readable answer. `nl2sparql.load` names it (`version`,
    `manifest`); `close()` or a `with` block releases the endpoint."""

    def __init__(self, settings: ProgramSettings | None = None, runtime: Runtime | None = None,
                 version: str = "uncompiled", manifest: dict | None = None):
        super().__init__()
        self.settings = settings or ProgramSettings()
        self.runtime = runtime or Runtime()
        self.version = version
        self.manifest = dict(manifest or {})
        self.analyze = Analyze(use_lm=self.settings.analyze_with_lm)
        self.scope = CheckScope(self.runtime)
        self.generate = Generate()
        self.repair = Repair()
        # After generate and repair, so the saved state keeps naming their predictors generate.* and repair.*.
        self.write = GenerateAndRepair(self.generate, self.repair, self.runtime)
        # The LM that writes a follow-up read in chat mode (a paired version's follow-up adapter, set by `load`);
        # None: the steps' own LM answers every question.
        self.followup_lm = None
        # The version's trained ranker (modules/ranker.py, set by `load`); None: the generator answers alone.
        self.ranker = None

    def __repr__(self) -> str:
        return f"NL2SPARQL(version={self.version!r}, optimizer={self.manifest.get('optimizer', 'none')!r})"

    def __enter__(self) -> NL2SPARQL:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def conversation(self, followup=None):
        """A conversation over this program: follow-ups are read against the earlier turns
        (`modules/conversation.py`)."""
        from nl2sparql.modules.conversation import Conversation

        return Conversation(self, followup)

    def close(self) -> None:
        """Release the endpoint (its worker process or HTTP session); a later question opens it again."""
        self.runtime.close()

    def forward(self, question: str, exclude_ids: tuple[str, ...] | frozenset = (),
                progress: Callable[[str], None] | None = None, history: dspy.History | None = None) -> dspy.Prediction:
        """`progress`, when given, hears the name of each step as it starts (analyze, generate, run, repair).
        `history` (see `chat_history`): a follow-up answered inside its conversation, not judged for scope alone.
        A shared LM server that stops answering is its one-line LMServerError (nothing is answered half)."""
        from nl2sparql.modules.server_lm import server_failure

        try:
            return self._answer(question, exclude_ids, progress, history)
        except Exception as error:
            failure = server_failure(error)
            if failure is None:
                raise
            raise failure from None

    def _answer(self, question: str, exclude_ids, progress, history) -> dspy.Prediction:
        from dspy.utils.usage_tracker import UsageTracker

        question = check_question(question)
        started = time.perf_counter()
        clock = Clock(self.settings.deadline_s, progress, started)
        tracker = UsageTracker()
        with dspy.context(usage_tracker=tracker):
            scope = None
            if self.settings.check_scope and history is None:
                clock.step("scope")
                scope = self.scope(question=question)
            if scope is not None and not scope.in_scope:
                return off_topic_prediction(question, scope, _usage(scope.lm_calls, tracker),
                                            time.perf_counter() - started)
            clock.step("analyze")
            analysis, grounding, context = self._prepare(question, exclude_ids)
            inputs = _generate_inputs(question, analysis, context)
            if history is not None:
                inputs["history"] = history
            ranking, chosen, reason, written = self._choose(question, inputs, context, clock, history)
        attempts, best = (written.attempts, written.best) if written is not None else ([], None)
        if chosen is not None:
            best = run_query("plan", chosen.sparql, self.runtime.endpoint, endpoint_limits(self.runtime),
                             clock.stop_at)
            attempts = [*attempts, best]
        readable = answer_for(best.result, question, self.runtime.endpoint)
        understood, doubt = self._understanding(question, best, chosen, ranking, clock)
        return dspy.Prediction(
            question=question, sparql=best.sparql, result=best.result, answer=readable.text, readable=readable,
            rows=best.result.values() if best.result is not None else [],
            variables=list(best.result.variables) if best.result is not None else [],
            patterns=list(analysis.patterns), entities=list(analysis.entities), dialects=list(analysis.dialects),
            attempts=attempts, errors=[f"{a.outcome}: {a.detail}" for a in attempts if a.outcome != "ok"],
            grounding=[g.to_json() for g in grounding],
            candidates=[r.to_json() for r in shown(ranking)] if ranking else [],
            choice={"answered_by": "plan" if chosen is not None else "generator", "reason": reason,
                    "reading": chosen.reading if chosen is not None else "",
                    "enumeration_seconds": round(ranking.seconds, 3)} if ranking else None,
            understood_as=understood, doubt=doubt.to_json() if doubt is not None else None,
            notes=_notes(grounding, question) + _stopped_note(clock, question),
            stopped_early=clock.stopped_early, in_scope=True, scope_reason=scope.reason if scope else "",
            ok=best.outcome in ("ok", "lint", "empty"),
            usage=_usage(analysis.lm_calls + (written.calls if written is not None else 0)
                         + (scope.lm_calls if scope else 0), tracker),
            seconds=time.perf_counter() - started)

    def _choose(self, question: str, inputs: dict, context: Context, clock: Clock, history):
        """(ranking, chosen candidate or None, why, the generator's prediction or None when it was not asked)."""
        lm = self.followup_lm if history is not None else None
        if self.ranker is None or not self.settings.rank or history is not None:
            written = self.write(question=question, inputs=inputs, context=context, settings=self.settings,
                                 clock=clock, lm=lm)
            return None, None, "", written
        clock.step("enumerate")
        ranking = rank_candidates(question, self.ranker, self.runtime, self.settings, clock.stop_at)
        chosen, reason = decide(ranking, self.settings)
        if chosen is not None:
            chosen.chosen = True
            return ranking, chosen, reason, None
        written = self.write(question=question, inputs=inputs, context=context, settings=self.settings,
                             clock=clock, lm=lm)
        chosen, reason = decide(ranking, self.settings, written.best)
        if chosen is not None:
            chosen.chosen = True
        return ranking, chosen, reason, written

    def _understanding(self, question: str, best, chosen, ranking, clock: Clock):
        """What the answer was understood as (one line in the question's language) and its doubt, if any."""
        from nl2sparql.modules.doubt import find_doubt
        from nl2sparql.modules.plan_choice import ShortQueries
        from nl2sparql.modules.understood import faithful_plan, understood_as

        language = guess_language(question)
        if chosen is not None:
            plan, understood = chosen.plan, chosen.reading
        else:  # the generator's query read back, when the plan it reads as answers the same
            plan = faithful_plan(best.sparql, best.result, ShortQueries(self.runtime.endpoint, 2.0, clock.stop_at))
            understood = understood_as(best.sparql, language, plan)
        if not self.settings.doubt or best.outcome not in ("ok", "lint", "empty") or clock.passed():
            return understood, None
        return understood, find_doubt(question, best.result, plan, ranking, self.runtime, self.settings,
                                      clock.stop_at, language, on_doubt=lambda: clock.step("doubt"))

    def load_state(self, state, **options):
        """A program saved before the relevance step existed keeps the step's fresh predictor."""
        return super().load_state({"scope.predict": self.scope.predict.dump_state(), **state}, **options)

    def generate_messages(self, question: str, exclude_ids: tuple[str, ...] | frozenset = (),
                          history: dspy.History | None = None) -> list[dict]:
        """The chat messages the generate step sends for `question`, after `history` when given (what a fine-tuned
        model learns from)."""
        analysis, _, context = self._prepare(question, exclude_ids)
        predict = self.generate.predict
        adapter = generate_adapter(self.settings)
        inputs = _generate_inputs(question, analysis, context)
        if history is None:
            return adapter.format(predict.signature, predict.demos, inputs)
        return adapter.format(GenerateSparqlInConversation, predict.demos, {**inputs, "history": history})

    def chat_history(self, turns: Sequence[tuple[str, str]]) -> dspy.History:
        """Earlier turns, (question as asked, its query) oldest first, as the generate step's chat history: each
        question with the inputs generate was given for it, each query as the model writes it."""
        messages = []
        for question, sparql in turns:
            analysis, _, context = self._prepare(question, ())
            messages.append({**_generate_inputs(question, analysis, context), "sparql": self._demo_sparql(sparql)})
        return dspy.History(messages=messages)

    def generate_answer(self, sparql: str) -> str:
        """The generate step's answer text for a query, in the adapter's format (a fine-tuning target)."""
        adapter = generate_adapter(self.settings)
        return adapter.format_assistant_message_content(self.generate.predict.signature, {"sparql": sparql})

    def _prepare(self, question: str, exclude_ids) -> tuple[dspy.Prediction, list, Context]:
        analysis = self.analyze(question=question)
        grounding = self._ground(question, analysis)
        return analysis, grounding, self._context(question, analysis, frozenset(exclude_ids), grounding)

    def _ground(self, question: str, analysis: dspy.Prediction) -> list:
        """Check the question's words against the lemma bank; generation gets the bank's written forms
        (a word the bank lacks stays as typed, and the user is told the closest forms). When the question
        names a dialect, its dialect words are spotted and given with their language tag."""
        if not self.settings.ground_entities or not (analysis.entities or analysis.dialects):
            return []
        from nl2sparql.retrieval.grounding import ground_question

        grounding = ground_question(question, analysis.entities, analysis.dialects, self.runtime.lexicon,
                                    self.runtime.dialect_lexicons)
        analysis.entities = tuple(g.form or g.typed for g in grounding)
        unknown = [g.typed for g in grounding if not g.known]
        dialect_words = [f"{g.literal} ({g.dialect})" for g in grounding if g.dialect]
        analysis.plan = "; ".join(filter(None, [
            analysis.get("plan", ""), "dialect words, on the dialect side: " + ", ".join(dialect_words)
            if dialect_words else "", "not in the lemma bank: " + ", ".join(unknown) if unknown else ""]))
        return grounding

    def _context(self, question: str, analysis: dspy.Prediction, exclude_ids: frozenset,
                 grounding: list) -> Context:
        labels = tuple(analysis.patterns)
        constraints = format_constraints(select_constraints(labels)) if self.settings.use_constraints else ""
        examples = ""
        if self.settings.use_examples and self.settings.examples_k > 0:
            found = self.runtime.retriever.retrieve(question, top_k=self.settings.examples_k, exclude_ids=exclude_ids,
                                                    analysis=PatternAnalysis(scores={}, labels=labels))
            language = guess_language(question)
            examples = "\n\n".join(
                f"Question: {e.record.question_it if language == 'it' else e.record.question_en}\n"
                f"SPARQL:\n{self._demo_sparql(e.record.sparql)}" for e in found)
        notes = ""
        if self.settings.ontology_k > 0:
            notes = format_terms([t for t, _ in self.runtime.ontology.search(question, self.settings.ontology_k)])
        literals = {g.form: g.literal for g in grounding if g.dialect}
        empty_fixes = (functools.partial(retag_dialect_words, literals=literals),) if literals else ()
        return Context(constraints, examples, notes, empty_fixes)

    def _demo_sparql(self, sparql: str) -> str:
        return sparql.strip() if self.settings.demo_prefixes else without_prefix_lines(sparql)

_PREFIX_LINE = re.compile(r"^\s*PREFIX\s+[^\s:]*:\s*<[^>]*>[ \t]*\n?", re.IGNORECASE | re.MULTILINE)


def without_prefix_lines(sparql: str) -> str:
    """The query without its PREFIX declarations (add_missing_prefixes puts the known ones back)."""
    return _PREFIX_LINE.sub("", sparql.strip()).strip()


def _generate_inputs(question: str, analysis: dspy.Prediction, context: Context) -> dict[str, str]:
    return {"question": question, "analysis": describe(analysis), "constraints": context.constraints,
            "examples": context.examples, "schema_notes": context.schema_notes}


def _notes(grounding: list, question: str) -> list[str]:
    """What the user is told about the words of the question, in its language."""
    language = guess_language(question) if grounding else "en"
    return [m for m in (g.message(language) for g in grounding) if m]


def _stopped_note(clock: Clock, question: str) -> list[str]:
    if not clock.stopped_early:
        return []
    if guess_language(question) == "it":
        return [f"Interrotto dopo {clock.deadline_s:g} s (il limite per domanda): ecco la query migliore finora."]
    return [f"Stopped early at the {clock.deadline_s:g} s limit per question: this is the best query so far."]


def _usage(calls: int, tracker) -> dict:
    prompt = completion = 0
    for entries in tracker.usage_data.values():
        for entry in entries:
            prompt += int(entry.get("prompt_tokens") or entry.get("input_tokens") or 0)
            completion += int(entry.get("completion_tokens") or entry.get("output_tokens") or 0)
    return {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}
