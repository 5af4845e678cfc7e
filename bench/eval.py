"""The evaluation the project reports: baselines against a compiled version on test, then on generalization.

    python bench/eval.py [--versions zero-shot,static-rag,shipped] [--splits test,generalization]
                         [--lm local/qwen-1.5b] [--limit N] [--threads N] [--so-far] [--allow-mismatch] [--root DIR]

For each split: `nl2sparql.eval.compare(versions, split)` (a report is reused when one exists for the same
code, LM, adapter, settings, KB and records, written under --root otherwise, each an MLflow run), then per
version execution accuracy, mean F1, valid-SPARQL rate, LM calls and tokens per question, and per pair the
exact McNemar p-value on exact match and the paired bootstrap 95% CI of the F1 difference. The Markdown
report and the chart are written beside the last version's reports. --limit takes the first N questions of
each split (the figures say so). A stopped run resumes from its journals: run the same command again.
--so-far runs nothing and prints the figures on the questions every version has answered so far (reports
and journals of runs still going). Reports made by other program code are refused unless --allow-mismatch.

Reports and journals go to bench/eval-runs/ in the repository by default (--root), not to the artifact
root: the project's recorded evaluation is committed with the code, so a run stopped on one machine goes on
from its journals on another, as long as the code fingerprint in their headers still matches.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parent / "eval-runs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--versions", default="zero-shot,static-rag,shipped")
    parser.add_argument("--splits", default="test,generalization")
    parser.add_argument("--lm", default=None)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads of the local model")
    parser.add_argument("--so-far", action="store_true",
                        help="run nothing: figures on the questions every version has answered so far")
    parser.add_argument("--allow-mismatch", action="store_true",
                        help="compare reports made by different program code (marked †) instead of stopping")
    parser.add_argument("--root", type=Path, default=RUNS,
                        help="where reports and journals go (default: bench/eval-runs in the repository)")
    args = parser.parse_args()

    from nl2sparql.eval.comparison import compare_reports, write_outputs
    from nl2sparql.eval.report import report_dir
    from nl2sparql.eval.runner import run_evals
    from nl2sparql.modules.lm import resolve_lm

    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    lm = resolve_lm(args.lm, cache=False, n_threads=args.threads)
    for split in [s.strip() for s in args.splits.split(",") if s.strip()]:
        started = time.perf_counter()
        reports = [r for r, _, _ in run_evals(versions, split, lm_object=lm, limit=args.limit, root=args.root,
                                              on_result=None if args.so_far else _progress, so_far=args.so_far)]
        if not reports[0].questions:
            print(f"\n{split}: no question answered by every version yet")
            continue
        comparison = compare_reports(reports, allow_mismatch=args.allow_mismatch)
        markdown, chart = write_outputs(comparison, report_dir(versions[-1], args.root))
        shown = f"first {args.limit}" if args.limit else "all"
        if args.so_far:
            shown = f"{len(reports[0].questions)} of the {split}"
        print(f"\n{split} ({shown} questions, {lm.model}, {time.perf_counter() - started:.0f} s)")
        print(f"{'version':12} {'exec acc':>8} {'F1':>6} {'valid':>6} {'calls/q':>7} {'tokens/q':>8}")
        for version, s in comparison.overall.items():
            print(f"{version:12} {s['execution_accuracy']:8.3f} {s['mean_f1']:6.3f} {s['valid_sparql_rate']:6.3f} "
                  f"{s['lm_calls_per_question']:7.2f} {s['tokens_per_question']:8.0f}")
        for t in comparison.tests:
            print(f"{t.other} vs {t.baseline}: won {len(t.won)}, lost {len(t.lost)}, McNemar p {t.mcnemar_p:.3f}, "
                  f"F1 delta {t.f1_delta:+.3f} (95% CI {t.f1_ci[0]:+.3f} … {t.f1_ci[1]:+.3f})")
        print(f"report {markdown}\nchart {chart}")


def _progress(report) -> None:
    """One line per scored question on stderr (questions resumed from a journal included)."""
    import sys

    last, summary = report.questions[-1], report.summary()
    print(f"{report.split} {report.version} {len(report.questions)}: {last.id} exact={last.exact} "
          f"{last.seconds:.0f} s, accuracy so far {summary['execution_accuracy']:.3f}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
