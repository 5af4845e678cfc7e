"""A query plan: what a question over LiITA asks, as domain blocks (not a SPARQL syntax tree).

A plan is a set of Italian lemma-bank words (`Words`), joined on the lemma with resources (`Join`: ELITA, Sentix, a
dialect lexicon, CompL-it), narrowed by filters (`Filter`), and asked through one operator: a list of columns, a
count, an aggregate per group, a yes/no. Each block can be added to a smaller plan, so an enumerator builds plans one
block at a time; `compile.py` writes a plan as SPARQL in our conventions, `verbalize.py` reads it back as words.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class Words:
    """The lemma-bank words a plan starts from: all lemmas, one kind ("Lemma", "Hypolemma"), named written forms
    (one, or several as a VALUES list), and parts of speech (lila: local names; several as a VALUES list). `bank`:
    the Italian lemma bank, or a dialect's own ("sicilian", "parmigiano": its lemmas, not translations)."""

    kind: str | None = None
    forms: tuple[str, ...] = ()
    pos: tuple[str, ...] = ()
    bank: str = "italian"
    every_pos: bool = False  # the written form has a lemma of each part of speech ("sia nomi che verbi")
    iri: str | None = None  # one lemma named by its IRI (of the bank's lemmas)
    # parts of speech it is not ("né nomi né verbi": the lemma has neither; "nomi ma non verbi": no lemma of the
    # same written form has one)
    without_pos: tuple[str, ...] = ()


@dataclass(frozen=True)
class Join:
    """A resource joined on the lemma. `emotions` (ELITA labels, all required), `polarity` (a class of ELITA's
    marl:Polarity or Sentix's marl:hasPolarity), `form` (a dialect written form), `relation` (CompL-it: a sense
    relation such as hypernym, read general → specific) narrow it; `mode` says whether the word must have it."""

    resource: str  # elita, sentix, sicilian, parmigiano
    # has (the word has it), optional (its columns shown where present), absent (NOT EXISTS), absent_minus (MINUS),
    # covered (optional, its words counted against all by the share operator)
    mode: str = "has"
    emotions: tuple[str, ...] = ()
    polarity: str | None = None
    form: str | None = None
    pos: str | None = None  # the dialect lemma's or the CompL-it word's own part of speech
    relation: str | None = None
    without_emotions: tuple[str, ...] = ()  # ELITA: entries that do not also carry these
    note: str | None = None  # dialects: the translation's usage note must be this text ("" for any note)
    only: bool = False  # ELITA: the word carries no emotion but these ("soltanto Gioia, senza altre emozioni")
    entries_only: bool = False  # the resource's entries themselves, not joined on a lemma (counting ELITA entries)
    any_emotion: bool = False  # ELITA: any one of `emotions` rather than all ("Gioia o Fiducia"), a VALUES list


# A CompL-it relation as a question reads it → (lexinfo property, whether the related sense is the subject, the
# related word's role). Hypernym points general → specific: the hypernym's sense is the subject.
RELATIONS = {"hypernym": ("hypernym", True, "hypernymWord"), "hyponym": ("hypernym", False, "hyponymWord"),
             "meronym": ("partMeronym", True, "partWord"), "holonym": ("partMeronym", False, "wholeWord"),
             "synonym": ("synonym", False, "synonymWord"), "antonym": ("antonym", False, "antonymWord"),
             # the same two readings through lexinfo:hyponym, as CompL-it also records them
             "hypernym-by-hyponym": ("hyponym", False, "hypernymWord"),
             "hyponym-by-hyponym": ("hyponym", True, "hyponymWord")}


