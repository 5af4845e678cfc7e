"""Every pattern of ../shared/liita/SCHEMA.md, written as a query for the live endpoint, returns rows here."""

import pytest

from conftest import run

PARMIGIANO = "<http://liita.it/data/id/LexicalReources/DialettoParmigiano/Lexicon>"
SICILIAN = "<http://liita.it/data/id/LexicalReources/DialettoSiciliano/Lexicon>"
COMPLIT = "SERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/>"

PATTERNS = {
    "lemma bank nouns": """SELECT ?lemma ?wr WHERE { GRAPH <http://liita.it/data> {
        ?lemma a lila:Lemma ; ontolex:writtenRep ?wr ; lila:hasPOS lila:noun } } LIMIT 20""",
    "real LiITA lemma IRI": """SELECT ?lemma WHERE { GRAPH <http://liita.it/data> {
        ?lemma ontolex:writtenRep "abbaiare"@it ; lila:hasPOS lila:verb }
        FILTER(STRSTARTS(STR(?lemma), "http://liita.it/data/id/lemma/")) }""",
    "hypolemma without a Lemma type": """SELECT ?hypolemma WHERE { ?hypolemma lila:hasPOS ?pos .
        FILTER(STRSTARTS(STR(?hypolemma), "http://liita.it/data/id/hypolemma/"))
        FILTER NOT EXISTS { ?hypolemma a lila:Lemma } } LIMIT 5""",
    "ELITA emotion words": """SELECT ?wr ?value WHERE { GRAPH <http://w3id.org/elita> {
        ?entry elita:HasEmotion ?emotion ; ontolex:canonicalForm ?lemma ; marl:hasPolarityValue ?value .
        ?emotion a elita:Emotion ; rdfs:label "Gioia" } ?lemma ontolex:writtenRep ?wr }""",
    "Sentix polarity": """SELECT ?value ?polarity WHERE { ?entry ontolex:canonicalForm ?lemma ;
        marl:hasPolarityValue ?value ; marl:hasPolarity ?polarity . ?lemma ontolex:writtenRep "felicità"@it }""",
    "Parmigiano translation": f"""SELECT ?parmigianoWord WHERE {{ ?lemma ontolex:writtenRep "cane"@it .
        ?italianEntry ontolex:canonicalForm ?lemma ; vartrans:translatableAs ?parmigianoEntry .
        {PARMIGIANO} lime:entry ?italianEntry .
        ?parmigianoEntry ontolex:canonicalForm ?parmigianoLemma . ?parmigianoLemma ontolex:writtenRep ?parmigianoWord ;
        dcterms:isPartOf <http://liita.it/data/id/DialettoParmigiano/lemma/LemmaBank> }}""",
    "Sicilian translation": f"""SELECT ?sicilianWord WHERE {{ ?lemma ontolex:writtenRep "casa"@it .
        ?italianEntry ontolex:canonicalForm ?lemma ; vartrans:translatableAs ?sicilianEntry .
        {SICILIAN} lime:entry ?italianEntry .
        ?sicilianEntry ontolex:canonicalForm [ ontolex:writtenRep ?sicilianWord ;
        dcterms:isPartOf <http://liita.it/data/id/DialettoSiciliano/lemma/LemmaBank> ] }}""",
    "both dialects, one entry per dialect": f"""SELECT ?wr ?parmigianoWord ?sicilianWord WHERE {{
        ?lemma ontolex:writtenRep ?wr .
        ?parmigianoItalian ontolex:canonicalForm ?lemma ; vartrans:translatableAs ?parmigianoEntry .
        {PARMIGIANO} lime:entry ?parmigianoItalian .
        ?parmigianoEntry ontolex:canonicalForm [ ontolex:writtenRep ?parmigianoWord ] .
        ?sicilianItalian ontolex:canonicalForm ?lemma ; vartrans:translatableAs ?sicilianEntry .
        {SICILIAN} lime:entry ?sicilianItalian .
        ?sicilianEntry ontolex:canonicalForm [ ontolex:writtenRep ?sicilianWord ] }} LIMIT 10""",
    "ELITA and Sentix, one entry each": """SELECT ?wr ?emotionLabel ?value WHERE {
        GRAPH <http://w3id.org/elita> { ?elitaEntry elita:HasEmotion ?emotion ; ontolex:canonicalForm ?lemma .
        ?emotion rdfs:label ?emotionLabel }
        ?sentixEntry ontolex:canonicalForm ?lemma ; marl:hasPolarityValue ?value . ?lemma ontolex:writtenRep ?wr } LIMIT 10""",
    "CompL-it definition": f"""SELECT ?definition WHERE {{ {COMPLIT} {{
        ?word a ontolex:Word ; lexinfo:partOfSpeech [ rdfs:label "noun" ] ;
        ontolex:canonicalForm [ ontolex:writtenRep "cellula"@it ] ; ontolex:sense ?sense .
        ?sense skos:definition ?definition }} }}""",
    "CompL-it word joined to the lemma bank": f"""SELECT ?lemma WHERE {{ {COMPLIT} {{
        ?word ontolex:canonicalForm [ ontolex:writtenRep "cellula"@it ] }}
        ?word ontolex:canonicalForm ?lemma . GRAPH <http://liita.it/data> {{ ?lemma a lila:Lemma }} }}""",
    "CompL-it hyponym relation": f"""SELECT DISTINCT ?specificWord WHERE {{ {COMPLIT} {{
        ?specificSense lexinfo:hyponym ?generalSense .
        ?word ontolex:sense ?generalSense ; ontolex:canonicalForm [ ontolex:writtenRep "animale"@it ] .
        ?specificWord_ ontolex:sense ?specificSense ; ontolex:canonicalForm [ ontolex:writtenRep ?specificWord ] }} }}""",
    "CompL-it antonym": f"""SELECT DISTINCT ?antonym WHERE {{ {COMPLIT} {{
        ?word ontolex:canonicalForm [ ontolex:writtenRep "bello"@it ] ; ontolex:sense ?sense .
        ?sense lexinfo:antonym ?other . ?otherWord ontolex:sense ?other ;
        ontolex:canonicalForm [ ontolex:writtenRep ?antonym ] }} }}""",
    "CompL-it example": f"""SELECT ?example WHERE {{ {COMPLIT} {{ ?sense skos:example ?example }} }} LIMIT 3""",
}


