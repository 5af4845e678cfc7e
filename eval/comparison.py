"""`eval compare`: reports of several versions on the same questions, side by side, with paired tests."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from nl2sparql.files import atomic_open, write_text_atomic
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.eval.report import Report
from nl2sparql.eval.scoring.outcomes import Outcome
from nl2sparql.eval.scoring.scored import paired_exact
from nl2sparql.eval.stats import mcnemar_exact, paired_bootstrap_ci


@dataclass
class PairTest:
    baseline: str
    other: str
    won: list[dict] = field(default_factory=list)   # wrong in baseline, exact in other
    lost: list[dict] = field(default_factory=list)  # exact in baseline, wrong in other
    mcnemar_p: float = 1.0
    f1_delta: float = 0.0
    f1_ci: tuple[float, float] = (0.0, 0.0)


@dataclass
class Comparison:
    reports: list[Report]
    overall: dict[str, dict[str, float]]
    per_pattern: dict[str, dict[str, float]]  # pattern → version → accuracy
    tests: list[PairTest]
    names: list[str]  # one per report: its version, with its split where a version comes twice (report_names)

    @property
    def versions(self) -> list[str]:
        return self.names

    @property
    def other_code(self) -> list[str]:
        """The reports (by name) made by other program code than the first's (compared on request)."""
        first = self.reports[0].code_fingerprint
        return [n for n, r in zip(self.versions[1:], self.reports[1:]) if r.code_fingerprint != first]

    def _label(self, version: str) -> str:
        return version + " †" if version in self.other_code else version

    def to_json(self) -> dict:
        return {"overall": self.overall, "per_pattern": self.per_pattern,
                "outcomes": {n: r.outcomes() for n, r in zip(self.versions, self.reports)},
                "code_fingerprints": {n: r.code_fingerprint for n, r in zip(self.versions, self.reports)},
                "other_code": self.other_code,
                "tests": [{"baseline": t.baseline, "other": t.other, "won": [w["id"] for w in t.won],
                           "lost": [w["id"] for w in t.lost], "mcnemar_p": t.mcnemar_p, "f1_delta": t.f1_delta,
                           "f1_ci": list(t.f1_ci)} for t in self.tests]}

    def to_markdown(self, chart: str | None = None) -> str:
        names, labels = self.versions, [self._label(v) for v in self.versions]
        lines = [f"# Comparison on {self.reports[0].split}: {' vs '.join(names)}", "",
                 "| metric | " + " | ".join(labels) + " | " + " | ".join(f"Δ {n}" for n in labels[1:]) + " |",
                 "|---" * (len(names) * 2) + "|"]
        for key in ("execution_accuracy", "execution_accuracy_per_record", "mean_f1", "valid_sparql_rate",
                    "lm_calls_per_question", "tokens_per_question", "p50_seconds", "p90_seconds", "max_seconds"):
            values = [self.overall[n].get(key, 0.0) for n in names]
            lines.append(f"| {key} | " + " | ".join(f"{v:.3f}" for v in values) + " | "
                         + " | ".join(f"{v - values[0]:+.3f}" for v in values[1:]) + " |")
        if self.other_code:
            first = self.reports[0]
            lines += ["", f"† made by other program code than {first.version} (code "
                      + ", ".join(f"{n} `{r.code_fingerprint or '?'}`" for n, r in zip(names, self.reports)) + ")"]
        lines += ["", "| pattern | " + " | ".join(labels) + " |", "|---" * (len(names) + 1) + "|"]
        for pattern, by_version in self.per_pattern.items():
            lines.append(f"| {pattern} | " + " | ".join(f"{by_version.get(n, 0.0):.3f}" for n in names) + " |")
        counts = [r.outcomes() for r in self.reports]
        lines += ["", "| outcome | " + " | ".join(labels) + " |", "|---" * (len(names) + 1) + "|"]
        lines += [f"| {o.value} | " + " | ".join(str(c[o.value]) for c in counts) + " |" for o in Outcome]
        for test in self.tests:
            lines += ["", f"## {test.other} vs {test.baseline}", "",
                      f"exact McNemar p = {test.mcnemar_p:.4f} (won {len(test.won)}, lost {len(test.lost)}); "
                      f"F1 Δ {test.f1_delta:+.3f}, 95% paired bootstrap CI [{test.f1_ci[0]:+.3f}, {test.f1_ci[1]:+.3f}]"]
            for label, items in (("won", test.won), ("lost", test.lost)):
                for item in items:
                    lines += ["", f"- {label}: `{item['id']}` {item['question']}",
                              f"  - {test.baseline}: `{' '.join(item['baseline_sparql'].split())}`",
                              f"  - {test.other}: `{' '.join(item['other_sparql'].split())}`"]
        if chart:
            lines += ["", f"![per-pattern accuracy]({chart})"]
        return "\n".join(lines) + "\n"


