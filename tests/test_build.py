"""The KB build is atomic: a failure at any step leaves the previous store as it was."""

import shutil

import pytest

from nl2sparql.errors import BuildError
from nl2sparql.kb.build import sources
from nl2sparql.kb.build.store import build_store, default_source
from nl2sparql.kb.embedded import MANIFEST


class Interrupt(KeyboardInterrupt):
    pass


def _stop_at(step_name):
    def progress(step):
        if step == step_name:
            raise Interrupt()
    return progress


def test_build_interrupted_midway_keeps_the_previous_store(kb_store, endpoint):
    manifest = (kb_store / MANIFEST).read_text()
    with pytest.raises(Interrupt):
        build_store(default_source(), kb_store, progress=_stop_at("write store"))
    assert (kb_store / MANIFEST).read_text() == manifest
    assert [p.name for p in kb_store.parent.iterdir()] == [kb_store.name]
    assert endpoint.execute("ASK { ?s ?p ?o }").boolean is True


def test_missing_source_file_is_a_clear_error_and_keeps_the_store(kb_store, tmp_path):
    partial = tmp_path / "liita"
    partial.mkdir()
    for name in (sources.PARMIGIANO_TTL, sources.PARMIGIANO_LEMMAS, sources.SENTIX):
        shutil.copy(default_source() / name, partial / name)
    manifest = (kb_store / MANIFEST).read_text()
    with pytest.raises(BuildError, match=f"missing source file .*{sources.PARMIGIANO_LINKS}"):
        build_store(partial, kb_store)
    assert (kb_store / MANIFEST).read_text() == manifest


def test_manifest_counts_every_part(kb_store):
    import json

    manifest = json.loads((kb_store / MANIFEST).read_text())
    assert manifest["lemma_bank"]["real_liita_lemmas"] > 6000
    assert manifest["sentix"]["entries"] > 10000
    assert manifest["parmigiano"]["translations"] > 8000 and manifest["sicilian"]["translations"] > 150
    assert manifest["elita"]["entries"] > 300 and manifest["elita"]["sample"] is True
    assert manifest["complit"]["definitions"] > 4000 and manifest["complit"]["relations"] > 100000