@pytest.mark.parametrize("name", list(PATTERNS))
def test_schema_pattern_returns_rows(endpoint, name):
    result = run(endpoint, PATTERNS[name])
    assert not result.truncated
    assert len(result.rows) > 0


def _words(endpoint, body):
    return {row[0] for row in run(endpoint, body).values()}


def test_hypernym_subject_is_the_broader_sense(endpoint):
    broader = _words(endpoint, f"""SELECT DISTINCT ?generalWord WHERE {{ {COMPLIT} {{
        ?word ontolex:canonicalForm [ ontolex:writtenRep "cane"@it ] ; ontolex:sense ?specific .
        ?general lexinfo:hypernym ?specific .
        ?generalWord_ ontolex:sense ?general ; ontolex:canonicalForm [ ontolex:writtenRep ?generalWord ] }} }}""")
    assert "canide" in broader


def test_part_meronym_has_the_part_as_subject(endpoint):
    parts = _words(endpoint, f"""SELECT DISTINCT ?partWord WHERE {{ {COMPLIT} {{
        ?word ontolex:canonicalForm [ ontolex:writtenRep "albero"@it ] ; ontolex:sense ?whole .
        ?part lexinfo:partMeronym ?whole .
        ?partWord_ ontolex:sense ?part ; ontolex:canonicalForm [ ontolex:writtenRep ?partWord ] }} }}""")
    assert "tronco" in parts


def test_one_italian_entry_shared_by_two_dialects_returns_nothing(endpoint):
    result = run(endpoint, f"""SELECT ?wr WHERE {{ ?lemma ontolex:writtenRep ?wr .
        ?italianEntry ontolex:canonicalForm ?lemma ; vartrans:translatableAs ?parmigianoEntry, ?sicilianEntry .
        {PARMIGIANO} lime:entry ?italianEntry . {SICILIAN} lime:entry ?italianEntry . }}""")
    assert result.rows == ()


def test_emotion_labels_are_case_sensitive(endpoint):
    upper = run(endpoint, 'SELECT ?e WHERE { GRAPH <http://w3id.org/elita> { ?e a elita:Emotion ; rdfs:label "Rabbia" } }')
    lower = run(endpoint, 'SELECT ?e WHERE { GRAPH <http://w3id.org/elita> { ?e a elita:Emotion ; rdfs:label "rabbia" } }')
    assert len(upper.rows) == 1 and lower.rows == ()


def test_elita_sample_is_marked_as_sample(endpoint):
    result = run(endpoint, """SELECT (COUNT(?entry) AS ?all) (COUNT(?source) AS ?marked) WHERE {
        GRAPH <http://w3id.org/elita> { ?entry elita:HasEmotion ?emotion OPTIONAL { ?entry dcterms:source ?source } } }""")
    total, marked = result.values()[0]
    assert int(total) > 300 and total == marked
