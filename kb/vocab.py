"""IRIs of the live LiITA schema (see ../shared/liita/SCHEMA.md) and of the ids we mint ourselves."""

ONTOLEX = "http://www.w3.org/ns/lemon/ontolex#"
LILA = "http://lila-erc.eu/ontologies/lila/"
LIME = "http://www.w3.org/ns/lemon/lime#"
VARTRANS = "http://www.w3.org/ns/lemon/vartrans#"
LEXINFO = "http://www.lexinfo.net/ontology/3.0/lexinfo#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
DCTERMS = "http://purl.org/dc/terms/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
XSD = "http://www.w3.org/2001/XMLSchema#"
ELITA = "http://w3id.org/elita/"
MARL = "http://www.gsi.upm.es/ontologies/marl/ns#"

PREFIXES: dict[str, str] = {
    "ontolex": ONTOLEX, "lila": LILA, "lime": LIME, "vartrans": VARTRANS, "lexinfo": LEXINFO,
    "skos": SKOS, "dcterms": DCTERMS, "rdf": RDF, "rdfs": RDFS, "xsd": XSD, "elita": ELITA,
    "marl": MARL,
}

OWL = "http://www.w3.org/2002/07/owl#"
# The namespaces the live GraphDB endpoint predeclares: users' queries use them without PREFIX lines.
STANDARD_PREFIXES: dict[str, str] = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD}

# Named graphs of the live endpoint.
LIITA_GRAPH = "http://liita.it/data"
ELITA_GRAPH = "http://w3id.org/elita"

# CompL-it lives behind SERVICE on the live side; locally its triples sit in a named graph with the
# same IRI, which the embedded endpoint hides from the default graph and from GRAPH ?g.
COMPLIT_SERVICE = "https://klab.ilc.cnr.it/graphdb-compl-it/"

LIITA_LEMMA = "http://liita.it/data/id/lemma/"
LIITA_HYPOLEMMA = "http://liita.it/data/id/hypolemma/"

PARMIGIANO_LEMMA_BANK = "http://liita.it/data/id/DialettoParmigiano/lemma/LemmaBank"
PARMIGIANO_LEXICON = "http://liita.it/data/id/LexicalReources/DialettoParmigiano/Lexicon"
SICILIAN_LEMMA_BANK = "http://liita.it/data/id/DialettoSiciliano/lemma/LemmaBank"
SICILIAN_LEXICON = "http://liita.it/data/id/LexicalReources/DialettoSiciliano/Lexicon"

# Everything below is minted by nl2sparql, in an id space that cannot be mistaken for LiITA's.
MINTED = "http://nl2sparql.invalid/"
MINTED_LEMMA = MINTED + "liita/lemma/"
SAMPLE_SOURCE = "nl2sparql sample data (hand-authored, not the published resource)"

UPOS_TO_LILA: dict[str, str] = {
    "NOUN": "noun", "VERB": "verb", "ADJ": "adjective", "ADV": "adverb", "PRON": "pronoun",
    "DET": "determiner", "NUM": "numeral", "ADP": "adposition", "CCONJ": "coordinating_conjunction",
    "SCONJ": "subordinating_conjunction", "INTJ": "interjection", "PROPN": "proper_noun", "X": "other",
    "AUX": "verb",
}
