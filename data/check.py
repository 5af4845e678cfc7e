"""`nl2sparql data check`: every gold query parses, passes the guard, runs, and answers what it says."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from nl2sparql.data.dataset import PATTERNS, SPLITS, Record
from nl2sparql.errors import Nl2SparqlError
from nl2sparql.kb.endpoint import Endpoint
from nl2sparql.kb.guard import check

_AGGREGATE = re.compile(r"\b(COUNT|SUM|AVG|MIN|MAX|GROUP_CONCAT|SAMPLE)\s*\(", re.IGNORECASE)
_COMMENT = re.compile(r"#[^\n]*")
_FEATURES = {name: re.compile(pattern, re.IGNORECASE) for name, pattern in {
    "having": r"\bHAVING\b", "optional": r"\bOPTIONAL\b", "minus": r"\bMINUS\b", "not-exists": r"\bNOT\s+EXISTS\b",
    "exists": r"(?<!NOT )\bEXISTS\b", "bind": r"\bBIND\b", "values": r"\bVALUES\b", "union": r"\bUNION\b",
    "subquery": r"\{\s*SELECT\b", "order": r"\bORDER\s+BY\b", "limit": r"\bLIMIT\b", "service": r"\bSERVICE\b",
    "regex": r"\bREGEX\s*\(", "if": r"\bIF\s*\(",
}.items()}


@dataclass(frozen=True)
class Offender:
    id: str
    source: str
    problem: str


@dataclass
class CheckReport:
    records: int = 0
    offenders: list[Offender] = field(default_factory=list)
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    multi_pattern: int = 0

    @property
    def ok(self) -> bool:
        return not self.offenders and not self.duplicates

    def to_json(self) -> dict:
        return {"records": self.records, "ok": self.ok, "multi_pattern": self.multi_pattern,
                "offenders": [o.__dict__ for o in self.offenders],
                "duplicates": [{"first": a, "second": b, "what": w} for a, b, w in self.duplicates],
                "counts": self.counts}


def structure(record: Record) -> tuple:
    """What a generalization pair must not share with train: patterns, query form, aggregates, operators."""
    text = _COMMENT.sub("", record.sparql)
    form = "ASK" if re.search(r"\bASK\b", text, re.IGNORECASE) else "SELECT"
    aggregates = sorted({m.upper() for m in _AGGREGATE.findall(text)})
    features = sorted(name for name, regex in _FEATURES.items() if regex.search(text))
    return tuple(sorted(record.patterns)), form, tuple(aggregates), tuple(features)


def normalise_sparql(text: str) -> str:
    return " ".join(_COMMENT.sub("", text).split())


def normalise_question(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def pattern_counts(records: list[Record]) -> dict[str, dict[str, int]]:
    """Pattern × split counts (a record counts once for each of its patterns)."""
    counts = {p: dict.fromkeys(SPLITS, 0) for p in PATTERNS}
    for record in records:
        for pattern in record.patterns:
            counts[pattern][record.split] = counts[pattern].get(record.split, 0) + 1
    return counts


def check_dataset(records: list[Record], endpoint: Endpoint,
                  progress: Callable[[Record], None] = lambda record: None, twins: bool = True) -> CheckReport:
    """Every check of the curated dataset; `twins=False` for training pairs that are never scored (synthetic
    files), whose ASK records need no contrastive twin."""
    report = CheckReport(records=len(records), counts=pattern_counts(records),
                         multi_pattern=sum(len(r.patterns) > 1 for r in records))
    answers: dict[str, bool] = {}  # the ASK records' answers
    for record in records:
        for problem in _execution_problems(record, endpoint, answers):
            report.offenders.append(Offender(record.id, record.source, problem))
        progress(record)
    report.offenders += _label_problems(records)
    if twins:
        report.offenders += twin_problems(records, answers)
    report.duplicates = find_duplicates(records)
    return report


def _execution_problems(record: Record, endpoint: Endpoint, answers: dict[str, bool]) -> list[str]:
    try:
        form = check(record.sparql).form
        result = endpoint.execute(record.sparql)
    except Nl2SparqlError as error:
        return [str(error)]
    if result.timed_out:
        return [f"timed out after {result.elapsed_s:.1f} s"]
    if form == "ASK":
        answers[record.id] = bool(result.boolean)
        return []
    problems = []
    missing = [v for v in record.answer_variables.all() if v not in result.variables]
    if missing:
        problems.append(f"answer variables {missing} are not in the SELECT {list(result.variables)}")
    if not (record.answer_variables.answer or record.answer_variables.aggregates):
        problems.append("no answer or aggregate variable named")
    if not result.rows and not record.empty_ok:
        problems.append("returns no rows (set empty_ok if an empty answer is intended)")
    if result.truncated:
        problems.append("result truncated by the row cap")
    return problems


def _label_problems(records: list[Record]) -> list[Offender]:
    problems = []
    ids = Counter(r.id for r in records)
    problems += [Offender(i, "", "id used more than once") for i, n in ids.items() if n > 1]
    problems += [Offender(r.id, r.source, f"split {r.split!r} is not one of {SPLITS}: run 'nl2sparql data split'")
                 for r in records if r.split not in SPLITS]
    train = {structure(r) for r in records if r.split == "train"}
    problems += [Offender(r.id, r.source, "generalization pair has a structure that train also has")
                 for r in records if r.split == "generalization" and structure(r) in train]
    return problems


def twin_problems(records: list[Record], answers: dict[str, bool]) -> list[Offender]:
    """Every ASK record (`answers`: id → its boolean) has a contrastive twin: an ASK record naming it in `twin`,
    in the same split, whose answer is the other boolean, so that a query ignoring the question's condition
    cannot be right on both."""
    by_id = {r.id: r for r in records}
    twins: dict[str, list[Record]] = defaultdict(list)
    problems = []
    for record in records:
        if not record.twin:
            continue
        original = by_id.get(record.twin)
        if original is None or original.twin:
            problems.append(Offender(record.id, record.source,
                                     f"twin of {record.twin!r}, which is not an original record of the dataset"))
            continue
        twins[original.id].append(record)
        if record.split != original.split:
            problems.append(Offender(record.id, record.source, f"twin in split {record.split!r}, its original "
                                     f"{original.id} in {original.split!r}: a twin keeps its original's split"))
        if record.id not in answers or original.id not in answers:
            problems.append(Offender(record.id, record.source, f"twin of {original.id}: both must be ASK queries"))
        elif answers[record.id] == answers[original.id]:
            problems.append(Offender(record.id, record.source, f"twin of {original.id} with the same answer "
                                     f"({str(answers[record.id]).lower()}): a twin's answer is the other boolean"))
    for record_id in answers:
        record, count = by_id[record_id], len(twins.get(record_id, []))
        if not record.twin and count != 1:
            problems.append(Offender(record_id, record.source, f"ASK record with {count} twins: add one ASK record "
                                     f'with "twin": "{record_id}" whose answer is the other boolean'))
    return problems


def find_duplicates(records: list[Record]) -> list[tuple[str, str, str]]:
    """Pairs of records with the same question (any wording, any language) or the same normalised SPARQL."""
    seen: dict[tuple[str, str], str] = {}
    found: list[tuple[str, str, str]] = []
    for record in records:
        keys = {("question", normalise_question(text)) for _, text in record.questions()}
        keys.add(("sparql", normalise_sparql(record.sparql)))
        for key in sorted(keys):
            first = seen.setdefault(key, record.id)
            if first != record.id:
                found.append((first, record.id, f"same {key[0]}"))
    return found


def group_by_split(records: list[Record]) -> dict[str, list[Record]]:
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[record.split].append(record)
    return groups


def check_chains(chains: list, endpoint: Endpoint) -> list[Offender]:
    """Every turn of every follow-up chain runs and answers what it says; ids are unique, splits known,
    and no first question opens chains in two splits."""
    from nl2sparql.data.chains import CHAIN_SPLITS, turn_record

    offenders = []
    for chain in chains:
        for index in range(len(chain.turns)):
            record = turn_record(chain, index)
            offenders += [Offender(record.id, chain.source, p) for p in _execution_problems(record, endpoint, {})]
    ids = Counter(c.id for c in chains)
    offenders += [Offender(i, "", "chain id used more than once") for i, n in ids.items() if n > 1]
    offenders += [Offender(c.id, c.source, f"split {c.split!r} is not one of {CHAIN_SPLITS}")
                  for c in chains if c.split not in CHAIN_SPLITS]
    opening: dict[str, set[str]] = defaultdict(set)
    for chain in chains:
        opening[normalise_question(chain.turns[0].question)].add(chain.split)
    offenders += [Offender("", "", f"first question {q!r} opens chains in splits {sorted(s)}")
                  for q, s in opening.items() if len(s) > 1]
    return offenders
