"""Bootstrapped traces from a stronger model (BootstrapFinetune's way): the teacher answers each train question
through the same program, and an answer whose execution matches the gold one becomes an extra example."""

from __future__ import annotations

from typing import Callable

import dspy

from nl2sparql.optimize.finetune.examples import TrainExample


def teacher_examples(program, records, teacher, *, answer_sparql: Callable[[str], str] | None = None
                     ) -> list[TrainExample]:
    from nl2sparql.eval.scoring.gold import GoldCache
    from nl2sparql.eval.scoring.dspy_metric import ExecutionMetric, to_example

    metric = ExecutionMetric({r.id: r for r in records}, GoldCache(program.runtime.endpoint))
    student = program.deepcopy()
    student.set_lm(teacher)
    found = []
    for record in records:
        for language in ("it", "en"):
            example = to_example(record, language)
            with dspy.context(lm=teacher):
                prediction = student(example.question, exclude_ids=(record.id,))
            if not metric.score(example, prediction).exact:
                continue
            sparql = answer_sparql(prediction.sparql) if answer_sparql else prediction.sparql.strip()
            found.append(TrainExample(record.id, language, example.question,
                                      tuple(program.generate_messages(example.question, exclude_ids=(record.id,))),
                                      program.generate_answer(sparql), source=getattr(teacher, "model", "teacher")))
    return found
