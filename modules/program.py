"""The composed program: analyze → retrieve → generate → validate → execute → repair."""

from __future__ import annotations

import functools
import re
import time
from dataclasses import asdict, dataclass, field

import dspy

from nl2sparql.errors import EndpointError, QueryRejected, QuerySyntaxError
from nl2sparql.kb.guard import check
from nl2sparql.kb.lint import Finding, lint
from nl2sparql.kb.results import QueryResult
from nl2sparql.modules.answer import answer_for
from nl2sparql.modules.fixes import EMPTY_RESULT_FIXES, PARSE_FIXES, SYNTAX_FIXES, apply_fixes, retag_dialect_words
from nl2sparql.modules.runtime import Runtime
from nl2sparql.modules.steps import Analyze, Generate, Repair, describe
from nl2sparql.retrieval.constraints import format_constraints, select_constraints
from nl2sparql.retrieval.language import guess_language
from nl2sparql.retrieval.ontology import format_terms
from nl2sparql.retrieval.patterns import PatternAnalysis


@dataclass(frozen=True)
class ProgramSettings:
    """Knobs of the pipeline that are not compiled: repair budget and how much context generation sees."""

    max_repairs: int = 2
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


@dataclass
class Attempt:
    """One query tried: which step wrote it, what happened, and deterministic fixes applied on the way."""

    step: str
    sparql: str
    outcome: str  # ok | lint | empty | syntax | rejected | error
    detail: str = ""
    rows: int = 0
    fixes: list[str] = field(default_factory=list)
    result: QueryResult | None = field(default=None, repr=False)
    findings: list[Finding] = field(default_factory=list, repr=False)
    notes: list[str] = field(default_factory=list)  # what the guard added (standard prefixes declared)

    @property
    def executed(self) -> bool:
        return self.result is not None

    def to_json(self) -> dict:
        data = asdict(self)
        data.pop("result")
        data["findings"] = [f.message for f in self.findings]
        return data


@dataclass(frozen=True)
class Context:
    constraints: str
    examples: str
    schema_notes: str
    empty_fixes: tuple = ()  # deterministic fixes for an empty answer that depend on this question


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
        self.generate = Generate()
        self.repair = Repair()

    def __repr__(self) -> str:
        return f"NL2SPARQL(version={self.version!r}, optimizer={self.manifest.get('optimizer', 'none')!r})"

    def __enter__(self) -> NL2SPARQL:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Release the endpoint (its worker process or HTTP session); a later question opens it again."""
        self.runtime.close()

    def forward(self, question: str, exclude_ids: tuple[str, ...] | frozenset = ()) -> dspy.Prediction:
        from dspy.utils.usage_tracker import UsageTracker

        started = time.perf_counter()
        tracker = UsageTracker()
        calls = 0
        with dspy.context(usage_tracker=tracker):
            analysis, grounding, context = self._prepare(question, exclude_ids)
            calls += analysis.lm_calls
            inputs = _generate_inputs(question, analysis, context)
            sparql = self.generate(**inputs).sparql
            calls += 1
            attempts, chosen = self._sample_when_failed(self._run("generate", sparql), inputs)
            calls += len(attempts) - 1
            if chosen is None:
                more, repair_calls = self._validate_and_repair(question, attempts[0], context)
                attempts += more
                calls += repair_calls
        best = chosen or _best(attempts)
        readable = answer_for(best.result, question, self.runtime.endpoint)
        return dspy.Prediction(
            question=question, sparql=best.sparql, result=best.result, answer=readable.text, readable=readable,
            rows=best.result.values() if best.result is not None else [],
            variables=list(best.result.variables) if best.result is not None else [],
            patterns=list(analysis.patterns), entities=list(analysis.entities), dialects=list(analysis.dialects),
            attempts=attempts, errors=[f"{a.outcome}: {a.detail}" for a in attempts if a.outcome != "ok"],
            grounding=[g.to_json() for g in grounding],
            notes=_notes(grounding, question),
            ok=best.outcome in ("ok", "lint", "empty"), usage=_usage(calls, tracker),
            seconds=time.perf_counter() - started)

    def generate_messages(self, question: str, exclude_ids: tuple[str, ...] | frozenset = ()) -> list[dict]:
        """The chat messages the generate step sends for `question` (what a fine-tuned model learns from)."""
        analysis, _, context = self._prepare(question, exclude_ids)
        predict = self.generate.predict
        adapter = dspy.settings.adapter or dspy.ChatAdapter()
        return adapter.format(predict.signature, predict.demos, _generate_inputs(question, analysis, context))

    def generate_answer(self, sparql: str) -> str:
        """The generate step's answer text for a query, in the adapter's format (a fine-tuning target)."""
        adapter = dspy.settings.adapter or dspy.ChatAdapter()
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

    def _sample_when_failed(self, first: Attempt, inputs: dict[str, str]) -> tuple[list[Attempt], Attempt | None]:
        """The first attempt, plus sampled candidates when it failed; the one chosen by execution, if any."""
        if first.outcome in ("ok", "lint") or self.settings.candidates < 1:
            return [first], None
        from nl2sparql.modules.choice import choose_by_execution

        attempts = [first]
        for rollout in range(1, self.settings.candidates + 1):
            config = {"temperature": self.settings.candidate_temperature, "rollout_id": rollout}
            attempts.append(self._run(f"sample:{rollout}", self.generate(**inputs, config=config).sparql))
        return attempts, choose_by_execution(attempts)

    def _validate_and_repair(self, question: str, first: Attempt, context: Context) -> tuple[list[Attempt], int]:
        """The first attempt, then deterministic fixes and LM repairs until one runs (returned without `first`)."""
        attempts: list[Attempt] = []
        step, calls, empty_repaired, tried = "generate", 0, False, set()
        sparql = first.sparql
        while True:
            attempt = first if step == "generate" else self._run(step, sparql)
            attempts.append(attempt)
            tried.add(attempt.sparql)
            if attempt.outcome == "ok":
                break
            if attempt.outcome == "empty":
                fixed, fixes = apply_fixes(attempt.sparql, EMPTY_RESULT_FIXES + context.empty_fixes)
                if fixes and fixed not in tried:
                    step, sparql = "fix:" + "+".join(f.name for f in fixes), fixed
                    continue
            if calls >= self.settings.max_repairs or (attempt.outcome == "empty" and empty_repaired):
                break
            empty_repaired |= attempt.outcome == "empty"
            sparql = self.repair(question=question, failed_sparql=attempt.sparql,
                                 diagnosis=_diagnosis(attempt, context), history=_history(attempts),
                                 constraints=context.constraints).sparql
            step, calls = "repair", calls + 1
        return attempts[1:], calls

    def _limits(self):
        """The guard's limits the endpoint is configured with (an endpoint handed in keeps its own)."""
        return getattr(getattr(self.runtime.endpoint, "config", None), "limits", None) \
            or self.runtime.config.endpoint.limits

    def _run(self, step: str, sparql: str) -> Attempt:
        """Deterministic fixes, guard, lint, then execution; never executes what the guard refuses."""
        sparql, fixes = apply_fixes(sparql, SYNTAX_FIXES)
        names = [f.name for f in fixes]
        try:
            try:
                checked = check(sparql, self._limits())
            except QuerySyntaxError:
                repaired, more = apply_fixes(sparql, PARSE_FIXES)
                if not more:
                    raise
                checked = check(repaired, self._limits())  # only a fix that makes the query parse is kept
                sparql, names = repaired, names + [f.name for f in more]
        except QueryRejected as error:
            return Attempt(step, sparql, "rejected", str(error), fixes=names)
        except QuerySyntaxError as error:
            return Attempt(step, sparql, "syntax", str(error), fixes=names)
        findings = lint(sparql)
        notes = [checked.note] if checked.note else []
        try:
            result = self.runtime.endpoint.execute(sparql)
        except QuerySyntaxError as error:  # the store's parser is stricter than rdflib's (unbound SELECT vars)
            return Attempt(step, sparql, "syntax", str(error), fixes=names, findings=findings, notes=notes)
        except EndpointError as error:
            return Attempt(step, sparql, "error", str(error), fixes=names, findings=findings, notes=notes)
        empty = result.boolean is None and not result.rows
        if empty:
            outcome, detail = "empty", "the query ran and returned no rows"
        elif findings:
            outcome, detail = "lint", "; ".join(f.message for f in findings)
        else:
            outcome, detail = "ok", ""
        return Attempt(step, sparql, outcome, detail, len(result.rows), names, result, findings, notes)


