"""Entity extraction against the curated dataset: the words each question text names (quoted, or after a
cue word) vs the string literals (@it, @roa, @scn) its gold query writes. No KB and no model needed.

Only train and dev questions are measured: the extraction cues are tuned on what this bench misses, so
test and generalization are kept for `eval` alone.

    python bench/entities.py [--cues FILE] [--show]

--cues compares another cue file (e.g. `git show HEAD~1:data/pattern_cues.json > old.json`) with the
current one; --show lists the texts whose extracted words differ from the gold literals.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

_LITERAL = re.compile(r'"([^"]+)"@(?:it|roa|scn)\b')
MEASURED_SPLITS = ("train", "dev")  # never test or generalization: they are for eval alone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cues", type=Path, default=None, help="another cue file to measure beside the current one")
    parser.add_argument("--show", action="store_true", help="list the texts that differ from the gold literals")
    args = parser.parse_args()

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.retrieval.patterns import CUES_FILE, load_cues

    records = [r for r in load_dataset() if r.split in MEASURED_SPLITS]
    for label, path in ([("other", args.cues)] if args.cues else []) + [("current", CUES_FILE)]:
        found, spurious, missed, texts = _measure(records, load_cues(path), args.show and label == "current")
        print(f"{label} ({path}): {texts} question texts; gold literals found {found}, words that are not gold "
              f"literals {spurious}, gold literals missed {missed}")


def _measure(records, cues, show: bool) -> tuple[int, int, int, int]:
    from nl2sparql.retrieval.patterns import extract_entities

    found = spurious = missed = texts = 0
    for record in records:
        gold = {w.lower() for w in _LITERAL.findall(record.sparql)}
        for question in (record.question_it, record.question_en):
            words = {w.lower() for w in extract_entities(question, cues)}
            texts += 1
            found, spurious, missed = found + len(words & gold), spurious + len(words - gold), missed + len(gold - words)
            if show and words != gold:
                print(f"{record.id}: {question}\n    extracted {sorted(words)}, gold {sorted(gold)}")
    return found, spurious, missed, texts


if __name__ == "__main__":
    main()
