"""`nl2sparql data synth`: generate, execute, keep and write synthetic training pairs, reproducibly from a seed.

The generator reads the rules beside this module and the knowledge base, never the curated dataset."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from nl2sparql.data.dataset import read_json_lines
from nl2sparql.data.synth.chains import CHAINS_FILE, chain_record, compose_chain, keep_chain
from nl2sparql.data.synth.compose import compose_set
from nl2sparql.data.synth.keep import Keeper, result_fingerprint
from nl2sparql.data.synth.lookups import compose_ask, compose_dialect_set, compose_lookup, compose_meta
from nl2sparql.data.synth.plans import compose_plan
from nl2sparql.data.synth.pools import Pools, load_pools
from nl2sparql.data.synth.rules import Candidate, load_rules
from nl2sparql.files import atomic_open, write_text_atomic
from nl2sparql.kb.endpoint import Endpoint
from nl2sparql.kb.results import QueryResult

PAIRS_FILE = "synth.jsonl"
MANIFEST_FILE = "manifest.json"
# How often each generator is drawn: word sets carry the operators, lookups the resources' facts.
# "plan": pairs drawn as query plans (data/synth/plans.py), compiled and verbalized by data/plans/.
GENERATORS = (("set", compose_set, 10), ("lookup", compose_lookup, 6), ("ask", compose_ask, 3),
              ("dialect", compose_dialect_set, 2), ("meta", compose_meta, 1), ("plan", compose_plan, 5))


@dataclass
class SynthReport:
    seed: int
    asked: int
    records: list[dict] = field(default_factory=list)
    attempts: int = 0
    rejected: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    paraphrase: dict = field(default_factory=dict)  # data/synth/paraphrase.py's counts, when it ran
    interrupted: bool = False
    chains: list[dict] = field(default_factory=list)  # follow-up chains (data/synth/chains.py), when asked for

    def counts(self) -> dict[str, dict[str, int]]:
        return counts_of(self.records)

    def manifest(self, digest: str, kb_fingerprint: str) -> dict:
        return {"seed": self.seed, "asked": self.asked, "kept": len(self.records), "attempts": self.attempts,
                "rejected": dict(sorted(self.rejected.items())), "seconds": round(self.seconds, 1),
                "kb_fingerprint": kb_fingerprint, "hash": digest, "interrupted": self.interrupted,
                "counts": self.counts(),
                **({"paraphrase": self.paraphrase} if self.paraphrase else {}),
                **({"chains": {"kept": len(self.chains), "shapes": dict(sorted(Counter(
                    c["shape"] for c in self.chains).items()))}} if self.chains else {})}


def counts_of(records: list[dict]) -> dict[str, dict[str, int]]:
    """Pairs per operator, resource, form, generator shape and pattern (a pair counts once for each resource)."""
    tally: dict[str, Counter] = {k: Counter() for k in ("operator", "resource", "form", "shape", "pattern")}
    for record in records:
        trace = record["trace"]
        tally["operator"][trace["operator"]] += 1
        tally["form"][trace["form"]] += 1
        tally["shape"][trace["shape"].split(":")[0]] += 1
        for resource in trace["resources"] or ["lemma bank"]:
            tally["resource"][resource] += 1
        for pattern in record["patterns"]:
            tally["pattern"][pattern] += 1
    return {k: dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0]))) for k, v in tally.items()}


def synthesize(endpoint: Endpoint, n: int, seed: int, *, pools: Pools | None = None, max_attempts: int | None = None,
               accepts: Callable[[str], bool] | None = None,
               progress: Callable[[int], None] = lambda kept: None) -> SynthReport:
    """Up to `n` kept pairs; the same seed and store give the same pairs in the same order. `accepts`, when given,
    says whether a query is inside the grammar the local model writes under (modules/grammar.py)."""
    rng, rules, started = random.Random(seed), load_rules(), time.perf_counter()
    pools = pools or load_pools(endpoint)
    keeper, cache, report = Keeper(endpoint, accepts), {}, SynthReport(seed=seed, asked=n)
    names, generators, weights = zip(*GENERATORS)
    limit = max_attempts or n * 25
    try:
        while len(report.records) < n and report.attempts < limit:
            report.attempts += 1
            index = rng.choices(range(len(generators)), weights=weights)[0]
            candidate = generators[index](rules, pools, rng, cache)
            if candidate is None:
                keeper.rejected["no value to sample"] += 1
                continue
            result, reason = keeper.judge(candidate)
            if reason is None:
                report.records.append(to_record(candidate, result, seed, len(report.records)))
                progress(len(report.records))
    except KeyboardInterrupt:  # Ctrl-C: the pairs kept so far are still written, marked as interrupted
        report.interrupted = True
    report.rejected, report.seconds = keeper.rejected, time.perf_counter() - started
    return report


def synthesize_chains(endpoint: Endpoint, n: int, seed: int, *, pools: Pools | None = None,
                      accepts: Callable[[str], bool] | None = None, max_attempts: int | None = None,
                      progress: Callable[[int], None] = lambda kept: None) -> tuple[list[dict], Counter]:
    """Up to `n` two-turn follow-up chains, reproducibly from the seed (a stream of its own: asking for chains
    leaves the pairs of the same seed unchanged); returns them with the rejection counts."""
    rng, rules, pools = random.Random(f"chains-{seed}"), load_rules(), pools or load_pools(endpoint)
    keeper, cache, chains, attempts = Keeper(endpoint, accepts), {}, [], 0
    while len(chains) < n and attempts < (max_attempts or n * 25):
        attempts += 1
        chain = compose_chain(rules, pools, rng, cache)
        if chain is None:
            keeper.rejected["no value to sample"] += 1
        elif keep_chain(keeper, chain) is None:
            chains.append(chain_record(chain, seed, len(chains)))
            progress(len(chains))
    return chains, keeper.rejected


def to_record(candidate: Candidate, result: QueryResult, seed: int, index: int) -> dict:
    """A line of the JSONL: our record fields, source and split, and the generator's trace."""
    return {
        "id": f"syn-{seed}-{index:05d}", "question_it": candidate.question_it, "question_en": candidate.question_en,
        "sparql": candidate.sparql, "patterns": list(candidate.patterns), "complexity": candidate.complexity,
        "answer_variables": {"answer": list(candidate.answer), "ids": list(candidate.ids),
                             "aggregates": list(candidate.aggregates)},
        "split": "train", "source": "synth",
        "trace": {"shape": candidate.shape, "operator": candidate.operator, "form": candidate.form,
                  "resources": list(candidate.resources), "slots": list(candidate.slots),
                  "rows": len(result.rows), "boolean": result.boolean, "answer": result_fingerprint(result)},
    }


def write_synth(report: SynthReport, out_dir: Path, kb_fingerprint: str) -> tuple[Path, dict]:
    """The pairs and their manifest, each written atomically; returns the pairs' path and the manifest."""
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in report.records)
    path = out_dir / PAIRS_FILE
    with atomic_open(path) as out:
        out.write(text)
    if report.chains:
        chains = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in report.chains)
        with atomic_open(out_dir / CHAINS_FILE) as out:
            out.write(chains)
        text += chains  # the hash covers the chains too
    manifest = report.manifest(hashlib.sha256(text.encode()).hexdigest()[:16], kb_fingerprint)
    write_text_atomic(out_dir / MANIFEST_FILE, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return path, manifest


def read_synth(folder: Path) -> list[dict]:
    """The pairs of a synth folder (or file), for stats and training."""
    path = folder / PAIRS_FILE if folder.is_dir() else folder
    return [data for _, data in read_json_lines(path)]
