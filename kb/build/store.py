"""Build the embedded store atomically: everything goes into a temp folder, then one rename swaps it in."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyoxigraph as ox

from nl2sparql.errors import BuildError
from nl2sparql.kb.build import dialects, sentiment, sources, wordnet
from nl2sparql.kb.build.complit import complit
from nl2sparql.kb.build.lemmabank import LemmaIndex
from nl2sparql.kb.embedded import MANIFEST, STORE_DIR
from nl2sparql.kb.vocab import COMPLIT_SERVICE, ELITA_GRAPH, LIITA_GRAPH

BUILD_FORMAT = 1
STEPS = ("read sources", "lemma bank", "CompL-it senses", "Sentix", "Parmigiano", "Sicilian",
         "ELITA", "write store", "finish")
Progress = Callable[[str], None]


def default_source() -> Path:
    """The LiITA open-data folder: $NL2SPARQL_SOURCE, else ../shared/liita seen from the current folder."""
    from nl2sparql.paths import resolve

    return resolve().source


def sample_dir() -> Path:
    """Our hand-authored samples (ELITA, Sicilian), shipped as package data in data/kb."""
    return Path(__file__).resolve().parents[2] / "data" / "kb"


def build_store(source: Path, out: Path, progress: Progress = lambda step: None,
                samples: Path | None = None) -> dict:
    """Build the store from `source` into `out`, replacing any previous store only on success."""
    samples = samples or sample_dir()
    if not source.is_dir():
        raise BuildError(f"source folder {source} does not exist: pass --source with the LiITA open data")
    out.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale(out)
    work = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    try:
        with _terminate_as_interrupt():
            manifest = _build(source, samples, work, progress)
            _swap(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    progress("finish")
    return manifest


_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?:building|old)-(?P<pid>\d+)$")


def sweep_stale(out: Path) -> list[Path]:
    """Remove the temp folders of builds whose process is gone (killed with SIGKILL, or the machine stopped);
    the folders of a build still running are left alone. Returns what was removed."""
    removed = []
    if not out.parent.is_dir():
        return removed
    for path in out.parent.iterdir():
        match = _LEFTOVER.match(path.name)
        if match and match["name"] == out.name and path.is_dir() and not _alive(int(match["pid"])):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False  # a folder of ours from an earlier build in this process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM stops a build as Ctrl-C does: the temp folder is removed and the old store kept."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _build(source: Path, samples: Path, work: Path, progress: Progress) -> dict:
    started = time.perf_counter()
    progress("read sources")
    links = sources.read_parmigiano_links(source)
    db = wordnet.db_dir()
    synsets, senses, relations = wordnet.read_synsets(db), wordnet.read_lemmas(db), wordnet.read_relations(db)
    progress("lemma bank")
    index = LemmaIndex()
    index.add_real(sources.italian_lemmas(links))
    progress("CompL-it senses")
    compl = complit(synsets, senses, relations, index)
    progress("Sentix")
    hints: dict[str, str] = {}
    for sense in senses:
        hints.setdefault(sense.lemma.lower(), wordnet.POS[sense.pos])
    sentix = sentiment.sentix(sources.read_sentix(source), index, hints)
    store = ox.Store(str(work / STORE_DIR))
    progress("Parmigiano")
    parm = dialects.parmigiano(sources.require(source, sources.PARMIGIANO_TTL), links,
                               sources.read_parmigiano_lemmas(source), index, store)
    progress("Sicilian")
    sicilian = dialects.sicilian(sources.read_sicilian_sample(samples), index)
    progress("ELITA")
    try:
        elita = sentiment.elita(sources.read_elita_sample(samples), index)
    except ValueError as error:
        raise BuildError(str(error)) from None
    progress("write store")
    for part in (index.quads, compl.quads, sentix.quads, parm.quads, sicilian.quads, elita.quads):
        store.bulk_extend(part)
    store.flush()
    manifest = {
        "format": BUILD_FORMAT,
        "fingerprint": fingerprint(source, samples),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "source": str(source.resolve()),
        "graphs": _graph_sizes(store),
        "lemma_bank": {"real_liita_lemmas": index.real, "minted_lemmas": index.minted,
                       "per_pos": dict(sorted(index.per_pos.items(), key=lambda kv: -kv[1]))},
        "sentix": {"entries": sentix.entries, "skipped": sentix.skipped},
        "elita": {"entries": elita.entries, "emotions": len(sentiment.EMOTIONS), "sample": True},
        "parmigiano": {"lemmas": parm.lemmas, "italian_entries": parm.italian_entries,
                       "translations": parm.translations, "sample": False},
        "sicilian": {"lemmas": sicilian.lemmas, "italian_entries": sicilian.italian_entries,
                     "translations": sicilian.translations, "sample": True},
        "complit": {"words": compl.words, "senses": compl.senses, "definitions": compl.definitions,
                    "relations": compl.relations},
    }
    del store
    manifest["build_seconds"] = round(time.perf_counter() - started, 1)
    (work / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return manifest


def _graph_sizes(store: ox.Store) -> dict[str, int]:
    query = "SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g"
    sizes = {row["g"].value: int(row["n"].value) for row in store.query(query)}
    default = next(iter(store.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")))["n"].value
    return {"default": int(default), **{g: sizes.get(g, 0) for g in (LIITA_GRAPH, ELITA_GRAPH, COMPLIT_SERVICE)}}


def fingerprint(source: Path, samples: Path) -> str:
    """Identifies the data a store was built from: build format, source and sample file contents."""
    digest = hashlib.sha256(f"nl2sparql-kb/{BUILD_FORMAT}".encode())
    files = [source / n for n in (sources.PARMIGIANO_TTL, sources.PARMIGIANO_LINKS, sources.PARMIGIANO_LEMMAS,
                                  sources.SENTIX)]
    files += [samples / sources.ELITA_SAMPLE, samples / sources.SICILIAN_SAMPLE]
    for path in files:
        digest.update(path.name.encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _swap(work: Path, out: Path) -> None:
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    work.rename(out)
    shutil.rmtree(old, ignore_errors=True)
