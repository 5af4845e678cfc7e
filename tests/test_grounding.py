"""Entity grounding: words of the question checked against the lemma bank before generation."""

import dspy
from conftest import PREFIXES
from dspy.utils.dummies import DummyLM

from nl2sparql.modules.program import NL2SPARQL, ProgramSettings
from nl2sparql.modules.runtime import Runtime
from nl2sparql.retrieval.grounding import (Lexicon, dialect_lexicons, fold, ground_question, ground_words,
                                          spot_dialect_words)

LEXICON = Lexicon(["casa", "Casa", "calza", "città", "perché", "tristezza", "triste", "Roma", "acqua", "gatto", "dato"])
CASA = PREFIXES + 'SELECT ?l WHERE { GRAPH <http://liita.it/data> { ?l ontolex:writtenRep "casa"@it } }'


def test_fold_removes_case_accents_and_apostrophe_shapes():
    assert fold("Città") == fold("citta") == "citta"
    assert fold("l’acqua") == fold("l'acqua")


def test_exact_case_and_accent_matches_give_the_written_form():
    assert LEXICON.ground("casa").match == "exact" and LEXICON.ground("casa").message() is None
    assert LEXICON.ground("Tristezza").form == "tristezza" and LEXICON.ground("Tristezza").match == "case"
    citta = LEXICON.ground("citta")
    assert (citta.form, citta.match) == ("città", "accent")
    assert citta.message("en") == "'citta' is in the lemma bank as 'città'"
    assert LEXICON.ground("CASA").form == "Casa"  # a capitalised word prefers the capitalised form
    assert LEXICON.ground("Perche").form == "perché"


def test_unknown_words_get_close_suggestions_in_the_question_language():
    caza = LEXICON.ground("caza")
    assert not caza.known and caza.form is None and caza.suggestions == ("calza", "casa")
    assert caza.message("en") == "'caza' is not in the lemma bank; did you mean 'calza' or 'casa'?"
    assert caza.message("it") == "'caza' non è nel lemmario; forse 'calza' o 'casa'?"
    assert LEXICON.ground("gato").suggestions[:2] == ("gatto", "dato")  # a lost double consonant first
    nothing = LEXICON.ground("xqzw")
    assert nothing.suggestions == () and nothing.message("en") == "'xqzw' is not in the lemma bank"


def test_lexicon_reads_every_written_form_of_the_real_store(endpoint):
    lexicon = Lexicon.from_endpoint(endpoint)
    assert len(lexicon) > 1_000  # far above the row cap of one page would not matter: one row holds them all
    assert lexicon.ground("casa").match == "exact"


def test_program_passes_grounded_forms_to_generation_and_reports_unknown_words(endpoint):
    lm = DummyLM([{"sparql": CASA}, {"sparql": CASA}])
    dspy.configure(lm=lm)
    program = NL2SPARQL(ProgramSettings(examples_k=0, ontology_k=0), Runtime(endpoint=endpoint, lexicon=LEXICON))
    out = program("Quali sensi ha la parola «citta»?")
    prompt = lm.history[-1]["messages"][-1]["content"]
    analysis = prompt.split("[[ ## analysis ## ]]", 1)[1]
    assert "words: città" in analysis and out.entities == ["città"]
    assert out.notes == ["'citta' è nel lemmario come 'città'"]
    out = program("Which senses does the word «caza» have?")
    assert out.grounding[0]["suggestions"] == ["calza", "casa"]
    assert out.notes == ["'caza' is not in the lemma bank; did you mean 'calza' or 'casa'?"]
    assert "not in the lemma bank: caza" in lm.history[-1]["messages"][-1]["content"]


DIALECTS = {"parmigiano": Lexicon(["rezdôra", "càn", "car"]), "sicilian": Lexicon(["picciottu", "casa"])}