def compare_reports(reports: list[Report], *, allow_mismatch: bool = False) -> Comparison:
    if len(reports) < 2:
        raise Nl2SparqlError("compare needs at least two versions")
    first = reports[0]
    for other in reports[1:]:
        for attribute in ("split", "kb_fingerprint"):
            a, b = getattr(first, attribute), getattr(other, attribute)
            if a != b and not allow_mismatch:
                raise Nl2SparqlError(f"{first.version} and {other.version} were run on different "
                                     f"{attribute.replace('_', ' ')}s ({a} vs {b}); pass --allow-mismatch to compare")
        if first.code_fingerprint != other.code_fingerprint and not allow_mismatch:
            raise Nl2SparqlError(f"{first.version} (code {first.code_fingerprint or '?'}) and {other.version} (code "
                                 f"{other.code_fingerprint or '?'}) were made by different program code: run them "
                                 "again on this code, or pass --allow-mismatch to compare them marked †")
    names = report_names(reports)
    overall = {n: r.summary() for n, r in zip(names, reports)}
    per_pattern: dict[str, dict[str, float]] = {}
    for pattern in dict.fromkeys(p for r in reports for p in r.per_pattern()):  # PATTERNS order, then others
        row = {n: r.per_pattern()[pattern]["execution_accuracy"]
               for n, r in zip(names, reports) if pattern in r.per_pattern()}
        if row:
            per_pattern[pattern] = row
    tests = [_pair(first, other, names[0], name) for other, name in zip(reports[1:], names[1:])]
    return Comparison(reports, overall, per_pattern, tests, names)


def report_names(reports: list[Report]) -> list[str]:
    """Each report's version; where a version comes more than once (one version in several follow-up modes,
    `v13 followup-test` against `v13 followup-test:concat`), its split is added, and a number if that repeats too."""
    names: list[str] = []
    for report in reports:
        name = report.version
        if sum(r.version == report.version for r in reports) > 1:
            name = f"{report.version} {report.split}"
        base, k = name, 2
        while name in names:
            name, k = f"{base} #{k}", k + 1
        names.append(name)
    return names


def _pair(baseline: Report, other: Report, baseline_name: str, other_name: str) -> PairTest:
    mine = {q.id: q for q in baseline.questions}
    theirs = {q.id: q for q in other.questions}
    shared = [i for i in mine if i in theirs]
    test = PairTest(baseline_name, other_name)
    # Exact as the headline counts it: an ASK question only with its twin (scoring.scored.paired_exact).
    right_a, right_b = paired_exact(baseline.questions), paired_exact(other.questions)
    for i in shared:
        a, b = mine[i], theirs[i]
        item = {"id": i, "question": a.question, "baseline_sparql": a.sparql, "other_sparql": b.sparql}
        if right_b[i] and not right_a[i]:
            test.won.append(item)
        elif right_a[i] and not right_b[i]:
            test.lost.append(item)
    test.mcnemar_p = mcnemar_exact(len(test.lost), len(test.won))
    delta, low, high = paired_bootstrap_ci([mine[i].f1 for i in shared], [theirs[i].f1 for i in shared])
    test.f1_delta, test.f1_ci = delta, (low, high)
    return test


def write_outputs(comparison: Comparison, directory: Path) -> tuple[Path, Path]:
    """The per-pattern bar chart (PNG) and the Markdown report beside it, both written atomically."""
    directory.mkdir(parents=True, exist_ok=True)
    split = _file_safe(comparison.reports[0].split.replace("/", "_")).strip("-")
    stem = _file_safe("compare-" + "-".join(comparison.versions)) + "-" + split
    chart = directory / f"{stem}.png"
    with atomic_open(chart, "wb") as out:
        out.write(chart_png(comparison))
    markdown = directory / f"{stem}.md"
    write_text_atomic(markdown, comparison.to_markdown(chart.name))
    return markdown, chart


def _file_safe(text: str) -> str:
    return re.sub(r"[^\w.\[\]:-]+", "-", text)


def chart_png(comparison: Comparison) -> bytes:
    """The per-pattern bar chart as PNG bytes (nothing written to disk)."""

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    patterns = list(comparison.per_pattern)
    names = comparison.versions
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(max(8, len(patterns) * 0.7), 4.5))
    for k, name in enumerate(names):
        values = [comparison.per_pattern[p].get(name, 0.0) for p in patterns]
        ax.bar([i + k * width for i in range(len(patterns))], values, width, label=name)
    ax.set_xticks([i + width * (len(names) - 1) / 2 for i in range(len(patterns))])
    ax.set_xticklabels(patterns, rotation=45, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("execution accuracy")
    ax.legend()
    return png_bytes(fig, dpi=110)


def png_bytes(fig, dpi: int = 100) -> bytes:
    """A matplotlib figure as PNG bytes, drawn in memory and closed (nothing written to disk)."""
    import io

    import matplotlib.pyplot as plt

    fig.tight_layout()
    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi)
        return buffer.getvalue()
    finally:
        plt.close(fig)
