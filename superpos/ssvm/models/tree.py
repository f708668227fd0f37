"""SSF tree model: structure prediction of superpositions as an S-SVM.

x is a feature vector phi(data set) (F,); y is an admissible coloured tree (prefix array of
colour ids, root h0 excluded; see :mod:`superpos.core.tree`). With the context
"parent+position+depth" every edge falls in a slot s = (depth d, parent i, position p,
child j) of the score tensor (D, 1, H, A, H) of :mod:`superpos._kernels.tree`, and

    Psi(x, y) = sum over the edges e of y of e_{slot(e)} (x) phi(x),

so w reshaped (D * H * A * H, F) gives the score tensor S[d, 0, i, p, j] = w_{d,i,p,j} . phi(x)
and <w, Psi(x, y)> = sum over edges of S: inference is the tree DP (``decode_best``), which
stays finite with positive scores because the depth is bounded by ``max_depth``.

Loss. Seed 003's Hamming distance between the |H|^2 edge-indicator vectors counts an edge
pair (i, j) once however often it occurs, so it does not decompose over edges and the DP
cannot maximise it exactly. We use an additive loss, a sum over the predicted tree's edges:

- ``loss="context"`` (default): Delta(y, y') = #edges of y' whose slot (d, i, p, j) does not
  occur in y -- the tree analogue of the Hamming loss of a sequence (every admissible tree
  fills its argument slots, so a wrong subtree shows up as wrongly labelled slots);
- ``loss="pair"``: Delta(y, y') = #edges of y' whose (parent, child) colour pair is not an
  edge pair of y -- an upper bound on the false-positive half |P(y') \\ P(y)| of the seed's
  Hamming loss (edges are counted, not distinct pairs).

Both are >= 0, zero at y' = y, and loss-augmented inference is exact: the DP runs on
S + L_y with L_y[slot] = the per-edge loss. ``loss`` computes the same sum, so the
exhaustive check of :func:`check_structured_model` holds.
"""
from __future__ import annotations

import numpy as np

from ... import _kernels
from ...core.tree import edge_contexts, enumerate_trees, is_admissible
from ...exceptions import SuperposError
from ..base import StructuredModel

__all__ = ["TreeModel"]


