"""Generate, validate and repair as one DSPy module: it wraps the generate step as `dspy.Refine` wraps a
module, and returns every query it tried and the one that answers.

The first query is executed (deterministic fixes, guard, lint); when it fails or returns nothing, either
sampled candidates vote by their results (execution-guided choice, `ProgramSettings.candidates`), or fixes
for empty answers and LM repairs run until a query answers or the repair budget is spent. Once the question's
deadline has passed (`modules/clock.py`), no more candidates or repairs are asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

import dspy
from nl2sparql.modules.attempt import Attempt, endpoint_limits, run_query
from nl2sparql.modules.clock import Clock
from nl2sparql.modules.compact import generate_adapter
from nl2sparql.modules.fixes import EMPTY_RESULT_FIXES, apply_fixes


@dataclass(frozen=True)
class Context:
    constraints: str
    examples: str
    schema_notes: str
    empty_fixes: tuple = ()  # deterministic fixes for an empty answer that depend on this question


class GenerateAndRepair(dspy.Module):
    """`forward(question, inputs, context, settings, clock)` → Prediction(attempts, best, calls)."""

    def __init__(self, generate, repair, runtime):
        super().__init__()
        self.generate = generate
        self.repair = repair
        self.runtime = runtime

    def forward(self, question: str, inputs: dict[str, str], context: Context, settings,
                clock: Clock | None = None, lm=None) -> dspy.Prediction:
        """`lm`, when given, writes and repairs the queries in place of the steps' own LM (a follow-up answered by
        the follow-up adapter of a paired version)."""
        clock = clock or Clock()
        adapter = generate_adapter(settings)
        chosen_lm = {"lm": lm} if lm is not None else {}  # Predict takes `lm`; None there would drop its own

        def generate(**config):
            with dspy.context(adapter=adapter):
                return self.generate(**inputs, **config, **chosen_lm).sparql

        first = self._write("generate", clock, generate)
        attempts, chosen = self._sample_when_failed(first, generate, settings, clock)
        calls = len(attempts)
        if chosen is None:
            more, repair_calls = self._validate_and_repair(question, first, context, settings, clock, chosen_lm)
            attempts += more
            calls += repair_calls
        return dspy.Prediction(attempts=attempts, best=chosen or best_attempt(attempts), calls=calls)

    def _run(self, step: str, sparql: str, clock: Clock) -> Attempt:
        """The query run within what is left of the question's time (a run cut by it stops the question)."""
        attempt = run_query(step, sparql, self.runtime.endpoint, endpoint_limits(self.runtime), clock.stop_at)
        if attempt.result is not None and attempt.result.timed_out:
            clock.passed()
        return attempt

    def _write(self, step: str, clock: Clock, write) -> Attempt:
        """One LM call that writes a query (timed, within the deadline), then the query run."""
        with clock.lm_call(step.split(":")[0]) as call:
            sparql = write()
        clock.step("run")
        return self._run(step, sparql, clock).spent(call)

    def _sample_when_failed(self, first: Attempt, generate, settings,
                            clock: Clock) -> tuple[list[Attempt], Attempt | None]:
        """The first attempt, plus sampled candidates when it failed; the one chosen by execution, if any."""
        if first.outcome in ("ok", "lint") or settings.candidates < 1:
            return [first], None
        from nl2sparql.modules.choice import choose_by_execution

        attempts = [first]
        for rollout in range(1, settings.candidates + 1):
            if clock.passed():
                break
            config = {"temperature": settings.candidate_temperature, "rollout_id": rollout}
            attempts.append(self._write(f"sample:{rollout}", clock, lambda: generate(config=config)))
        return attempts, choose_by_execution(attempts)

    def _validate_and_repair(self, question: str, first: Attempt, context: Context, settings,
                             clock: Clock, chosen_lm: dict | None = None) -> tuple[list[Attempt], int]:
        """The first attempt, then deterministic fixes and LM repairs until one runs (returned without `first`)."""
        attempts: list[Attempt] = []
        calls, empty_repaired, tried = 0, False, set()
        attempt = first
        while True:
            attempts.append(attempt)
            tried.add(attempt.sparql)
            if attempt.outcome == "ok":
                break
            if attempt.outcome == "empty":
                fixed, fixes = apply_fixes(attempt.sparql, EMPTY_RESULT_FIXES + context.empty_fixes)
                if fixes and fixed not in tried:
                    attempt = self._run("fix:" + "+".join(f.name for f in fixes), fixed, clock)
                    continue
            if (calls >= settings.max_repairs
                    or (attempt.outcome == "empty" and (empty_repaired or not settings.repair_empty))
                    or clock.passed()):
                break
            empty_repaired |= attempt.outcome == "empty"
            failed = attempt
            attempt = self._write("repair", clock, lambda: self.repair(
                question=question, failed_sparql=failed.sparql, diagnosis=_diagnosis(failed, context),
                history=_history(attempts), constraints=context.constraints, **(chosen_lm or {})).sparql)
            calls += 1
        return attempts[1:], calls


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


def _history(attempts: list[Attempt]) -> str:
    return "\n".join(f"{i}. {a.step}: {a.outcome}" + (f" ({a.detail[:160]})" if a.detail else "")
                     for i, a in enumerate(attempts, 1))


def _rank(attempt: Attempt) -> int:
    return {"ok": 3, "lint": 2, "empty": 1}.get(attempt.outcome, 0)


def best_attempt(attempts: list[Attempt]) -> Attempt:
    """The last query when it succeeded; otherwise the first of the best-ranked (first valid as fallback)."""
    if attempts[-1].outcome == "ok":
        return attempts[-1]
    top = max(_rank(a) for a in attempts)
    return next(a for a in attempts if _rank(a) == top) if top else attempts[-1]