@dataclass(frozen=True)
class Senses:
    """CompL-it, through its SERVICE: the word (written as `Words.forms` when named) with its CompL-it part of speech
    (a label: noun, verb, adjective, adverb), its senses, and at most one relation to other words (`depth` "any":
    the relation's transitive closure). `linked` joins a CompL-it word to the lemma bank's ?lemma ("word", or
    "related" for the related word; "form": the word's written form is the lemma's, the join the schema advises
    where IRIs may differ), so ELITA, Sentix, dialects and lemma-bank filters can follow. `defined`
    says whose senses the definition and example columns read ("word" or "related")."""

    pos: str | None = None
    relation: str | None = None
    depth: str = "one"
    related_form: str | None = None
    linked: str | None = None
    defined: str = "word"
    typed: bool = False  # `?word a ontolex:Word` written (the same set in CompL-it, kept to read as written)
    requires: tuple[str, ...] = ()  # "definition", "example": senses that have one, shown or not
    absent: bool = False  # the lemma-bank word has no such CompL-it word (joined on the written form): a MINUS


@dataclass(frozen=True)
class Filter:
    """A condition on a role's value: the written form's prefix, suffix, contained letters, a regular expression or
    its length (`op` + number), an exact form, a number compared (`value` with `op`), an IRI prefix, or the same
    text as another role (`same_as`, `value` the role: a dialect word written as its Italian word), or one of several
    prefixes or suffixes (`prefix_in`, `suffix_in`, `value` them joined by "|": a VALUES list whose member is the
    role "prefix" or "suffix", a group key), or another role's number (`compare`, `value` the role: "ELITA's value
    above Sentix's"). `fold`: the text test is made on the lower-cased value."""

    role: str
    kind: str
    value: str | float
    op: str = "="
    negated: bool = False
    fold: bool = False


@dataclass(frozen=True)
class Aggregate:
    """An aggregate column: `func` of `role` (`*` for every row), named `name` in the answer."""

    func: str
    role: str
    name: str
    distinct: bool = False


@dataclass(frozen=True)
class Plan:
    words: Words = field(default_factory=Words)
    senses: Senses | None = None
    meta: str | None = None  # a catalog of what the knowledge base holds (data/plans/meta.py) in place of words
    joins: tuple[Join, ...] = ()
    filters: tuple[Filter, ...] = ()
    columns: tuple[str, ...] = ("italianWord",)  # roles shown (a list), or group keys (a group)
    optional_roles: tuple[str, ...] = ()  # columns shown only where the word has them (a usage note)
    # list, count, ask, group; count_groups: how many groups of `columns` pass `having` (a subquery: "how many
    # nouns have at least ten senses"); average_groups: the mean of the aggregate over the groups ("how many senses
    # has a verb on average"); ask_groups: whether any group passes `having` ("il verbo correre ha più di tre sensi?");
    # share: the percentage of the set's lemmas that have the resource joined as `covered` ("quanti su cento …");
    # extreme: the columns of every row whose `order` role is at its lowest (highest, descending), ties included;
    # with a count aggregate, the groups whose count is at the extreme ("il verbo con più traduzioni, pari merito")
    operator: str = "list"
    # the keys an outer step is taken per (keys among `columns`): extreme per key ("per ogni emozione, la parola con
    # la polarità più alta"); max_groups, min_groups: the highest (lowest) aggregate over the groups ("il numero
    # massimo di traduzioni di un verbo"); average_groups per key ("quante traduzioni ha in media una parola, per categoria")
    per: tuple[str, ...] = ()
    aggregates: tuple[Aggregate, ...] = ()
    having: Filter | None = None  # on an aggregate's name
    order: tuple[tuple[str, bool], ...] = ()  # (role or aggregate name, descending)
    limit: int | None = None
    distinct: bool = True

    def with_block(self, **changes) -> Plan:
        """This plan with one block more or changed (the enumerator's step)."""
        return replace(self, **changes)

    def join(self, resource: str) -> Join | None:
        return next((j for j in self.joins if j.resource == resource), None)

    def text(self) -> str:
        """A stable, short, question-like text form a model can read: one clause per block, in a fixed order."""
        parts = [_words_text(self.words)] if self.meta is None else [
            f"catalog {self.meta}" + (f" of the {self.words.bank} lemma bank" if self.words.bank != "italian" else "")]
        if self.senses is not None:
            parts.append(_senses_text(self.senses))
        parts += [_join_text(j) for j in self.joins]
        parts += [_filter_text(f) for f in self.filters]
        shown = [c + ("?" if c in self.optional_roles else "") for c in self.columns]
        head = {"list": "list " + ", ".join(shown), "count": "count", "ask": "ask",
                "group": "group by " + ", ".join(self.columns),
                "count_groups": "count groups by " + ", ".join(self.columns),
                "ask_groups": "ask groups by " + ", ".join(self.columns),
                "average_groups": "average over groups by " + ", ".join(self.columns),
                "max_groups": "maximum over groups by " + ", ".join(self.columns),
                "min_groups": "minimum over groups by " + ", ".join(self.columns),
                "average_max_groups": "average and maximum over groups by " + ", ".join(self.columns),
                "share": "share in percent", "extreme": "list " + ", ".join(shown) + " at the extreme"}[self.operator]
        if self.per:
            head += " per " + ", ".join(self.per)
        if self.aggregates:
            head += " " + ", ".join(f"{a.func}{' distinct' if a.distinct else ''}({a.role}) as {a.name}"
                                    for a in self.aggregates)
        parts.append(head)
        if self.having is not None:
            parts.append("having " + _filter_text(self.having))
        if self.order:
            parts.append("order " + ", ".join(f"{r}{' desc' if d else ''}" for r, d in self.order))
        if self.limit is not None:
            parts.append(f"limit {self.limit}")
        return " | ".join(p for p in parts if p)


