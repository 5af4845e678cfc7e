"""Train the ranker on CPU: a softmax over each list's candidates, the positives' share of it pushed up (Pangu's
objective: the gold program against the enumerator's wrong ones), with torch; checkpointed every epoch so a stopped
training goes on from the last one. An ensemble trains one ranker per seed and averages their weights: the model is
linear, so the average's score is the mean of the members' scores, and what one seed's shuffles happen to favour
weighs less."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from nl2sparql.data.plans.codec import plan_from_json
from nl2sparql.modules.rank_features import DENSE, FEATURES_VERSION, HASH_BITS, PairFeatures, pair_features
from nl2sparql.modules.ranker import Ranker
from nl2sparql.retrieval.signals import signals_from_json


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 12
    learning_rate: float = 0.05
    l2: float = 1e-5
    batch_lists: int = 16
    seed: int = 13


@dataclass
class FeaturedList:
    key: str
    features: list[PairFeatures]
    labels: np.ndarray  # 1 for a candidate with the gold's answer
    ranks: list[int]

    @property
    def none_right(self) -> bool:
        """No candidate answers as the gold does: "none of these" is the right choice."""
        return not self.labels.any()


def training_views(made: dict, negatives: bool = False, version: int = FEATURES_VERSION) -> list[FeaturedList]:
    """What a list teaches: its candidates with the gold's answer among them; and, when only the gold plan added
    after the enumeration answers so, also the enumerated candidates alone, where "none of these" is right."""
    if made.get("positive") != "gold_plan":
        return [featurize(made, negatives, version)]
    enumerated = {**made, "candidates": made["candidates"][:-1], "negatives": []}
    return [featurize(made, negatives, version), featurize(enumerated, version=version)]


def featurize(made: dict, negatives: bool = True, version: int = FEATURES_VERSION) -> FeaturedList:
    """A list's features (`version`: the ranker's, `rank_features.KNOWN_VERSIONS`); with `negatives`, its one-block
    changes of the gold plan join the candidates."""
    signals = signals_from_json(made["signals"])
    candidates = made["candidates"] + (made.get("negatives", []) if negatives else [])
    features = [pair_features(made["question"], signals, plan_from_json(c["plan"]), rank=c["rank"], rows=c["rows"],
                              boolean=c["boolean"], version=version) for c in candidates]
    return FeaturedList(made["key"], features, np.array([c["label"] for c in candidates], np.int64),
                        [c["rank"] for c in candidates])


def trainable(lists: list[FeaturedList]) -> list[FeaturedList]:
    """Lists with some candidate: with the "none of these" option, each has a right and a wrong choice."""
    return [x for x in lists if x.features]


def top1(ranker: Ranker, lists: list[FeaturedList]) -> float:
    """Share of lists whose best-scored candidate is a positive (lists with no candidate count as misses)."""
    hits = sum(bool(x.labels[int(np.argmax(ranker.scores(x.features)))]) for x in lists if x.features)
    return hits / max(1, len(lists))


def train(lists: list[FeaturedList], config: TrainConfig = TrainConfig(), checkpoint: Path | None = None,
          on_epoch: Callable[[int, float], None] | None = None) -> Ranker:
    import torch

    torch.manual_seed(config.seed)
    data = trainable(lists)
    sparse = torch.nn.EmbeddingBag(1 << HASH_BITS, 1, mode="sum")
    dense = torch.nn.Linear(len(DENSE), 1, bias=False)
    none = torch.nn.Parameter(torch.zeros(1))
    torch.nn.init.zeros_(sparse.weight)
    torch.nn.init.zeros_(dense.weight)
    params = [sparse.weight, dense.weight, none]
    optimizer = torch.optim.Adam(params, lr=config.learning_rate)
    start = 0
    if checkpoint is not None and checkpoint.exists():
        state = torch.load(checkpoint, weights_only=True)
        sparse.weight.data.copy_(state["sparse"])
        dense.weight.data.copy_(state["dense"])
        none.data.copy_(state["none"])
        optimizer.load_state_dict(state["optimizer"])
        start = int(state["epoch"])
    order = list(range(len(data)))
    rng = random.Random(config.seed)
    for _ in range(start):
        rng.shuffle(order)  # the same shuffles as an unbroken run
    for epoch in range(start, config.epochs):
        rng.shuffle(order)
        total = 0.0
        for first in range(0, len(order), config.batch_lists):
            batch = [data[i] for i in order[first:first + config.batch_lists]]
            feats = [f for x in batch for f in x.features]
            flat = torch.tensor([i for f in feats for i in f.sparse], dtype=torch.long)
            offsets = torch.tensor(np.cumsum([0] + [len(f.sparse) for f in feats[:-1]]), dtype=torch.long)
            scores = sparse(flat, offsets).squeeze(1) + dense(torch.tensor([f.dense for f in feats])).squeeze(1)
            loss, at = torch.zeros(()), 0
            for x in batch:
                s = torch.cat([scores[at:at + len(x.features)], none])
                positive = torch.tensor([*x.labels, x.none_right], dtype=torch.bool)
                loss = loss + torch.logsumexp(s, 0) - torch.logsumexp(s[positive], 0)
                at += len(x.features)
            loss = loss / len(batch) + config.l2 * (sparse.weight.pow(2).sum() + dense.weight.pow(2).sum())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        if checkpoint is not None:
            checkpoint.parent.mkdir(parents=True, exist_ok=True)
            tmp = checkpoint.with_suffix(".tmp")
            torch.save({"sparse": sparse.weight.data, "dense": dense.weight.data, "none": none.data,
                        "optimizer": optimizer.state_dict(), "epoch": epoch + 1}, tmp)
            tmp.replace(checkpoint)
        if on_epoch:
            on_epoch(epoch + 1, total / max(1, len(data)))
    weights = sparse.weight.detach().numpy()[:, 0].astype(np.float32)
    info = {"lists": len(data), "epochs": config.epochs, "learning_rate": config.learning_rate, "l2": config.l2,
            "final_loss": round(total / max(1, len(data)), 4) if config.epochs > start else None}
    return Ranker(weights, dense.weight.detach().numpy()[0].astype(np.float32), info, float(none.detach()[0]),
                  FEATURES_VERSION)


def average(rankers: list[Ranker]) -> Ranker:
    """One ranker whose scores are the mean of `rankers`' scores (linear models: the mean of their weights)."""
    if not rankers:
        raise ValueError("an ensemble needs at least one ranker")
    nones = [r.none for r in rankers]
    none = None if any(n is None for n in nones) else float(np.mean(nones))
    info = {**rankers[0].info, "members": len(rankers)}
    losses = [r.info.get("final_loss") for r in rankers]
    if all(loss is not None for loss in losses):
        info["final_loss"] = round(float(np.mean(losses)), 4)
    return Ranker(np.mean([r.sparse for r in rankers], axis=0).astype(np.float32),
                  np.mean([r.dense for r in rankers], axis=0).astype(np.float32), info, none,
                  rankers[0].features_version)


