"""Training the structure predictor from a corpus larger than memory: mini-batches streamed
from its shards, with a checkpoint after each shard so that training resumes where it stopped.

:meth:`StructurePredictor.fit` holds every edge row of the corpus at once; each row repeats
phi of its data set (at 10 inputs and 25 nodes about 85 KB per formula), which caps an
in-memory corpus near 250k formulas on 24 GB. :func:`fit_streamed` holds one shard's rows at a
time: per shard, phi, the edge rows, a shuffle seeded by (random_state, epoch, shard) and one
Adam step per mini-batch of a two-layer perceptron (:class:`StreamedMLP`, numpy, the shape and
loss of the default ``MLPClassifier``). The checkpoint is an ``.npz`` of plain arrays (weights,
Adam moments, position; no pickle), written atomically after each shard: an interrupted run
resumed from it ends with the same weights as an uninterrupted one.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..core.files import atomic_write_npz
from ..core.tree import edge_contexts
from ..exceptions import SuperposError
from .export import ExportedMLP

__all__ = ["StreamedMLP", "fit_streamed"]

_CHECKPOINT = "superpos-training-checkpoint"


class StreamedMLP:
    """softmax(relu(relu(((x - mean) / scale) W0 + b0) W1 + b1) W2 + b2), trained by Adam on
    the mean cross-entropy plus ``alpha`` / 2 ||W||^2 (sklearn's ``MLPClassifier`` defaults:
    Glorot-uniform start, beta = (0.9, 0.999), eps = 1e-8). All state is plain arrays."""

    def __init__(self, classes, mean, scale, hidden=(256, 128), learning_rate: float = 2e-3, alpha: float = 1e-4,
                 random_state=None):
        self.classes = np.asarray(classes, dtype=np.int64)
        self.mean = np.asarray(mean, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.learning_rate, self.alpha = float(learning_rate), float(alpha)
        rng = np.random.default_rng(random_state)
        sizes = [self.mean.size, *hidden, self.classes.size]
        self.params: list[np.ndarray] = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            bound = np.sqrt(6.0 / (a + b))
            self.params += [rng.uniform(-bound, bound, (a, b)).astype(np.float32),
                            rng.uniform(-bound, bound, b).astype(np.float32)]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def _forward(self, X: np.ndarray) -> list[np.ndarray]:
        acts = [((X - self.mean) / self.scale).astype(np.float32)]
        for k in range(0, len(self.params), 2):
            z = acts[-1] @ self.params[k] + self.params[k + 1]
            acts.append(np.maximum(z, 0.0) if k + 2 < len(self.params) else z)
        return acts

    def loss_and_gradients(self, X: np.ndarray, y: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """Mean cross-entropy (plus the L2 term) at (X, labels y) and its gradient per parameter."""
        acts = self._forward(X)
        logits = acts[-1]
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        idx = np.searchsorted(self.classes, y)
        n = X.shape[0]
        weights = self.params[0::2]
        loss = float(-np.mean(np.log(p[np.arange(n), idx] + 1e-12))
                     + 0.5 * self.alpha * sum(float(np.sum(w.astype(np.float64) ** 2)) for w in weights) / n)
        delta = p
        delta[np.arange(n), idx] -= 1.0
        delta /= n
        grads: list[np.ndarray] = [None] * len(self.params)  # type: ignore[list-item]
        for k in range(len(self.params) - 2, -1, -2):
            grads[k] = acts[k // 2].T @ delta + (self.alpha / n) * self.params[k]
            grads[k + 1] = delta.sum(axis=0)
            if k:
                delta = (delta @ self.params[k].T) * (acts[k // 2] > 0)
        return loss, grads

    def step(self, X: np.ndarray, y: np.ndarray) -> float:
        """One Adam step on the batch (X, y); the batch's loss before it."""
        loss, grads = self.loss_and_gradients(X, y)
        self.t += 1
        b1, b2 = 0.9, 0.999
        rate = self.learning_rate * np.sqrt(1 - b2**self.t) / (1 - b1**self.t)
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (rate * m / (np.sqrt(v) + 1e-8)).astype(p.dtype)
        return loss

    def exported(self) -> ExportedMLP:
        """The classifier :class:`~superpos.structure.predictor.StructurePredictor` predicts and saves with."""
        return ExportedMLP(self.classes, self.mean, self.scale, self.params[0::2], self.params[1::2], "relu")

    def state(self) -> dict:
        out = {"classes": self.classes, "mean": self.mean, "scale": self.scale, "t": np.array(self.t),
               "hyper": np.array([self.learning_rate, self.alpha])}
        for k, (p, m, v) in enumerate(zip(self.params, self.m, self.v)):
            out[f"p{k}"], out[f"m{k}"], out[f"v{k}"] = p, m, v
        return out

    @classmethod
    def from_state(cls, arrays: dict) -> "StreamedMLP":
        self = cls.__new__(cls)
        self.classes, self.mean, self.scale = arrays["classes"], arrays["mean"], arrays["scale"]
        self.learning_rate, self.alpha = (float(v) for v in arrays["hyper"])
        self.t = int(arrays["t"])
        n = sum(1 for k in arrays if k.startswith("p"))
        self.params = [np.asarray(arrays[f"p{k}"]) for k in range(n)]
        self.m = [np.asarray(arrays[f"m{k}"]) for k in range(n)]
        self.v = [np.asarray(arrays[f"v{k}"]) for k in range(n)]
        return self