def test_words_the_italian_bank_lacks_are_looked_up_in_the_dialect_banks():
    rezdora, casa, rezdora_plain, gatto = ground_words(LEXICON, ["rezdôra", "casa", "rezdora", "gatto"], DIALECTS)
    assert (rezdora.dialect, rezdora.literal, rezdora.match) == ("parmigiano", '"rezdôra"@roa', "exact")
    assert rezdora.message("it") == "'rezdôra' è una parola del lessico parmigiano"
    assert casa.dialect is None and casa.match == "exact"  # Italian first: Sicilian "casa" does not win
    assert (rezdora_plain.form, rezdora_plain.dialect) == ("rezdôra", "parmigiano")
    assert rezdora_plain.message("en") == "'rezdora' is a Parmigiano word ('rezdôra')"
    assert gatto.dialect is None and gatto.match == "exact"


def test_unquoted_dialect_words_are_spotted_when_the_question_names_the_dialect():
    question = "Che cosa vuol dire in italiano il parmigiano rezdôra?"
    assert spot_dialect_words(question, LEXICON, DIALECTS, ["parmigiano"]) == ["rezdôra"]
    assert spot_dialect_words(question, LEXICON, DIALECTS, ["sicilian"]) == []
    assert spot_dialect_words("Il siciliano «casa» è italiano?", LEXICON, DIALECTS, ["sicilian"]) == []


def test_a_question_grounds_its_named_words_and_its_spotted_dialect_words_once():
    question = "Il parmigiano rezdôra traduce la parola caza?"
    found = ground_question(question, ("caza",), ("parmigiano",), LEXICON, DIALECTS)
    assert [(g.typed, g.dialect) for g in found] == [("caza", None), ("rezdôra", "parmigiano")]
    assert found[0].suggestions == ("calza", "casa")  # an unknown word still gets suggestions
    assert ground_question("Buongiorno", (), (), LEXICON, DIALECTS) == []


def test_lookup_gives_no_suggestions_and_ground_does():
    assert LEXICON.lookup("caza").suggestions == () and not LEXICON.lookup("caza").known
    assert LEXICON.ground("caza").suggestions == ("calza", "casa")
    assert LEXICON.lookup("citta").form == "città"


def test_dialect_banks_read_from_the_real_store(endpoint):
    banks = dialect_lexicons(endpoint)
    assert banks["parmigiano"].ground("rezdôra").match == "exact"
    assert banks["sicilian"].ground("picciottu").match == "exact"
    assert banks["sicilian"].ground("rezdôra").match != "exact"


def test_a_dialect_word_reaches_generation_with_its_tag_and_an_italian_tag_is_fixed(endpoint):
    from nl2sparql.data.dataset import load_dataset

    gold = next(r for r in load_dataset() if r.id == "dia-041")
    wrong_tag = gold.sparql.replace('"rezdôra"@roa', '"rezdôra"@it')
    assert wrong_tag != gold.sparql
    lm = DummyLM([{"sparql": wrong_tag}])
    dspy.configure(lm=lm)
    program = NL2SPARQL(ProgramSettings(examples_k=0, ontology_k=0, max_repairs=0), Runtime(endpoint=endpoint))
    out = program(gold.question_it)
    analysis = lm.history[-1]["messages"][-1]["content"].split("[[ ## analysis ## ]]", 1)[1]
    assert 'dialect words, on the dialect side: "rezdôra"@roa (parmigiano)' in analysis
    assert [a.outcome for a in out.attempts] == ["empty", "ok"] and out.attempts[1].step == "fix:dialect-tag"
    assert out.ok and out.rows and len(lm.history) == 1
    assert out.notes == ["'rezdôra' è una parola del lessico parmigiano"]


def test_the_analyze_tool_reports_the_dialect_words_the_program_spots(endpoint):
    from nl2sparql.serve.tools import Toolbox

    toolbox = Toolbox(runtime=Runtime(endpoint=endpoint, lexicon=LEXICON, dialect_lexicons=DIALECTS))
    out = toolbox.analyze_patterns("Che cosa vuol dire in italiano il parmigiano rezdôra?")
    assert out["entities"] == [] and out["dialects"] == ["parmigiano"]
    assert [(g["form"], g["dialect"]) for g in out["grounding"]] == [("rezdôra", "parmigiano")]