def member_seeds(config: TrainConfig, seeds: tuple[int, ...] = ()) -> list[int]:
    """An ensemble's seeds: `config.seed` first, then `seeds` without it."""
    return [config.seed, *[s for s in seeds if s != config.seed]]


def member_checkpoints(checkpoint: Path, seeds: list[int]) -> list[Path]:
    """Each member's checkpoint: the first member's is `checkpoint` itself (a single ranker's, as before), the others'
    beside it (`checkpoint-13.pt`, `checkpoint-13-s7.pt`, ...)."""
    return [checkpoint, *(checkpoint.with_name(f"{checkpoint.stem}-s{seed}.pt") for seed in seeds[1:])]


def train_ensemble(lists: list[FeaturedList], config: TrainConfig, seeds: tuple[int, ...] = (),
                   checkpoint: Path | None = None, on_epoch: Callable[[int, float], None] | None = None) -> Ranker:
    """`config.seed`'s ranker, and one per seed in `seeds`, averaged (`average`); each member checkpoints to its own
    file (`member_checkpoints`), so a stopped ensemble resumes too."""
    order = member_seeds(config, seeds)
    checkpoints = member_checkpoints(checkpoint, order) if checkpoint is not None else [None] * len(order)
    members = [train(lists, replace(config, seed=seed), own, on_epoch if i == 0 else None)
               for i, (seed, own) in enumerate(zip(order, checkpoints))]
    if len(members) == 1:
        return members[0]
    ranker = average(members)
    ranker.info["seeds"] = order
    return ranker
