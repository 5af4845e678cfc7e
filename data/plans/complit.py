"""A plan's CompL-it block as SPARQL: everything CompL-it inside one SERVICE (a FILTER inside it cannot see a variable
bound only outside, so the filters on CompL-it's values go inside too), then the link of a CompL-it word to the
lemma bank's ?lemma outside it (CompL-it words share IRIs with LiITA lexical entries)."""

from __future__ import annotations

from nl2sparql.data.plans.model import RELATIONS, Plan
from nl2sparql.kb.vocab import COMPLIT_SERVICE as COMPLIT

RELATED_WORDS = {role for _, _, role in RELATIONS.values()}
COMPLIT_ROLES = {"word", "italianWord", "sense", "definition", "example", "posLabel", "relatedSense",
                 "relatedEntry"} | RELATED_WORDS


def _form(value: str) -> str:
    from nl2sparql.data.plans.compile import literal

    return f"[ ontolex:writtenRep {literal(value, 'it')} ]"


def complit_lines(plan: Plan, roles: set[str], filters: list[str]) -> list[str]:
    senses = plan.senses
    relation = RELATIONS.get(senses.relation or "")
    related_role = relation[2] if relation else None
    word = ["a ontolex:Word"] if senses.typed else []
    by_form = senses.linked == "form"  # joined on the written form: ?italianWord on both sides
    named = len(plan.words.forms) == 1 and not by_form and not any(f.role == "italianWord" for f in plan.filters)
    if named:  # one named form, no filter on it: written in the pattern
        word.append(f"ontolex:canonicalForm {_form(plan.words.forms[0])}")
    elif "italianWord" in roles or plan.words.forms or by_form:
        word.append("ontolex:canonicalForm [ ontolex:writtenRep ?italianWord ]")
    if senses.pos:
        word.append(f'lexinfo:partOfSpeech [ rdfs:label "{senses.pos}" ]')
    elif "posLabel" in roles:
        word.append("lexinfo:partOfSpeech [ rdfs:label ?posLabel ]")
    roles = roles | set(senses.requires)
    needs_sense = relation or {"sense", "definition", "example"} & roles or any(
        a.role == "sense" for a in plan.aggregates)
    if needs_sense or not word:  # nothing else said of the word: a CompL-it word is one with senses
        word.append("ontolex:sense ?sense")
    lines = []
    if plan.words.forms and not named:
        from nl2sparql.data.plans.compile import literal

        lines.append("VALUES ?italianWord { " + " ".join(literal(f, "it") for f in plan.words.forms) + " }")
    lines.append(f"?word {' ; '.join(word)} .")
    if relation:
        prop, related_is_subject, _ = relation
        path = f"lexinfo:{prop}" + ("+" if senses.depth == "any" else "")
        lines.append(f"?relatedSense {path} ?sense ." if related_is_subject else f"?sense {path} ?relatedSense .")
        target = _form(senses.related_form) if senses.related_form else f"[ ontolex:writtenRep ?{related_role} ]"
        lines.append(f"?relatedEntry ontolex:sense ?relatedSense ; ontolex:canonicalForm {target} .")
    defined = "?relatedSense" if senses.defined == "related" and relation else "?sense"
    if "definition" in roles:
        lines.append(f"{defined} skos:definition ?definition .")
    if "example" in roles:
        optional = "example" in plan.optional_roles
        triple = f"{defined} skos:example ?example"
        lines.append(f"OPTIONAL {{ {triple} }}" if optional else triple + " .")
    body = " ".join(lines + [f"FILTER({f})" for f in filters])
    out = [f"SERVICE <{COMPLIT}> {{ {body} }}"]
    if senses.linked in ("word", "related"):
        out.append(f"?{'relatedEntry' if senses.linked == 'related' else 'word'} ontolex:canonicalForm ?lemma .")
    return out
