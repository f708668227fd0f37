"""The decoder: the best (or k best) admissible trees under additive edge scores.

The scores are a tensor S[d, g, i, p, j] (see :mod:`superpos._kernels.tree`): log theta for
the likelihood model, w . phi(x) plus loss terms for the S-SVM tree model. Lower-rank
inputs are accepted and broadcast: (H, H) parent-only scores as in seed 003,
(D, H, A, H) for parent + position + depth, (D, H, H, A, H) with the grandparent.
Depths beyond the tensor's depth axis reuse its last slice (a depth axis of length 1 means
depth-free scores).
"""
from __future__ import annotations

import numpy as np

from .. import _kernels
from ..core.tree import edge_contexts
from ..exceptions import SuperposError

__all__ = ["as_score_tensor", "decode_best", "decode_kbest", "decode_mbr", "decode_seed", "edge_rows", "score_tree"]


def as_score_tensor(S: np.ndarray) -> np.ndarray:
    """Return S as a C-contiguous float64 array of shape (Dd, G, H, A, H)."""
    S = np.asarray(S, dtype=np.float64)
    if S.ndim == 2:
        S = S[None, None, :, None, :]
    elif S.ndim == 4:
        S = S[:, None]
    elif S.ndim != 5:
        raise SuperposError(f"score tensor must have 2, 4 or 5 axes, got shape {S.shape}")
    if min(S.shape) < 1 or S.shape[2] != S.shape[4] or S.shape[1] not in (1, S.shape[2]):
        raise SuperposError(f"score tensor shape {S.shape} does not match (D, G, H, A, H)")
    if np.isnan(S).any():
        raise SuperposError("score tensor contains NaN")
    return np.ascontiguousarray(S)


def _check_arities(arities, H: int) -> np.ndarray:
    arities = np.ascontiguousarray(arities, dtype=np.int64)
    if arities.shape != (H,):
        raise SuperposError(f"arity vector has shape {arities.shape}, expected ({H},)")
    if arities[0] != 1:
        raise SuperposError("colour 0 must be the identity root h0 of arity 1")
    if not np.any(arities[1:] == 0):
        raise SuperposError("the basis has no zero-arity function (variable, constant or number): no finite tree exists")
    return arities


def decode_best(S, arities, max_depth: int) -> tuple[float, np.ndarray]:
    """The highest-scoring admissible tree of depth <= max_depth: (score, prefix tree).

    best[d][i] = sum_p max_j (S[d, i, p, j] + best[d + 1][j]); O(D |H|^2 A), times |H|
    with a grandparent axis.
    """
    S = as_score_tensor(S)
    arities = _check_arities(arities, S.shape[2])
    if max_depth < 1:
        raise SuperposError("max_depth must be >= 1")
    value, tree = _kernels.tree_dp(S, arities, int(max_depth))
    if tree.size == 0:
        raise SuperposError(f"no admissible tree of depth <= {max_depth} has a finite score")
    return float(value), tree


def decode_kbest(S, arities, max_depth: int, k: int, max_size: int | None = None,
                 max_list: int = 4000) -> list[tuple[float, np.ndarray]]:
    """The k highest-scoring admissible trees, best first, each once: [(score, tree)].

    ``max_size``: only trees of at most that many nodes (h0 not counted). The bounded k
    best are the first k of the unbounded ranking that fit, so the list is widened
    (doubling, up to ``max_list`` trees) until k of them fit: exact below that cap. Memory
    grows with the list: about 0.17 MB per tree for |H| = 19, depth 5, the grandparent context.
    Fewer than k come back when fewer trees exist."""
    S = as_score_tensor(S)
    arities = _check_arities(arities, S.shape[2])
    if max_depth < 1 or k < 1:
        raise SuperposError("max_depth and k must be >= 1")
    if max_size is not None and max_size < 1:
        raise SuperposError("max_size must be >= 1")
    width = int(k)
    while True:
        values, flat, offsets = _kernels.tree_kbest(S, arities, int(max_depth), width)
        if values.size == 0:
            raise SuperposError(f"no admissible tree of depth <= {max_depth} has a finite score")
        keep = np.arange(values.size)
        if max_size is not None:
            keep = keep[np.diff(offsets) <= max_size]
        if keep.size >= k or values.size < width or width >= max_list:
            break
        width = min(2 * width, int(max_list))
    return [(float(values[r]), flat[offsets[r]:offsets[r + 1]].copy()) for r in keep[:k]]


