"""The trained ranker of a version: a linear scorer over hashed (question, plan) features (`rank_features.py`).

Its weights are one `.npz` file of plain arrays (no pickle) in the version's folder, named with its checksum in the
manifest's `ranker` entry; `RankerFile.load` refuses a file whose checksum differs. Scoring is numpy only: a list of
60 candidates takes a few milliseconds.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from nl2sparql.errors import ArtifactError
from nl2sparql.modules.rank_features import DENSE, FEATURES_VERSION, HASH_BITS, KNOWN_VERSIONS, PairFeatures

RANKER_FILE = "ranker.npz"


@dataclass
class Ranker:
    sparse: np.ndarray  # float32, one weight per hashed feature
    dense: np.ndarray  # float32, one weight per DENSE feature
    info: dict = field(default_factory=dict)  # how it was trained (steps, lists, dev top-1)
    # The score of "none of these is right", trained on lists whose candidates all miss the gold: probabilities are
    # taken over the candidates and this option, so a list of wrong candidates leaves its best one unsure. None: a
    # ranker trained without it (probabilities over the candidates alone).
    none: float | None = None
    features_version: int = FEATURES_VERSION  # the features it was trained on: `pair_features(..., version=)`

    @classmethod
    def zeros(cls) -> Ranker:
        return cls(np.zeros(1 << HASH_BITS, np.float32), np.zeros(len(DENSE), np.float32))

    def scores(self, features: Sequence[PairFeatures]) -> np.ndarray:
        out = np.empty(len(features), np.float64)
        for i, f in enumerate(features):
            out[i] = float(self.sparse[list(f.sparse)].sum()) + float(np.dot(self.dense, f.dense))
        return out

    def probabilities(self, scores: np.ndarray) -> np.ndarray:
        """Each candidate's probability of being the right one (with the "none" option, they sum to less than 1)."""
        if len(scores) == 0 or self.none is None:
            return softmax(scores)
        return softmax(np.append(scores, self.none))[:-1]

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        header = {"features_version": self.features_version, "hash_bits": HASH_BITS, "dense": list(DENSE), **self.info}
        extra = {} if self.none is None else {"none": np.array([self.none], np.float32)}
        np.savez_compressed(buffer, sparse=self.sparse.astype(np.float32), dense=self.dense.astype(np.float32),
                            header=np.frombuffer(json.dumps(header).encode("utf-8"), dtype=np.uint8), **extra)
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "ranker") -> Ranker:
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                header = json.loads(bytes(arrays["header"]).decode("utf-8"))
                sparse, dense = arrays["sparse"], arrays["dense"]
                none = float(arrays["none"][0]) if "none" in arrays.files else None
        except (ValueError, KeyError, OSError) as error:
            raise ArtifactError(f"{name} cannot be read: {error}") from None
        version = header.get("features_version")
        if version not in KNOWN_VERSIONS or header.get("dense") != list(DENSE) or sparse.shape != (1 << HASH_BITS,):
            raise ArtifactError(f"{name} was trained on other features (version {version}); "
                                "train it again with `nl2sparql optimize run --optimizer ranker`")
        info = {k: v for k, v in header.items() if k not in ("features_version", "hash_bits", "dense")}
        return cls(sparse, dense, info, none, int(version))


def softmax(scores: np.ndarray) -> np.ndarray:
    if len(scores) == 0:
        return scores
    shifted = np.exp(scores - scores.max())
    return shifted / shifted.sum()


@dataclass(frozen=True)
class RankerFile:
    """The manifest's `ranker` entry: the file in the version's folder and its sha256."""

    path: Path
    sha256: str
    version: str = ""

    @classmethod
    def from_manifest(cls, folder: Path, manifest: dict) -> RankerFile | None:
        entry = manifest.get("ranker")
        if not entry:
            return None
        name = manifest.get("version", folder.name)
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("file", "sha256")) \
                or Path(entry["file"]).name != entry["file"]:
            raise ArtifactError(f"version {name} is corrupt: its manifest's ranker entry lacks file or sha256")
        return cls(folder / entry["file"], entry["sha256"], name)

    def load(self) -> Ranker:
        if not self.path.is_file():
            raise ArtifactError(f"version {self.version} is corrupt: its ranker {self.path.name} is missing")
        data = self.path.read_bytes()
        actual = hashlib.sha256(data).hexdigest()
        if actual != self.sha256:
            raise ArtifactError(f"version {self.version} is corrupt: ranker {self.path.name} has checksum "
                                f"{actual[:12]}…, the manifest says {self.sha256[:12]}…; train it again with "
                                "`nl2sparql optimize run --optimizer ranker`")
        return Ranker.from_bytes(data, f"the ranker of version {self.version}")
