"""Hostile and careless input, replayed as tables: refused with one line (exit 2 on the CLI), the store
byte-identical, and no connection reaching a listener on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hostile_cases import SERVICE_ESCAPES, UPDATES, Listener, fill
from nl2sparql.cli import main
from nl2sparql.errors import InputError, QueryRejected
from nl2sparql.kb.embedded import EmbeddedEndpoint
from nl2sparql.kb.endpoint import EndpointConfig
from nl2sparql.kb.guard import check
from nl2sparql.modules.runtime import Runtime, RuntimeConfig
from nl2sparql.serve.tools import Toolbox
from nl2sparql.paths import ARTIFACTS_ENV


def invoke(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def one_line_error(result) -> str:
    """The CLI's error: exit 2, one red line starting 'error:', no traceback."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    return lines[0]


def digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("LOG")):
        sha.update(path.relative_to(folder).as_posix().encode())
        sha.update(path.read_bytes())
    return sha.hexdigest()


@pytest.fixture
def listener():
    with Listener() as server:
        yield server


@pytest.fixture(scope="module")
def toolbox(kb_store):
    box = Toolbox(runtime=Runtime(RuntimeConfig(endpoint=EndpointConfig(store_path=kb_store))))
    yield box
    box.close()


# -- SERVICE to anywhere but CompL-it -------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SERVICE_ESCAPES))
def test_foreign_service_is_refused_everywhere_and_nothing_connects(name, listener, kb_store, toolbox):
    query = fill(SERVICE_ESCAPES[name], listener)
    before = digest(kb_store)
    line = one_line_error(invoke("kb", "query", "-", "--store", str(kb_store), input=query))
    assert "SERVICE" in line
    with EmbeddedEndpoint(EndpointConfig(store_path=kb_store, cache_size=0)) as endpoint:
        with pytest.raises(QueryRejected, match="SERVICE"):
            endpoint.execute(query)
    verdict = toolbox.validate_sparql(query)
    assert verdict["valid"] is False and "SERVICE" in verdict["error"]
    with pytest.raises(QueryRejected):
        toolbox.execute_sparql(query)
    assert listener.connections == 0
    assert digest(kb_store) == before


def test_compl_it_service_with_escapes_still_answers(endpoint):
    """The refusals above do not cost the real use: CompL-it through SERVICE, beside an escaped name."""
    query = ('PREFIX ontolex: <http://www.w3.org/ns/lemon/ontolex#>\nPREFIX ex: <http://ex.org/>\n'
             'SELECT ?sense WHERE { BIND(ex:a\\\'b AS ?c) '
             '\\u0053ERVICE <https://klab.ilc.cnr.it/graphdb-compl-it/> '
             '{ ?word ontolex:canonicalForm/ontolex:writtenRep "cane"@it ; ontolex:sense ?sense } } LIMIT 3')
    assert len(endpoint.execute(query).rows) > 0


def test_the_store_worker_has_no_network(listener):
    """Whatever slipped past the guard, pyoxigraph's own SERVICE call from the worker reaches nothing; the same
    call from a process that kept the network does connect (so the check can fail)."""
    script = ("import sys, pyoxigraph as ox\n"
              "from nl2sparql.kb.worker import leave_network\n"
              "isolated = leave_network() if sys.argv[1] == 'isolated' else False\n"
              "try:\n"
              f"    list(ox.Store().query('SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?s ?p ?o }} }}'))\n"
              "except Exception:\n"
              "    pass\n"
              "print(isolated)\n")
    isolated = subprocess.run([sys.executable, "-c", script, "isolated"], capture_output=True, text=True, timeout=60)
    assert isolated.stdout.strip() == "True", isolated.stderr
    assert listener.connections == 0
    subprocess.run([sys.executable, "-c", script, "open"], capture_output=True, text=True, timeout=60)
    assert listener.connections >= 1


def test_embedded_worker_runs_isolated(endpoint):
    endpoint.execute("ASK { ?s ?p ?o }")
    assert endpoint.isolated is True


# -- Updates --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(UPDATES))
def test_every_update_is_refused_by_the_cli_and_the_store_is_unchanged(name, listener, kb_store):
    before = digest(kb_store)
    line = one_line_error(invoke("kb", "query", "-", "--store", str(kb_store), input=fill(UPDATES[name], listener)))
    assert "read-only" in line
    assert digest(kb_store) == before and listener.connections == 0


# -- standard prefixes, as the live endpoint predeclares them --------------------------------------------

def test_standard_prefixes_are_declared_and_said(kb_store):
    result = invoke("kb", "query", "-", "--store", str(kb_store), "--json",
                    input="SELECT ?c WHERE { ?c a owl:Class ; rdfs:label ?l } LIMIT 1")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["notes"] == ["declared owl:, rdfs: as the live LiITA endpoint does"]
    assert check("SELECT * WHERE { ?s rdf:type ?o FILTER(?o != xsd:string) }").declared == ("rdf", "xsd")


def test_unknown_prefix_is_still_refused(kb_store):
    line = one_line_error(invoke("kb", "query", "-", "--store", str(kb_store), input="SELECT * { ?s foo:p ?o }"))
    assert "undeclared prefix 'foo:'" in line


# -- CLI options and files ------------------------------------------------------------------------------