def decode_mbr(S, arities, max_depth: int, n_list: int = 1000, n_dp: int = 20) -> tuple[float, np.ndarray]:
    """The minimum-Bayes-risk tree for seed 003's Hamming loss Delta between edge-indicator
    vectors, under p(T) proportional to exp(score(T)) (S = log theta gives the model's own
    distribution over trees).

    E[Delta(T, T*)] = const - sum_{ij in T} (2 mu_ij - 1), mu_ij = P(T* has an edge i -> j),
    so the best tree keeps the edges more likely present than not. mu is estimated on the
    ``n_list`` most likely trees (renormalised); the candidates are those trees and the
    ``n_dp`` best under the additive edge weights 2 mu - 1 (each edge then counted once).
    Exact when ``n_list`` covers every tree. Returns (expected gain, tree)."""
    S = as_score_tensor(S)
    arities = _check_arities(arities, S.shape[2])
    H = S.shape[2]
    ranked = decode_kbest(S, arities, max_depth, n_list)
    scores = np.array([v for v, _ in ranked])
    w = np.exp(scores - scores.max())
    w /= w.sum()
    mu = w @ _edge_presence([t for _, t in ranked], arities, H)
    gain = 2.0 * mu - 1.0
    # the additive proxy keeps the model's impossible edges impossible (e.g. absent variables)
    W = np.where(np.isfinite(S), gain.reshape(1, 1, H, 1, H), -np.inf)
    cands = [t for _, t in ranked] + [t for _, t in decode_kbest(W, arities, max_depth, n_dp)]
    g = _edge_presence(cands, arities, H) @ gain
    best = int(np.argmax(g))
    return float(g[best]), cands[best]


def _edge_presence(trees, arities: np.ndarray, H: int) -> np.ndarray:
    """(len(trees), H * H) 0/1 matrix: does tree t have an edge i -> j (the root edge included)."""
    e, offsets = edge_rows(trees, arities)
    out = np.zeros((len(trees), H * H))
    out[np.repeat(np.arange(len(trees)), np.diff(offsets)), e[:, 2] * H + e[:, 4]] = 1.0
    return out


def edge_rows(trees, arities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows (depth, grandparent, parent, position, child) of every edge of admissible
    ``trees`` in one compiled pass, and the offsets of each tree's rows."""
    offsets = np.zeros(len(trees) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([t.size for t in trees])
    flat = np.concatenate(trees).astype(np.int64, copy=False) if trees else np.zeros(0, dtype=np.int64)
    return _kernels.edge_rows_batch(flat, offsets, np.asarray(arities, dtype=np.int64)), offsets


def decode_seed(L, arities, max_nodes: int = 10_000) -> tuple[float, np.ndarray]:
    """Seed 003's iterative algorithm on parent-only log-probabilities L (H, H) <= 0."""
    L = np.ascontiguousarray(L, dtype=np.float64)
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise SuperposError(f"parent-only scores must be a square matrix, got shape {L.shape}")
    if np.isnan(L).any() or np.any(L > 0):
        raise SuperposError("the seed's algorithm needs log-probabilities (all scores <= 0); use decode_best with a depth bound")
    arities = _check_arities(arities, L.shape[0])
    value, tree = _kernels.seed_decode(L, arities, int(max_nodes))
    if tree.size == 0:
        raise SuperposError("no admissible tree with a finite score and at most max_nodes nodes")
    return float(value), tree


def score_tree(S, arities, tree) -> float:
    """Sum of S over the edges of ``tree`` (the root edge included)."""
    S = as_score_tensor(S)
    arities = _check_arities(arities, S.shape[2])
    return float(_kernels.tree_scores(S, arities, edge_contexts(tree, arities)))
