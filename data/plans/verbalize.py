"""A plan read back as one canonical sentence in Italian or English: what is asked of the knowledge base, block by
block, so a user can check it without reading SPARQL ("Italian nouns that express Tristezza in ELITA, counted")."""

from __future__ import annotations

from nl2sparql.data.plans.model import Filter, Join, Plan

POS = {"noun": ("nouns", "nomi"), "verb": ("verbs", "verbi"), "adjective": ("adjectives", "aggettivi"),
       "adverb": ("adverbs", "avverbi"), "proper_noun": ("proper nouns", "nomi propri"),
       "pronoun": ("pronouns", "pronomi"), "interjection": ("interjections", "interiezioni")}
ROLES = {"italianWord": ("written form", "forma scritta"), "lemma": ("lemma", "lemma"),
         "pos": ("part of speech", "parte del discorso"), "emotionLabel": ("emotion", "emozione"),
         "prefix": ("prefix", "prefisso"), "suffix": ("suffix", "suffisso"),
         "emotion": ("emotion", "emozione"), "polarity": ("polarity", "polarità"),
         "polarityValue": ("polarity value", "valore di polarità"), "elitaValue": ("ELITA value", "valore ELITA"),
         "sentixValue": ("Sentix value", "valore Sentix"), "sicilianWord": ("Sicilian word", "parola siciliana"),
         "parmigianoWord": ("Parmigiano word", "parola parmigiana"), "sicilianLemma": ("Sicilian translations",
                                                                                    "traduzioni siciliane"),
         "parmigianoLemma": ("Parmigiano translations", "traduzioni parmigiane"), "usageNote": ("usage note", "nota d'uso"),
         "definition": ("definition", "definizione"), "example": ("example", "esempio"), "sense": ("sense", "senso"),
         "hypernymWord": ("hypernym", "iperonimo"), "hyponymWord": ("hyponym", "iponimo"),
         "partWord": ("part", "parte"), "wholeWord": ("whole", "intero"), "synonymWord": ("synonym", "sinonimo"),
         "antonymWord": ("antonym", "contrario"), "word": ("CompL-it word", "parola di CompL-it"), "initial": ("initial letter", "lettera iniziale"),
         "length": ("length in letters", "lunghezza in lettere"), "label": ("label", "etichetta"), "type": ("type", "tipo"),
         **{f"ending{n}": (f"last {n} letters", f"ultime {n} lettere") for n in (2, 3, 4)},
         "languageTag": ("language tag", "tag di lingua"), "sicilianTag": ("Sicilian language tag", "tag di lingua "
                                                                         "siciliano"),
         "parmigianoTag": ("Parmigiano language tag", "tag di lingua parmigiano"),
         "gap": ("gap between the ELITA and Sentix values", "distanza tra valore ELITA e valore Sentix")}
DIALECTS = {"sicilian": ("Sicilian", "siciliana", "siciliano"), "parmigiano": ("Parmigiano", "parmigiana",
                                                                               "parmigiano")}
POLARITY = {"Positive": ("positive", "positive"), "Negative": ("negative", "negative"),
            "Neutral": ("neutral", "neutre")}
RELATION_WORDS = {"hypernym": ("hypernyms", "iperonimi"), "hyponym": ("hyponyms", "iponimi"),
                  "meronym": ("parts", "parti"), "holonym": ("wholes", "interi"), "synonym": ("synonyms", "sinonimi"),
                  "antonym": ("antonyms", "contrari"), "hypernym-by-hyponym": ("hypernyms", "iperonimi"),
                  "hyponym-by-hyponym": ("hyponyms", "iponimi")}


def _i(lang: str) -> int:
    return 1 if lang == "it" else 0


_FUNCS = {"avg": ("average", "la media di"), "min": ("lowest", "il minimo di"), "max": ("highest", "il massimo di"),
          "sum": ("sum of the", "la somma di")}  # an aggregate other than a count, said after "counted"


def role_name(role: str, lang: str) -> str:
    return ROLES.get(role, (role, role))[_i(lang)]


def _words(plan: Plan, lang: str) -> str:
    words, i = plan.words, _i(lang)
    if words.pos and all(p in POS for p in words.pos):
        if words.every_pos:  # one written form, a lemma of each part of speech
            kinds = (" and " if lang == "en" else " che ").join(POS[p][i] for p in words.pos)
            return f"Italian words that are both {kinds}" if lang == "en" else f"parole italiane che sono sia {kinds}"
        noun = (" or " if lang == "en" else " o ").join(POS[p][i] for p in words.pos)
    else:
        noun = {"Hypolemma": ("hypolemmas", "ipolemmi"), "Lemma": ("lemmas", "lemmi")}.get(
            words.kind or "", ("words", "parole"))[i]
    feminine = noun == "parole"
    if words.bank in DIALECTS:
        text = f"{DIALECTS[words.bank][0]} {noun}" if lang == "en" else f"{noun} del lessico {DIALECTS[words.bank][2]}"
    else:
        text = f"Italian {noun}" if lang == "en" else f"{noun} italian{'e' if feminine else 'i'}"
    if words.iri:
        text += f" <{words.iri}>"
    if words.without_pos:
        text += (" that are not " if lang == "en" else " che non sono ") + (" or " if lang == "en" else " né ").join(
            POS.get(p, (p, p))[i] for p in words.without_pos)
    if words.forms:
        quoted = ", ".join(f"«{f}»" for f in words.forms)
        text += f" written {quoted}" if lang == "en" else f" scritt{'e' if feminine else 'i'} {quoted}"
    return text


