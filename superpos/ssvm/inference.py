"""MAP inference on pairwise graphs, the oracle of every graph model.

    argmax_y  E(y) = sum_i unary[i, y_i] + sum_e pairwise[e, y_{i_e}, y_{j_e}]

over labels y in {0..K-1}^N, with edges (E, 2) and pairwise (E, K, K) (or one (K, K) matrix
shared by every edge). A unary of -inf rules a state out. Methods:

- ``"exact"``: max-sum dynamic programme on a forest (numba); a graph with a cycle raises.
- ``"max-product"``: loopy max-product with damped messages (numba); exact on forests once it
  converges, approximate otherwise (it returns the best labelling it decoded).
- ``"lp"``: the local-polytope LP relaxation, solved by HiGHS (``scipy.optimize.linprog``);
  exact when the solution is integral, else the node marginals are rounded by argmax.
- ``"brute"``: enumeration of all K^N labellings (tests; at most 10^6).
- ``"auto"``: ``"exact"`` on forests, ``"max-product"`` otherwise.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .. import _kernels
from ..exceptions import SuperposError

__all__ = ["METHODS", "InferenceInfo", "infer", "energy", "is_forest", "lp_relaxation", "brute_force"]

METHODS = ("auto", "exact", "max-product", "lp", "brute")
_BRUTE_LIMIT = 1_000_000


@dataclass
class InferenceInfo:
    """What one call did: the method that ran, whether its answer is certified optimal
    (exact DP, brute force, an integral LP), LP fractionality, max-product convergence."""

    method: str
    exact: bool
    fractional: bool = False
    converged: bool = True
    iterations: int = 0


def _arrays(unary, pairwise, edges):
    unary = np.ascontiguousarray(unary, dtype=np.float64)
    edges = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    pairwise = np.asarray(pairwise, dtype=np.float64)
    K = unary.shape[1]
    if pairwise.ndim == 2:
        pairwise = np.broadcast_to(pairwise, (edges.shape[0], K, K))
    return unary, np.ascontiguousarray(pairwise), edges


def energy(unary, pairwise, edges, labels) -> float:
    """E(labels) = sum_i unary[i, y_i] + sum_e pairwise[e, y_i, y_j]."""
    unary, pairwise, edges = _arrays(unary, pairwise, edges)
    return float(_kernels.graph_energy(unary, pairwise, edges, np.ascontiguousarray(labels, dtype=np.int64)))


def is_forest(n_nodes: int, edges) -> bool:
    """True when the undirected graph has no cycle (no repeated edge either)."""
    return bool(_kernels.forest_order(int(n_nodes), np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2))[3])


def brute_force(unary, pairwise, edges) -> np.ndarray:
    """The optimum by enumeration (first best in lexicographic order)."""
    unary, pairwise, edges = _arrays(unary, pairwise, edges)
    n, K = unary.shape
    if float(K) ** n > _BRUTE_LIMIT:
        raise SuperposError(f"brute-force inference over {K}^{n} labellings is too large: use 'exact', "
                            "'max-product' or 'lp'")
    Y = np.array(list(itertools.product(range(K), repeat=n)), dtype=np.int64).reshape(-1, n)
    rows = np.arange(n)
    vals = unary[rows, Y].sum(1)
    if len(edges):
        vals = vals + pairwise[np.arange(len(edges)), Y[:, edges[:, 0]], Y[:, edges[:, 1]]].sum(1)
    return Y[int(np.argmax(vals))].copy()


def lp_relaxation(unary, pairwise, edges) -> tuple[np.ndarray, np.ndarray]:
    """Local-polytope LP: max <theta, mu> over node and edge marginals mu >= 0 with
    sum_s mu_i(s) = 1, sum_t mu_e(s, t) = mu_i(s), sum_s mu_e(s, t) = mu_j(t).

    Returns (node marginals (N, K), labels = argmax per node). States of unary -inf get
    mu = 0; -inf pairwise entries are not supported.
    """
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    unary, pairwise, edges = _arrays(unary, pairwise, edges)
    n, K = unary.shape
    E = edges.shape[0]
    if not np.all(np.isfinite(pairwise)):
        raise SuperposError("LP inference needs finite pairwise potentials")
    banned = ~np.isfinite(unary)
    nv = n * K
    rows, cols, vals = [np.repeat(np.arange(n), K)], [np.arange(nv)], [np.ones(nv)]
    r0 = n
    if E:
        e_idx = nv + np.arange(E * K * K).reshape(E, K, K)
        s_idx = np.arange(K)
        # sum_t mu_e(s, t) - mu_i(s) = 0: rows r0 + e K + s
        rows += [r0 + (np.arange(E)[:, None, None] * K + s_idx[None, :, None]).repeat(K, 2).ravel(),
                 r0 + (np.arange(E)[:, None] * K + s_idx[None, :]).ravel()]
        cols += [e_idx.ravel(), (edges[:, 0:1] * K + s_idx[None, :]).ravel()]
        vals += [np.ones(E * K * K), -np.ones(E * K)]
        r1 = r0 + E * K
        # sum_s mu_e(s, t) - mu_j(t) = 0: rows r1 + e K + t
        rows += [r1 + (np.arange(E)[:, None, None] * K + s_idx[None, None, :]).repeat(K, 1).ravel(),
                 r1 + (np.arange(E)[:, None] * K + s_idx[None, :]).ravel()]
        cols += [e_idx.ravel(), (edges[:, 1:2] * K + s_idx[None, :]).ravel()]
        vals += [np.ones(E * K * K), -np.ones(E * K)]
    n_rows = n + 2 * E * K
    A = coo_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                   shape=(n_rows, nv + E * K * K)).tocsr()
    b = np.zeros(n_rows)
    b[:n] = 1.0
    c = -np.concatenate([np.where(banned, 0.0, unary).ravel(), pairwise.ravel()])
    upper = np.ones(c.size)
    upper[:nv][banned.ravel()] = 0.0
    res = linprog(c, A_eq=A, b_eq=b, bounds=np.column_stack([np.zeros(c.size), upper]), method="highs")
    if res.status != 0:
        raise SuperposError(f"the LP relaxation failed ({res.message}); use 'max-product'")
    mu = res.x[:nv].reshape(n, K)
    return mu, np.argmax(mu, axis=1).astype(np.int64)


def infer(unary, pairwise, edges, method: str = "auto", *, max_iter: int = 100, damping: float = 0.5,
          tol: float = 1e-6, return_info: bool = False):
    """MAP labels (N,) int64 of a pairwise graph by ``method`` (see the module docstring).

    With ``return_info`` also an :class:`InferenceInfo`. ``max_iter``, ``damping`` and ``tol``
    tune max-product.
    """
    unary, pairwise, edges = _arrays(unary, pairwise, edges)
    if method not in METHODS:
        raise SuperposError(f"unknown inference {method!r}; use one of {', '.join(METHODS)}")
    if unary.shape[0] == 0:
        raise SuperposError("a graph needs at least one node")
    info = InferenceInfo(method=method, exact=True)
    if method in ("auto", "exact"):
        _, labels, ok = _kernels.forest_map(unary, pairwise, edges)
        if ok:
            info.method = "exact"
        elif method == "exact":
            raise SuperposError("inference 'exact' needs a forest and this graph has a cycle: use 'max-product' "
                                "or 'lp'")
        else:
            method = "max-product"
    if method == "max-product":
        labels, it, conv = _kernels.max_product(unary, pairwise, edges, int(max_iter), float(damping), float(tol))
        info = InferenceInfo(method="max-product", exact=False, converged=bool(conv), iterations=int(it))
    elif method == "lp":
        mu, labels = lp_relaxation(unary, pairwise, edges)
        frac = bool(np.any(mu.max(axis=1) < 1.0 - 1e-6))
        info = InferenceInfo(method="lp", exact=not frac, fractional=frac)
    elif method == "brute":
        labels = brute_force(unary, pairwise, edges)
    return (labels, info) if return_info else labels