def _words_text(words: Words) -> str:
    text = {"Lemma": "lemmas", "Hypolemma": "hypolemmas"}.get(words.kind or "", "words")
    if words.bank != "italian":
        text = f"{words.bank} {text}"
    if words.pos:
        text = ("+" if words.every_pos else "/").join(words.pos) + " " + text
    if words.without_pos:
        text += " not " + "/".join(words.without_pos)
    if words.forms:
        text += " written " + " or ".join(f"'{f}'" for f in words.forms)
    if words.iri:
        text += f" <{words.iri}>"
    return text


def _senses_text(senses: Senses) -> str:
    text = ("without " if senses.absent else "") + "CompL-it senses" + (f" ({senses.pos})" if senses.pos else "")
    if senses.relation:
        text += f" | {senses.relation}s" + (" at any depth" if senses.depth == "any" else "")
        if senses.related_form:
            text += f" written '{senses.related_form}'"
    if senses.requires:
        text += " | having " + " and ".join(f"a{'n' if r[0] in 'aeiou' else ''} {r}" for r in senses.requires)
    if senses.linked:
        text += f" | linked to the lemma bank through the {senses.linked}"
    return text


def _join_text(join: Join) -> str:
    text = {"has": "with", "optional": "optionally with", "absent": "without",
            "absent_minus": "minus", "covered": "share with"}[join.mode] + " " + join.resource
    details = [" or ".join(join.emotions)] if join.any_emotion else list(join.emotions)
    details += [f"not {e}" for e in join.without_emotions]
    if join.polarity:
        details.append(join.polarity.lower())
    if join.form:
        details.append(f"'{join.form}'")
    if join.pos:
        details.append(join.pos)
    if join.relation:
        details.append(join.relation)
    if join.note is not None:
        details.append(f"usage note '{join.note}'" if join.note else "with a usage note")
    if join.entries_only:
        details.append("entries")
    if join.only:
        details.append("no other emotion")
    return text + (f" ({', '.join(details)})" if details else "")


def _filter_text(f: Filter) -> str:
    value = f"'{f.value}'" if isinstance(f.value, str) else f"{f.value:g}"
    words = {"prefix": "starts with", "suffix": "ends with", "contains": "contains", "regex": "matches",
             "length": f"length {f.op}", "equals": "is", "value": f.op, "iri_prefix": "IRI starts with",
             "same_as": "written as", "prefix_in": "starts with one of", "suffix_in": "ends with one of",
             "compare": f.op}[f.kind]
    if f.kind in ("same_as", "compare"):  # another role's value: "sicilianWord written as italianWord"
        value = str(f.value)
    return f"{f.role}{' not' if f.negated else ''} {words} {value}{' (any case)' if f.fold else ''}"
