"""The `nl2sparql` command as a user runs it: help, stats, queries, one-line red errors."""

import json

from click.testing import CliRunner

from nl2sparql.cli import main
from nl2sparql.paths import ARTIFACTS_ENV


def invoke(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_help_lists_the_kb_commands():
    result = invoke("kb", "--help")
    assert result.exit_code == 0
    for command in ("build", "stats", "query"):
        assert command in result.output


def test_stats_shows_all_five_parts(kb_store):
    result = invoke("kb", "stats", "--store", str(kb_store))
    assert result.exit_code == 0
    for part in ("Lemma bank", "ELITA emotions (sample)", "Sentix", "Parmigiano", "Sicilian (sample)", "CompL-it",
                 "lila:noun"):
        assert part in result.output


def test_stats_json(kb_store):
    data = json.loads(invoke("kb", "stats", "--store", str(kb_store), "--json").output)
    assert data["sentix"]["entries"] > 0 and data["graphs"]["http://w3id.org/elita"] > 0


def test_query_from_stdin_as_json(kb_store):
    query = 'PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#> SELECT ?l WHERE { ?l ontolex:writtenRep "cane"@it }'
    result = invoke("kb", "query", "-", "--store", str(kb_store), "--json", input=query)
    assert result.exit_code == 0
    bindings = json.loads(result.output)["results"]["bindings"]
    assert "http://liita.it/data/id/lemma/" in bindings[0]["l"]["value"]


def test_query_table_prefixes_iris(kb_store, tmp_path):
    path = tmp_path / "q.rq"
    path.write_text("SELECT ?e WHERE { ?e a <http://w3id.org/elita/Emotion> } ORDER BY ?e LIMIT 2")
    result = invoke("kb", "query", str(path), "--store", str(kb_store))
    assert result.exit_code == 0 and "elita:Aspettativa" in result.output


def test_update_is_a_one_line_error_with_exit_2(kb_store):
    result = invoke("kb", "query", "-", "--store", str(kb_store), input="CLEAR ALL")
    assert result.exit_code == 2
    assert result.output.strip().startswith("error: CLEAR is an Update") and len(result.output.strip().splitlines()) == 1


def test_missing_store_says_how_to_build_it(tmp_path):
    result = invoke("kb", "stats", "--store", str(tmp_path / "none"))
    assert result.exit_code == 2 and "nl2sparql kb build" in result.output


def test_ask_bad_setup_is_one_red_line(kb_store, monkeypatch, tmp_path):
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path / "artifacts"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    cases = [(("--version", "v9"), "unknown version 'v9'"),
             (("--version", "uncompiled", "--lm", "openai/gpt-4.1-mini"), "needs OPENAI_API_KEY"),
             (("--version", "uncompiled", "--lm", "local/llama-70b"), "unknown local model"),
             # The shipped version is fine-tuned: it runs on its own base model and says so for any other.
             (("--lm", "openai/gpt-4.1-mini"), "is fine-tuned for local/qwen-1.5b"),
             (("--lm", "local/qwen-0.5b"), "is fine-tuned for local/qwen-1.5b")]
    for options, message in cases:
        result = invoke("ask", "Quali lemmi esprimono gioia?", "--store", str(kb_store), *options)
        assert result.exit_code == 2, result.output
        assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_ask_help_explains_the_lm_choice():
    result = invoke("ask", "--help")
    assert result.exit_code == 0 and "local/qwen-1.5b" in result.output and "--json" in result.output


def test_optimize_run_passes_every_option_to_the_compile(monkeypatch):
    import nl2sparql.optimize.run as run_module
    from nl2sparql.errors import Nl2SparqlError

    seen = {}

    def stop(config, **kwargs):
        seen["config"] = config
        raise Nl2SparqlError("stopped before compiling")

    monkeypatch.setattr(run_module, "run_compile", stop)
    result = invoke("optimize", "run", "--optimizer", "mipro", "--budget", "12", "--train-limit", "8",
                    "--val-limit", "6", "--dev-limit", "12", "--from", "v3")
    assert result.exit_code == 2 and "stopped before compiling" in result.output
    config = seen["config"]
    assert (config.optimizer, config.budget, config.train_limit, config.val_limit, config.dev_limit, config.parent) \
        == ("mipro", "12", 8, 6, 12, "v3")
