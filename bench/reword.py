"""Rewordings of the design splits' questions by a language model, to measure how the enumerator reads wordings
that are not ours (`bench/plans.py --reworded FILE`).

    python bench/reword.py --split train [--lm local/qwen-1.5b] [--limit N] [--out /tmp/reworded-train.jsonl]

Each train or dev question, in Italian and in English, is reworded once by the model (`modules/paraphrase.py`, the
data engine's rewording step) and kept only when the rewording still says every quoted word, every number and
every resource the question names, is in the question's language, says the same operations (`cues.json`) and is
still a question. Held-out splits are refused: a rewording of a held-out question is a look at it. Lines are
appended as they come, so a stopped run resumes where it was (`--resume` is the default: ids already written are
skipped).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

DESIGN_SPLITS = ("train", "dev")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w])")
_RESOURCES = {"sicil": "~sicil", "parm": "~parm", "elita": "elita", "sentix": "sentix", "compl-it": "compl-it"}


def slot_values(question: str) -> list[str]:
    """What a rewording must keep: quoted words, numbers, and the resources named (by stem)."""
    from nl2sparql.retrieval.patterns import _QUOTED

    values = [next(group for group in match.groups() if group) for match in _QUOTED.finditer(question)]
    values += _NUMBER.findall(question)
    lowered = question.lower()
    values += [slot for stem, slot in _RESOURCES.items() if stem in lowered]
    return values


def own_words(text: str, language: str) -> int:
    from nl2sparql.data.synth.paraphrase import _common_words

    return sum(word in _common_words(language) for word in re.findall(r"[^\W\d_]+", text.lower()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=DESIGN_SPLITS, default="dev")
    parser.add_argument("--lm", default="local/qwen-1.5b")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None, help="default: /tmp/reworded-<split>.jsonl")
    args = parser.parse_args()
    out = args.out or Path(f"/tmp/reworded-{args.split}.jsonl")

    from nl2sparql.data.dataset import load_dataset
    from nl2sparql.data.synth.paraphrase import _verdict
    from nl2sparql.modules.lm import resolve_lm
    from nl2sparql.modules.paraphrase import paraphraser

    done = set()
    for line in out.read_text(encoding="utf-8").splitlines() if out.exists() else []:
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a line cut short by a stop: asked again
        done.add((row["id"], row["lang"]))
    records = [r for r in load_dataset() if r.split == args.split][: args.limit]
    reword = paraphraser(resolve_lm(args.lm, temperature=0.0, max_tokens=96, cache=False))
    started, outcome = time.perf_counter(), {}
    with out.open("a", encoding="utf-8") as sink:
        for record in records:
            for lang in ("it", "en"):
                if (record.id, lang) in done:
                    continue
                original = record.question_it if lang == "it" else record.question_en
                text = reword(original, lang)
                verdict = _verdict(text, original, slot_values(original), lang)
                if verdict == "kept" and not own_words(text, lang):
                    verdict = "another language"  # no common word of its own language at all ("Quanto siciliano?")
                outcome[verdict] = outcome.get(verdict, 0) + 1
                sink.write(json.dumps({"id": record.id, "lang": lang, "verdict": verdict, "question": text,
                                       "original": original}, ensure_ascii=False) + "\n")
                sink.flush()
                print(f"{record.id} {lang}: {verdict}", flush=True)
    print(json.dumps({"split": args.split, "outcome": outcome, "seconds": round(time.perf_counter() - started, 1),
                      "out": str(out)}))


if __name__ == "__main__":
    main()