class TreeModel(StructuredModel):
    """Coloured trees over a basis (arity vector, colour 0 = root h0 of arity 1).

    Parameters
    ----------
    arities : arity of each colour (``Basis.arities``).
    max_depth : depth bound D of predicted trees (training trees must respect it).
    loss : "context" or "pair" (see the module docstring).
    """

    def __init__(self, arities, max_depth: int = 4, loss: str = "context"):
        self.arities = arities
        self.max_depth = max_depth
        self.loss_kind = loss

    def initialize(self, X, Y) -> "TreeModel":
        ar = np.ascontiguousarray(self.arities, dtype=np.int64)
        if ar.ndim != 1 or ar.size < 2 or ar[0] != 1 or not np.any(ar[1:] == 0):
            raise SuperposError("arities must start with the root (arity 1) and include a leaf")
        if self.max_depth < 1:
            raise SuperposError("max_depth must be >= 1")
        if self.loss_kind not in ("context", "pair"):
            raise SuperposError(f"loss must be 'context' or 'pair', got {self.loss_kind!r}")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != len(Y):
            raise SuperposError(f"X must be (n, F) feature vectors, one per tree; got {X.shape}")
        self.arities_ = ar
        self._cache = {}
        H, A, D = ar.size, max(1, int(ar.max())), int(self.max_depth)
        self.shape_ = (D, 1, H, A, H)
        self.n_slots_ = D * H * A * H
        self.n_features_ = X.shape[1]
        self.size_joint_feature = self.n_slots_ * X.shape[1]
        for y in Y:
            if not is_admissible(y, ar):
                raise SuperposError(f"tree {list(y)} is not admissible for these arities")
            if edge_contexts(y, ar)[:, 0].max() > D:
                raise SuperposError(f"tree {list(y)} is deeper than max_depth={D}")
        return self

    # --- helpers ---------------------------------------------------------------------------
    def _memo(self, kind: str, y, compute):
        """Per-tree memo (learners ask for the same trees often), cleared when it grows large."""
        cache = self.__dict__.setdefault("_cache", {})
        key = (kind, np.asarray(y, dtype=np.int64).tobytes())
        if key not in cache:
            if len(cache) > 200_000:
                cache.clear()
            cache[key] = compute(np.asarray(y, dtype=np.int64))
        return cache[key]

    def _edges(self, y) -> np.ndarray:
        """edge_contexts of y (rows: depth, grandparent, parent, position, child)."""
        return self._memo("edges", y, lambda t: edge_contexts(t, self.arities_))

    def _slots(self, y) -> np.ndarray:
        """Flat slot index of each edge in the (D, 1, H, A, H) score tensor."""
        def slots(t):
            e = self._edges(t)
            _, _, H, A, _ = self.shape_
            return (((e[:, 0] - 1) * H + e[:, 2]) * A + e[:, 3]) * H + e[:, 4]

        return self._memo("slots", y, slots)

    def _counts(self, Y) -> np.ndarray:
        out = np.zeros((len(Y), self.n_slots_))
        if len(Y):
            rows = np.concatenate([np.full(len(y), k) for k, y in enumerate(Y)])
            np.add.at(out, (rows, np.concatenate([self._slots(y) for y in Y])), 1.0)
        return out

    def _loss_table(self, y) -> np.ndarray:
        """Per-slot loss L_y (n_slots,)."""
        if self.loss_kind == "context":
            L = np.ones(self.n_slots_)
            L[self._slots(y)] = 0.0
            return L
        D, _, H, A, _ = self.shape_
        e = self._edges(y)
        P = np.ones((H, H))
        P[e[:, 2], e[:, 4]] = 0.0
        return np.broadcast_to(P[None, :, None, :], (D, H, A, H)).ravel().copy()

    def _W(self, w) -> np.ndarray:
        return np.asarray(w, dtype=np.float64).reshape(self.n_slots_, self.n_features_)

    def _decode(self, s) -> np.ndarray:
        value, tree = _kernels.tree_dp(np.ascontiguousarray(s.reshape(self.shape_)), self.arities_, self.shape_[0])
        if tree.size == 0:
            raise SuperposError("no admissible tree within max_depth")
        return tree

    def score_tensor(self, x, w) -> np.ndarray:
        """S (D, 1, H, A, H) = w reshaped times phi(x)."""
        return (self._W(w) @ np.asarray(x, dtype=np.float64)).reshape(self.shape_)

    # --- oracles ---------------------------------------------------------------------------
    def joint_feature(self, x, y) -> np.ndarray:
        c = np.bincount(self._slots(y), minlength=self.n_slots_).astype(np.float64)
        return np.outer(c, np.asarray(x, dtype=np.float64)).ravel()

    def inference(self, x, w) -> np.ndarray:
        return self._decode(self._W(w) @ np.asarray(x, dtype=np.float64))

    def loss(self, y, y_hat) -> float:
        return float(self._loss_table(y)[self._slots(y_hat)].sum())

    def loss_augmented_inference(self, x, y, w) -> np.ndarray:
        return self._decode(self._W(w) @ np.asarray(x, dtype=np.float64) + self._loss_table(y))

    # --- batch oracles ---------------------------------------------------------------------
    def _batch_decode(self, S) -> list:
        S = np.ascontiguousarray(S.reshape((S.shape[0],) + self.shape_))
        _, flat, off = _kernels.tree_dp_batch(S, self.arities_, self.shape_[0])
        return [flat[off[k]:off[k + 1]].copy() for k in range(off.size - 1)]

    def batch_inference(self, X, w) -> list:
        return self._batch_decode(np.asarray(X, dtype=np.float64) @ self._W(w).T)

    def batch_loss_augmented_inference(self, X, Y, w) -> list:
        S = np.asarray(X, dtype=np.float64) @ self._W(w).T
        for k, y in enumerate(Y):
            S[k] += self._loss_table(y)
        return self._batch_decode(S)

    def sum_joint_feature(self, X, Y) -> np.ndarray:
        return (self._counts(Y).T @ np.asarray(X, dtype=np.float64)).ravel()

    def batch_joint_feature(self, X, Y) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return np.einsum("ns,nf->nsf", self._counts(Y), X).reshape(X.shape[0], -1)

    def enumerate_outputs(self, x):
        return (np.array(t, dtype=np.int64) for t in enumerate_trees(self.arities_, self.shape_[0]))