@pytest.mark.parametrize("options,says", [
    (["--timeout", "nan"], "timeout"), (["--timeout", "inf"], "timeout"), (["--timeout", "-1"], "timeout"),
    (["--timeout", "0"], "timeout"), (["--row-cap", "-5"], "row cap"), (["--row-cap", "0"], "row cap"),
    (["--endpoint", "not-a-url"], "not an endpoint URL"), (["--endpoint", "ftp://x/sparql"], "not an endpoint URL"),
    (["--endpoint", "http://"], "not an endpoint URL"), (["--endpoint", "http://h:port/"], "not an endpoint URL"),
])
def test_bad_query_options_are_one_line_errors(options, says, kb_store):
    line = one_line_error(invoke("kb", "query", "-", "--store", str(kb_store), *options, input="ASK { ?s ?p ?o }"))
    assert says in line


def test_non_utf8_query_file_is_a_one_line_error(tmp_path, kb_store):
    path = tmp_path / "latin1.rq"
    path.write_bytes('SELECT * WHERE { ?s ?p "città" }'.encode("latin-1"))
    assert "not UTF-8" in one_line_error(invoke("kb", "query", str(path), "--store", str(kb_store)))


# -- artifacts on disk ----------------------------------------------------------------------------------

@pytest.fixture
def artifact_root(tmp_path, monkeypatch):
    from nl2sparql.artifacts.store import write_version
    from nl2sparql.modules.program import NL2SPARQL

    manifest = {"parent": None, "created_at": "2026-11-25T00:00:00Z", "optimizer": "bootstrap", "lm": "dummy",
                "dataset_hash": "abc"}
    for _ in range(2):
        write_version(NL2SPARQL(runtime=Runtime()), manifest, tmp_path)
    monkeypatch.setenv(ARTIFACTS_ENV, str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("damage,says", [
    (lambda root: (root / "v1" / "manifest.json").write_bytes(b"\xff\xfe\x00junk\x9c"), "not UTF-8"),
    (lambda root: (root / "v1" / "manifest.json").write_text("[1, 2]"), "not a JSON object"),
    (lambda root: (root / "v1" / "program.json").write_text(
        (root / "v1" / "program.json").read_text()[:40]), "program.json does not parse"),
])
def test_a_corrupt_version_is_named_and_hides_no_other(damage, says, artifact_root):
    damage(artifact_root)
    assert says in one_line_error(invoke("artifacts", "show", "v1"))
    listing = invoke("artifacts", "list", "--json")
    assert listing.exit_code == 0, listing.output
    rows = {row["version"]: row for row in json.loads(listing.output)}
    assert says in rows["v1"]["error"] and rows["v2"]["error"] is None and rows["v2"]["optimizer"] == "bootstrap"


def test_truncated_program_is_refused_before_any_question(artifact_root):
    import nl2sparql
    from nl2sparql.errors import ArtifactError

    path = artifact_root / "v2" / "program.json"
    path.write_text(path.read_text()[:-20])
    with pytest.raises(ArtifactError, match="v2 is corrupt"):
        nl2sparql.load("v2")


@pytest.mark.parametrize("content", ['["v1"]', '{"best": 3}', "\x00\x01"])
def test_a_corrupt_tags_file_is_a_one_line_error(content, artifact_root):
    (artifact_root / "tags.json").write_text(content)
    assert "corrupt tags file" in one_line_error(invoke("artifacts", "show", "latest"))


@pytest.mark.parametrize("tag", ["../../x", "a/b", "", " best", "x" * 65, "best\n", "a;b"])
def test_tag_names_that_are_paths_or_junk_are_refused(tag, artifact_root):
    before = sorted(p.name for p in artifact_root.parent.iterdir())
    assert "cannot be a tag" in one_line_error(invoke("artifacts", "tag", "v1", tag))
    assert sorted(p.name for p in artifact_root.parent.iterdir()) == before
    assert not (artifact_root / "tags.json").exists()


# -- the toolbox (MCP, web): sizes, ranges and types -------------------------------------------------------

@pytest.mark.parametrize("call,says", [
    (lambda box: box.search_ontology("parola " * 200_000), "too long"),
    (lambda box: box.retrieve_examples("x" * 38_000), "too long"),
    (lambda box: box.retrieve_examples("cane", k=-1), "from 1 to"),
    (lambda box: box.search_ontology("emotion", k=10_000), "from 1 to"),
    (lambda box: box.search_ontology("emotion", k="3"), "whole number"),
    (lambda box: box.validate_sparql(None), "must be a string"),
    (lambda box: box.execute_sparql(42), "must be a string"),
    (lambda box: box.execute_sparql("ASK { ?s ?p ?o }", language="fr"), "one of it, en"),
    (lambda box: box.translate(""), "is empty"),
    (lambda box: box.analyze_patterns(["cane"]), "must be a string"),
    (lambda box: box.get_constraints("emotion"), "list of at most"),
    (lambda box: box.fix_case_filters(None), "must be a string"),
    (lambda box: box.check_variable_reuse({"q": 1}), "must be a string"),
])
def test_toolbox_refuses_wrong_input_at_once(call, says, toolbox):
    with pytest.raises(InputError, match=says) as caught:
        call(toolbox)
    assert "\n" not in str(caught.value)
