"""What the program runs against: the endpoint, the example retriever, the ontology search.

None of it is program state: DSPy's save holds instructions and demos only, and optimizers that copy the
program share one runtime (its `__deepcopy__` returns itself). Everything loads lazily, on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from nl2sparql.kb.endpoint import Endpoint, EndpointConfig, open_endpoint
from nl2sparql.paths import resolve


@dataclass(frozen=True)
class RuntimeConfig:
    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    dataset_dir: Path | None = None
    index_splits: tuple[str, ...] = ("train",)
    embedder: str | None = None


class Runtime:
    def __init__(self, config: RuntimeConfig | None = None, *, endpoint: Endpoint | None = None,
                 retriever=None, ontology=None, lexicon=None, dialect_lexicons=None, off_topic=None) -> None:
        self.config = config or RuntimeConfig()
        self._endpoint = endpoint
        self._retriever = retriever
        self._ontology = ontology
        self._lexicon = lexicon
        self._dialect_lexicons = dialect_lexicons
        self._off_topic = off_topic
        self._enumeration = None
        self._lock = threading.RLock()

    def __deepcopy__(self, memo) -> Runtime:
        return self

    @property
    def endpoint(self) -> Endpoint:
        with self._lock:
            if self._endpoint is None:
                self._endpoint = open_endpoint(self.config.endpoint)
            return self._endpoint

    @property
    def enumeration_endpoint(self):
        """The endpoint the enumerator asks: on the embedded store, a pool of this endpoint and one more store
        worker (`width` 2, the enumerator's measured setting: two word sets are asked at once on two cores);
        any other endpoint as it is."""
        with self._lock:
            if self._enumeration is None:
                from nl2sparql.kb.embedded import EmbeddedEndpoint
                from nl2sparql.kb.endpoint import EndpointPool

                endpoint = self.endpoint
                self._enumeration = endpoint if not isinstance(endpoint, EmbeddedEndpoint) else \
                    EndpointPool([endpoint, EmbeddedEndpoint(endpoint.config)])
            return self._enumeration

    @property
    def retriever(self):
        with self._lock:
            if self._retriever is None:
                from nl2sparql.data.dataset import load_dataset
                from nl2sparql.retrieval.hybrid import HybridRetriever, RetrieverConfig

                records = [r for r in load_dataset(self.config.dataset_dir) if r.split in self.config.index_splits]
                options = {"embedder": self.config.embedder} if self.config.embedder else {}
                self._retriever = HybridRetriever.build(records, RetrieverConfig(cache_dir=resolve().index,
                                                                                  **options))
            return self._retriever

    @property
    def ontology(self):
        with self._lock:
            if self._ontology is None:
                from nl2sparql.retrieval.ontology import OntologySearch, load_ontology

                self._ontology = OntologySearch(load_ontology(), self.retriever.embedder)
            return self._ontology

    @property
    def lexicon(self):
        """The lemma bank's written forms, for grounding the words of a question."""
        with self._lock:
            if self._lexicon is None:
                from nl2sparql.retrieval.grounding import Lexicon

                self._lexicon = Lexicon.from_endpoint(self.endpoint)
            return self._lexicon

    @property
    def dialect_lexicons(self):
        """The Parmigiano and Sicilian lemma banks' written forms, for words the Italian bank lacks."""
        with self._lock:
            if self._dialect_lexicons is None:
                from nl2sparql.retrieval.grounding import dialect_lexicons

                self._dialect_lexicons = dialect_lexicons(self.endpoint)
            return self._dialect_lexicons

    @property
    def off_topic(self):
        """The off-topic questions of the indexed splits (data/off_topic.jsonl), embedded as the retriever's are."""
        with self._lock:
            if self._off_topic is None:
                from nl2sparql.data.off_topic import load_off_topic
                from nl2sparql.retrieval.scope import QuestionIndex

                texts = [q.question for q in load_off_topic() if q.split in self.config.index_splits]
                self._off_topic = QuestionIndex.build(texts, self.retriever.embedder)
            return self._off_topic

    def close(self) -> None:
        for extra in getattr(self._enumeration, "endpoints", [])[1:]:
            extra.close()  # the pool's own worker (the first is this runtime's endpoint, closed below)
        self._enumeration = None
        if self._endpoint is not None:
            self._endpoint.close()
            self._endpoint = None
