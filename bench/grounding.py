"""Dialect-word spotting against the curated dataset: for every question text that names a dialect, the
words spotted as dialect words vs the @roa/@scn literals its gold query writes.

Only train and dev questions are measured (as bench/entities.py): test and generalization are for `eval`.

    python bench/grounding.py [--store PATH]
"""

from __future__ import annotations

import argparse
import re
import time

from nl2sparql.paths import HOME_ENV


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", default=None, help=f"embedded store folder (default: ${HOME_ENV}/kb)")
    args = parser.parse_args()

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.kb.endpoint import EndpointConfig, open_endpoint
    from nl2sparql.retrieval.grounding import Lexicon, dialect_lexicons, spot_dialect_words
    from nl2sparql.retrieval.patterns import analyze_patterns

    endpoint = open_endpoint(EndpointConfig(store_path=args.store))
    started = time.perf_counter()
    italian, dialects = Lexicon.from_endpoint(endpoint), dialect_lexicons(endpoint)
    loaded = time.perf_counter() - started
    texts = with_words = agree = extra = missed = 0
    for record in [r for r in load_dataset() if r.split in ("train", "dev")]:
        gold = {w.lower() for w, _ in re.findall(r'"([^"]+)"@(roa|scn)', record.sparql)}
        for question in (record.question_it, record.question_en):
            analysis = analyze_patterns(question)
            if not analysis.dialects:
                continue
            texts += 1
            spotted = {w.lower() for w in spot_dialect_words(question, italian, dialects, analysis.dialects)}
            if not spotted and not gold:
                continue
            with_words += 1
            agree += spotted == gold
            extra += bool(spotted - gold)
            missed += bool(gold - spotted)
            if spotted != gold:
                print(f"{record.id}: spotted {sorted(spotted)}, gold literals {sorted(gold)}")
    endpoint.close()
    print(f"forms: Italian {len(italian):,}, " + ", ".join(f"{d} {len(lx):,}" for d, lx in dialects.items())
          + f" (read in {loaded:.2f} s)")
    print(f"question texts naming a dialect: {texts}; with a spotted or gold dialect word: {with_words}; "
          f"equal: {agree}; spotted a word the gold does not write: {extra}; missed a gold word: {missed}")


if __name__ == "__main__":
    main()