def _join(join: Join, lang: str) -> str:
    en = lang == "en"
    if join.resource == "elita":
        if join.emotions:
            what = ("that express " if en else "che esprimono ") + ("only " if en else "soltanto ") * join.only \
                + (" or " if en else " o ").join(join.emotions) * join.any_emotion \
                + " + ".join(join.emotions) * (not join.any_emotion) + " in ELITA"
        else:
            what = "that carry an emotion in ELITA" if en else "che hanno un'emozione in ELITA"
        if join.polarity:
            what += f", {POLARITY[join.polarity][0 if en else 1]}"
    elif join.resource == "sentix":
        what = "with a Sentix polarity" if en else "con una polarità Sentix"
        if join.polarity:
            what = (f"that are {POLARITY[join.polarity][0]} in Sentix" if en else
                    f"che sono {POLARITY[join.polarity][1]} in Sentix")
    else:
        name = DIALECTS[join.resource]
        what = f"that have a {name[0]} translation" if en else f"che hanno una traduzione {name[1]}"
        if join.form:
            what = f"translated into {name[0]} as «{join.form}»" if en else f"tradotti in {name[2]} con «{join.form}»"
        if join.note is not None:
            note = f"«{join.note}»" if join.note else ""
            what += f" with a usage note {note}".rstrip() if en else f" con una nota d'uso {note}".rstrip()
    if join.mode in ("absent", "absent_minus"):
        return ("not " if en else "non ") + what.replace("that ", "").replace("che ", "")
    if join.mode == "optional":
        return f"({what}, where there is one)" if en else f"({what}, dove c'è)"
    if join.mode == "covered":
        return f"the share of them {what}" if en else f"la quota di quelli {what}"
    return what


def _filter(f: Filter, lang: str) -> str:
    en = lang == "en"
    value = f"«{f.value}»" if isinstance(f.value, str) else f"{f.value:g}"
    text = {"prefix": ("starting with", "che iniziano per"), "suffix": ("ending in", "che finiscono in"),
            "contains": ("containing", "che contengono"), "regex": ("matching", "che corrispondono a"),
            "length": (f"of length {f.op}", f"di lunghezza {f.op}"), "equals": ("written exactly", "scritti"),
            "value": (f"with {role_name(f.role, lang)} {f.op}", f"con {role_name(f.role, lang)} {f.op}"),
            "iri_prefix": ("whose IRI starts with", "il cui IRI inizia con"),
            "same_as": ("written exactly as the", "scritti esattamente come"),
            "compare": (f"with {role_name(f.role, lang)} {f.op}", f"con {role_name(f.role, lang)} {f.op}"),
            "prefix_in": ("starting with one of", "che iniziano per uno tra"),
            "suffix_in": ("ending in one of", "che finiscono in uno tra")}[f.kind][0 if en else 1]
    if f.kind in ("prefix_in", "suffix_in"):
        value = ", ".join(f"«{v}»" for v in str(f.value).split("|"))
    if f.kind in ("same_as", "compare"):
        value = role_name(str(f.value), lang)
    if f.role not in ("italianWord", "lemma") and f.kind not in ("value", "compare"):
        text = f"({role_name(f.role, lang)}) {text}"
    return ("not " if en else "non ") * f.negated + f"{text} {value}"


