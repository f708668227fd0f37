"""Edge validation: does a formula hold beyond the points that fixed its constants?

For each input, the points of its largest values (``edge_share`` of them), then those of
its least, are held out as an edge; the formula's constants are refitted on the rest, and the
refit is scored on the edge. A law refitted on the interior predicts the edge as well as it
fits (to the data's precision, or to the noise and its constants' uncertainty); a curve fit
does not: a
polynomial or a sum of 15 library terms can fit 200 points of a smooth function to 1e-18
of its variance and still go wrong a step beyond them. The status
(:func:`~superpos.symreg.status.formula_status`) asks it of ``exact`` and ``law``.
"""
from __future__ import annotations

import numpy as np

from ..core.numeric import error_scale
from ..core.tree import evaluate
from .fitting import jacobian, refit_constants
from .tuning import TUNING, Tuning

__all__ = ["edge_splits", "edge_errors", "edge_floor", "holds_at_edges"]

def edge_splits(X: np.ndarray, tuning: Tuning = TUNING) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(interior rows, edge rows)]: for each input that varies, its ``edge_share`` of largest and
    of least values as two edges (ties by row), the rest the interior. Empty below
    ``edge_min_points`` points."""
    n = X.shape[0]
    k = int(round(tuning.edge_share * n))
    if n < tuning.edge_min_points or k < 1:
        return []
    out = []
    for j in range(X.shape[1]):
        if np.ptp(X[:, j]) == 0:
            continue
        order = np.argsort(X[:, j], kind="stable")
        for edge in (order[-k:], order[:k]):
            inner = np.ones(n, dtype=bool)
            inner[edge] = False
            out.append((np.flatnonzero(inner), np.sort(edge)))
    return out


def edge_errors(tree, basis, X: np.ndarray, y: np.ndarray, constants, max_iter: int, seed: int,
                splits: list | None = None, tuning: Tuning = TUNING) -> np.ndarray:
    """(edges, 3): per edge of :func:`edge_splits` (pass ``splits`` to reuse them across
    formulas), with the constants refitted on the interior (from ``constants``), the normalised
    errors (by the variance of all of y) on the interior and on the edge, and the edge error a
    right formula would make: the interior's noise sigma^2 = SSE / (n - p) plus the variance of
    its predictions on the edge, sigma^2 h_i with h_i = J_i (J^T J)^-1 J_i^T the edge point's
    leverage under the interior's Jacobian J (a power law over decades, refitted without its
    largest values, extrapolates with the uncertainty of its exponents), that one weighted by
    ``edge_shared_weight``. The error is taken over the edge points where the refitted formula
    is defined, when they are at least ``edge_defined`` of them: a law with a domain is
    undefined at a few edge points, not wrong there."""
    splits = edge_splits(X, tuning) if splits is None else splits
    constants = np.asarray(constants, dtype=np.float64)
    scale = error_scale(y)
    out = np.empty((len(splits), 3))
    for s, (inner, edge) in enumerate(splits):
        c = constants
        if c.size and np.all(np.isfinite(c)):
            c = refit_constants(tree, basis, X[inner], y[inner], c, 0, max_iter, seed)
        with np.errstate(all="ignore"):
            r = y - evaluate(tree, basis, X, c)
            e_in = float(np.mean(r[inner] ** 2))
            ok = np.isfinite(r[edge])  # undefined beyond a domain is not exploding: asin(c z), z near 1
            e_edge = float(np.mean(r[edge][ok] ** 2)) if ok.mean() >= tuning.edge_defined else np.inf
            s2 = float(r[inner] @ r[inner]) / max(inner.size - c.size, 1)
        out[s] = e_in / scale, e_edge / scale, s2 * (1.0 + tuning.edge_shared_weight * _leverage(tree, basis, X, c, inner, edge)) / scale
    out[~np.isfinite(out)] = np.inf
    return out


def _leverage(tree, basis, X: np.ndarray, c: np.ndarray, inner: np.ndarray, edge: np.ndarray) -> float:
    """The mean leverage of the edge points under the interior's least-squares fit,
    mean_i J_i (J_in^T J_in)^-1 J_i^T (columns scaled to unit norm; 0 without constants, inf
    where the Jacobian is not finite)."""
    if not c.size or not np.all(np.isfinite(c)):
        return 0.0
    J = jacobian(lambda v: evaluate(tree, basis, X, v), c)
    if not np.all(np.isfinite(J)):
        return float("inf")
    Ji = J[inner]
    d = np.sqrt(np.sum(Ji * Ji, axis=0))
    safe = np.where(d > 0, d, 1.0)
    A = (Ji / safe).T @ (Ji / safe) + 1e-12 * np.eye(c.size)
    try:
        B = np.linalg.solve(A, (J[edge] / safe).T)
    except np.linalg.LinAlgError:
        return float("inf")
    return float(np.mean(np.sum((J[edge] / safe) * B.T, axis=1)))


def edge_floor(precision: float | None, exact_below: float, tuning: Tuning = TUNING) -> float:
    """The edge error that always passes: ``edge_floor`` for data at float64 precision
    (``precision`` None), else the error that rounding the data makes (``exact_below``):
    relative rounding errs more where the values are larger, often at an edge (seven-digit
    x^2 + sin x on [-3, 3]: 4.2x more on an edge than inside)."""
    return tuning.edge_floor if precision is None else float(exact_below)


def holds_at_edges(errors: np.ndarray, floor: float | None = None, tuning: Tuning = TUNING) -> bool:
    """Whether the errors of :func:`edge_errors` are a law's: on every edge the error at most
    ``edge_ratio`` times what a right formula would make there (the interior's error, or
    its noise plus the prediction variance on the edge, whichever is larger) plus ``floor``
    (:func:`edge_floor`, ``edge_floor`` by default; true with no edges)."""
    floor = tuning.edge_floor if floor is None else floor
    errors = np.asarray(errors, dtype=np.float64).reshape(-1, 3)
    expected = np.maximum(errors[:, 0], errors[:, 2])
    return bool(np.all(errors[:, 1] <= tuning.edge_ratio * expected + floor))