_PREFIX_LINE = re.compile(r"^\s*PREFIX\s+[^\s:]*:\s*<[^>]*>[ \t]*\n?", re.IGNORECASE | re.MULTILINE)


def without_prefix_lines(sparql: str) -> str:
    """The query without its PREFIX declarations (add_missing_prefixes puts the known ones back)."""
    return _PREFIX_LINE.sub("", sparql.strip()).strip()


def _generate_inputs(question: str, analysis: dspy.Prediction, context: Context) -> dict[str, str]:
    return {"question": question, "analysis": describe(analysis), "constraints": context.constraints,
            "examples": context.examples, "schema_notes": context.schema_notes}


def _diagnosis(attempt: Attempt, context: Context) -> str:
    """What the repair step is told; an empty answer gets the ontology hits already found for the question."""
    if attempt.outcome == "empty":
        lines = ["The query ran and returned no rows. Check written forms (lower case, accents, @it), the "
                 "graph of each triple, the direction of relations, and these properties:", context.schema_notes]
        lines += [f"- {f.message}" for f in attempt.findings]
        return "\n".join(line for line in lines if line)
    if attempt.outcome == "lint":
        return "The query runs but breaks LiITA rules:\n" + "\n".join(f"- {f.message}" for f in attempt.findings)
    return {"syntax": "The query does not parse: ", "rejected": "The query was refused: ",
            "error": "The endpoint failed: "}[attempt.outcome] + attempt.detail


def _notes(grounding: list, question: str) -> list[str]:
    """What the user is told about the words of the question, in its language."""
    language = guess_language(question) if grounding else "en"
    return [m for m in (g.message(language) for g in grounding) if m]


def _history(attempts: list[Attempt]) -> str:
    return "\n".join(f"{i}. {a.step}: {a.outcome}" + (f" ({a.detail[:160]})" if a.detail else "")
                     for i, a in enumerate(attempts, 1))


def _rank(attempt: Attempt) -> int:
    return {"ok": 3, "lint": 2, "empty": 1}.get(attempt.outcome, 0)


def _best(attempts: list[Attempt]) -> Attempt:
    """The last query when it succeeded; otherwise the first of the best-ranked (first valid as fallback)."""
    if attempts[-1].outcome == "ok":
        return attempts[-1]
    top = max(_rank(a) for a in attempts)
    return next(a for a in attempts if _rank(a) == top) if top else attempts[-1]


def _usage(calls: int, tracker) -> dict:
    prompt = completion = 0
    for entries in tracker.usage_data.values():
        for entry in entries:
            prompt += int(entry.get("prompt_tokens") or entry.get("input_tokens") or 0)
            completion += int(entry.get("completion_tokens") or entry.get("output_tokens") or 0)
    return {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion}