def verbalize(plan: Plan, lang: str = "en") -> str:
    """The plan as one sentence in `lang` ("it" or "en")."""
    en = lang == "en"
    if plan.meta is not None:
        subject = ("the knowledge base's " if en else "il catalogo ") + plan.meta.replace("_", " ")
    else:
        subject = _words(plan, lang)
    parts = [subject]
    if plan.senses is not None:
        senses = plan.senses
        if senses.absent:  # "che non compaiono in CompL-it", "senza definizione in CompL-it"
            parts.append(("with no definition in CompL-it" if en else "senza definizione in CompL-it")
                         if "definition" in senses.requires else ("not in CompL-it" if en else "assenti da CompL-it"))
        elif senses.relation:
            parts.append(f"their CompL-it {RELATION_WORDS[senses.relation][0]}" if en else
                         f"i loro {RELATION_WORDS[senses.relation][1]} in CompL-it")
        else:
            parts.append("their CompL-it senses" if en else "i loro sensi in CompL-it")
    parts += [_join(j, lang) for j in plan.joins]
    parts += [_filter(f, lang) for f in plan.filters]
    text = ", ".join(parts)
    counts = {a.name for a in plan.aggregates}

    def name(role: str) -> str:
        return ("count" if en else "numero") if role in counts else role_name(role, lang)

    shown = ", ".join(name(c) for c in plan.columns)
    if plan.operator == "ask":
        text = ("Is there any: " if en else "Esiste almeno un caso: ") + text + "?"
    elif plan.aggregates and all(a.func == "group_concat" for a in plan.aggregates):  # one cell lists them
        listed = ", ".join(role_name(a.role, lang) for a in plan.aggregates)
        text += (f", {listed} listed in one cell" if en else f", {listed} elencati in una cella") + (
            f" per {shown}" if shown else "")
    elif plan.operator == "count":  # "contati, con la media di valore di polarità": each aggregate said
        said = [("counted" if en else "contati") if a.func == "count" else
                (f"the {_FUNCS[a.func][0]} {role_name(a.role, lang)}" if en else
                 f"{_FUNCS[a.func][1]} {role_name(a.role, lang)}") for a in plan.aggregates if a.func == "count" or a.func in _FUNCS]
        text += ", " + (" and " if en else " e ").join(said or ["counted" if en else "contati"])
    elif plan.operator == "group":
        text += (f", counted per {shown}" if en else f", contati per {shown}")
    elif plan.operator == "count_groups" and plan.having is not None:
        bound = f"{plan.having.op} {plan.having.value:g}"
        text += (f", how many groups by {shown} have a count {bound}" if en
                 else f", quanti gruppi per {shown} hanno un numero {bound}")
    elif plan.operator == "ask_groups" and plan.having is not None:
        bound = f"{plan.having.op} {plan.having.value:g}"
        text += (f": is there any {shown} with a count {bound}?" if en
                 else f": esiste un {shown} con un numero {bound}?")
    elif plan.operator == "extreme" and plan.order:
        role, descending = plan.order[0]
        side = ("highest" if descending else "lowest") if en else ("più alto" if descending else "più basso")
        per = ", ".join(name(k) for k in plan.per)
        per = (f" for each {per}" if en else f" per ogni {per}") if per else ""
        text += (f": {shown}, those with the {side} {name(role)}{per} (ties included)" if en
                 else f": {shown}, quelli con il {name(role)} {side}{per} (tutti i pari merito)")
    elif plan.operator == "share":
        text += ", in percent" if en else ", in percentuale"
    elif plan.operator in ("max_groups", "min_groups"):
        top = plan.operator == "max_groups"
        text += (f", the {'highest' if top else 'lowest'} count per {shown}" if en
                 else f", il numero {'più alto' if top else 'più basso'} per {shown}")
    elif plan.operator in ("average_groups", "average_max_groups"):
        both = plan.operator == "average_max_groups"
        text += (f", the average{' and the highest' if both else ''} per {shown} of the count" if en
                 else f", la media{' e il massimo' if both else ''} per {shown} del numero")
        if plan.per:
            per = ", ".join(name(k) for k in plan.per)
            text += f", one average for each {per}" if en else f", una media per ogni {per}"
            if plan.having is not None:
                bound = f"{plan.having.op} {plan.having.value:g}"
                text += f" with {bound} groups" if en else f" con {bound} gruppi"
    elif shown:
        text += f": {shown}"
    if plan.having is not None and plan.operator == "group" and plan.having.kind == "compare":  # two counts
        text += (f" (only where the count of {role_name(_counted(plan, plan.having.role), lang)} is {plan.having.op} "
                 f"that of {role_name(_counted(plan, str(plan.having.value)), lang)})" if en else
                 f" (solo dove il numero di {role_name(_counted(plan, plan.having.role), lang)} è {plan.having.op} "
                 f"quello di {role_name(_counted(plan, str(plan.having.value)), lang)})")
    elif plan.having is not None and plan.operator == "group":
        text += (f" (only where the count is {plan.having.op} {plan.having.value:g})" if en
                 else f" (solo dove il numero è {plan.having.op} {plan.having.value:g})")
    if plan.order and plan.limit:
        key, descending = plan.order[0]
        text += (f" (the first {plan.limit} by {name(key)}{', highest first' if descending else ''})"
                 if en else f" (i primi {plan.limit} per {name(key)}"
                            f"{', dal più alto' if descending else ''})")
    elif plan.limit:
        text += f" (at most {plan.limit})" if en else f" (al massimo {plan.limit})"
    return text[0].upper() + text[1:]


def _counted(plan: Plan, name: str) -> str:
    """The role an aggregate of the plan counts, by the aggregate's name."""
    return next((a.role for a in plan.aggregates if a.name == name), name)