def _load_checkpoint(path: Path, signature: dict) -> tuple[StreamedMLP, int, int, int] | None:
    """(network, epoch, next shard, edges seen) from ``path``; None when there is none yet."""
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(str(arrays.pop("meta")))
    except Exception as exc:  # noqa: BLE001 - any unreadable file gets the same advice
        raise SuperposError(f"{path}: not a readable training checkpoint ({exc}); delete it to start over") from None
    if meta.get("format") != _CHECKPOINT or meta.get("signature") != signature:
        raise SuperposError(f"{path}: a checkpoint of another training run (other corpus or settings); "
                            "delete it or give another --checkpoint")
    return StreamedMLP.from_state(arrays), int(meta["epoch"]), int(meta["shard"]), int(meta["edges"])


def fit_streamed(predictor, corpus, *, epochs: int = 3, batch_size: int = 1024, checkpoint=None,
                 held_out: int = 2000, progress=None, max_shards: int | None = None):
    """Train ``predictor`` (a :class:`~superpos.structure.predictor.StructurePredictor`; its
    context, features, size bonus and random_state are used, its classifier must be the
    default) on the shard folder ``corpus`` in ``epochs`` passes of mini-batches, one shard in
    memory at a time. With ``checkpoint`` (an ``.npz`` path) the state is saved after every
    shard and a run that finds it resumes there. The first ``held_out`` formulas of the first
    shard are never trained on: with ``size_bonus="auto"`` they choose it. ``max_shards`` stops
    after that many shards this call (the checkpoint keeps the place): a time budget per
    session. Returns the predictor, fitted when all epochs are done, else unfitted."""
    from .corpus import Corpus, _shard_files
    from .features import DatasetFeatures

    report = progress if progress is not None else (lambda stage, done, total: None)
    path = Path(corpus)
    if not path.is_dir():
        raise SuperposError(f"{path}: streamed training reads a shard folder (superpos generate big/ ...); "
                            "fit a single .npz corpus with StructurePredictor.fit")
    if predictor.classifier is not None:
        raise SuperposError("streamed training trains its own perceptron: leave classifier=None")
    if not (isinstance(epochs, int) and epochs >= 1 and isinstance(batch_size, int) and batch_size >= 1):
        raise SuperposError(f"epochs and batch_size must be positive integers, got {epochs!r} and {batch_size!r}")
    if max_shards is not None and checkpoint is None:
        raise SuperposError("stopping after max_shards needs a checkpoint to resume from")
    shards = _shard_files(path)
    first = Corpus.load(path / shards[0][0])
    basis = predictor.basis or first.basis
    if basis != first.basis:
        raise SuperposError("the corpus was generated over a different basis than the predictor's")
    max_depth = int(predictor.max_depth or first.max_depth)
    from sklearn.base import clone

    features = clone(predictor.features) if predictor.features is not None else DatasetFeatures(n_jobs=predictor.n_jobs)
    features = features.fit(first.datasets[:1])  # the predictor's own stays unfitted, as fit leaves it
    n_hold = int(min(held_out, len(first) // 5))
    seed = 0 if predictor.random_state is None else int(predictor.random_state)
    signature = {"shards": [[name, int(n)] for name, n in shards], "context": predictor.context,
                 "max_depth": max_depth, "epochs": epochs, "batch_size": batch_size, "held_out": n_hold, "seed": seed}
    ckpt = Path(checkpoint) if checkpoint is not None else None

    def rows_of(shard, lo: int = 0):
        trees = shard.trees[lo:]
        phi = features.transform(shard.datasets[lo:])
        return predictor._edge_rows(phi, [edge_contexts(t, basis.arities) for t in trees], basis, max_depth)

    state = _load_checkpoint(ckpt, signature) if ckpt is not None else None
    if state is None:
        X0, _ = rows_of(first, n_hold)  # the scaler: the first shard's training rows
        scale = X0.std(axis=0)
        net = StreamedMLP(np.arange(1, len(basis)), X0.mean(axis=0), np.where(scale > 0, scale, 1.0),
                          random_state=seed)
        epoch, next_shard, edges = 0, 0, 0
    else:
        net, epoch, next_shard, edges = state
    done_now = 0
    while epoch < epochs:
        for s in range(next_shard, len(shards)):
            if max_shards is not None and done_now >= max_shards:
                return predictor
            report(f"epoch {epoch + 1}/{epochs}", s, len(shards))
            shard = first if s == 0 else Corpus.load(path / shards[s][0])
            X, labels = rows_of(shard, n_hold if s == 0 else 0)
            order = np.random.default_rng([seed, epoch, s]).permutation(len(labels))
            for b in range(0, order.size, batch_size):
                take = order[b:b + batch_size]
                net.step(X[take], labels[take])
            edges += len(labels)
            done_now += 1
            if ckpt is not None:
                nxt_epoch, nxt_shard = (epoch, s + 1) if s + 1 < len(shards) else (epoch + 1, 0)
                meta = {"format": _CHECKPOINT, "signature": signature, "epoch": nxt_epoch, "shard": nxt_shard,
                        "edges": edges}
                atomic_write_npz(ckpt, meta=np.array(json.dumps(meta)), **net.state())
        epoch, next_shard = epoch + 1, 0
    predictor.basis_ = basis
    predictor.max_depth_ = max_depth
    predictor.features_ = features
    predictor.classifier_ = net.exported()
    predictor.n_features_phi_ = int(features.n_features_out_)
    predictor.n_edges_ = edges
    auto = isinstance(predictor.size_bonus, str)
    predictor.size_bonus_ = 0.0 if auto else float(predictor.size_bonus)
    if auto and n_hold:
        predictor.size_bonus_ = predictor._choose_size_bonus(features.transform(first.datasets[:n_hold]),
                                                             first.trees[:n_hold], report)
    return predictor
