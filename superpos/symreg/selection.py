"""The selection rule: which fitted candidate wins.

The validation error decides; errors within a tolerance of the best count as a tie, and a
tie goes to the simpler tree (nodes plus free constants), then the more likely one. The
finalists are ranked again by cross-validation over all the points, where ties are judged on
the per-point differences of the held-out errors (:func:`paired_order`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .candidates import Candidate, Points

__all__ = ["selection_order", "rank_candidates", "paired_order", "cross_validated_finalists", "probe_points", "plausible"]


def selection_order(cands: list[Candidate], rtol: float = 0.05, atol: float = 1e-10) -> list[int]:
    """Candidates best first. The validation error decides; errors within ``rtol`` (relative)
    or ``atol`` (absolute, normalised error) of the best count as a tie, and ties go to the
    simpler tree (fewer nodes plus free constants), then the more likely one. The rest
    follow by validation error."""
    if not cands:
        return []
    err = np.array([c.nmse_validation for c in cands], dtype=np.float64)
    err[~np.isfinite(err)] = np.inf
    best = err.min()
    tied = err <= best * (1.0 + rtol) + atol if np.isfinite(best) else np.ones(len(cands), bool)
    size = np.array([c.tree.size + c.constants.size for c in cands], dtype=np.float64)
    ll = np.array([c.log_likelihood for c in cands], dtype=np.float64)
    rank = np.array([c.rank for c in cands], dtype=np.float64)
    # (0, complexity, -log-likelihood, rank) for the tied, (1, error, complexity, rank) for the rest
    keys = (rank, np.where(tied, -ll, size), np.where(tied, size, err), ~tied)
    return np.lexsort(keys).tolist()


def rank_candidates(cands: list[Candidate], rtol: float) -> list[Candidate]:
    """The candidates best first under :func:`selection_order`."""
    return [cands[k] for k in selection_order(cands, rtol=rtol)]


_FINALISTS = 10
"""The candidates first under the tie rule and those of least validation error, this many of
each, are ranked again by cross-validation on all the selection points."""


_MARGIN = (0.05, 0.01)
"""Errors within 5 % of the best and within 1 % of the variance of y (normalised errors
0.01 apart: R^2 0.01) are practically equal (:func:`paired_order`)."""


def paired_order(cands: list[Candidate], errors: np.ndarray, rtol: float = np.inf,
                 margin: tuple[float, float] = _MARGIN, atol: float = 1e-10) -> list[int]:
    """Candidates best first from their per-point held-out errors ``errors`` (candidates, n).
    Against the candidate of least mean error b, candidate k ties when the data cannot call
    it worse, mean(e_k - e_b) <= min(sd(e_k - e_b) / sqrt(n), ``rtol`` mean(e_b)), or when
    it is not worse by much, mean(e_k - e_b) <= min(m_rel mean(e_b), m_abs) with ``margin``
    = (m_rel, m_abs) (+ ``atol``; the errors are normalised by the variance of y, so m_abs is
    in R^2); the tie goes to the simpler tree, then the more likely one, and the rest follow
    by mean error. A more complex formula must be better beyond the noise and by a margin
    worth a term; on a noisy table that margin is at most m_abs of R^2.
    The standard error of the paired difference is the right one where the difference
    spreads over the points: two formulas that err alike differ by far less than either
    error's spread (the relative tolerance alone, sqrt(2 / n), let a constant tie with a line
    that explains 10 % of a noisy table). Where a few points carry the difference (a wrong
    formula far off at the ends of the range, on 20 points) it is larger than the standard
    error of a mean squared error, ``rtol`` relative, and that one decides."""
    if not cands:
        return []
    E = np.asarray(errors, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean = np.where(np.all(np.isfinite(E), axis=1), E.mean(axis=1), np.inf)
    best = int(np.argmin(mean))
    tied = np.zeros(len(cands), dtype=bool)
    if np.isfinite(mean[best]):
        n = E.shape[1]
        for k in np.flatnonzero(np.isfinite(mean)):
            with np.errstate(all="ignore"):
                d = E[k] - E[best]
                se = float(np.std(d, ddof=1)) / np.sqrt(n) if n > 1 else 0.0
            noise = min(se, rtol * mean[best]) if np.isfinite(rtol) else se
            tied[k] = d.mean() <= max(noise, min(margin[0] * mean[best], margin[1])) + atol
    else:
        tied[:] = True
    key = [((0, c.complexity, -c.log_likelihood, c.rank) if tied[k] else (1, mean[k], c.complexity, c.rank))
           for k, c in enumerate(cands)]
    return sorted(range(len(cands)), key=lambda k: key[k])


def cross_validated_finalists(cands: list[Candidate], basis, points: Points, settings, seed: int,
                              rng: np.random.Generator, affine: list) -> list[Candidate]:
    """``cands`` with their finalists first, ranked by K-fold cross-validation on all the
    points (constants refitted on each fold's other points) under :func:`paired_order`.
    The finalists are the first ``_FINALISTS`` under the tie rule, as many of least
    validation error and the ``affine`` trees (the affine formula over every input): one
    split's quarter of the points chooses between thousands of candidates, and on noisy
    tables it lets a simple formula tie with a better one by chance (or a lucky one win);
    the folds use every point once and the paired rule asks a better fit to be better on
    the same points. Small data (``points.folds``) keep their folds; others get 5. The
    finalists' ``nmse_validation`` becomes their cross-validated error."""
    keys = {np.asarray(t, dtype=np.int64).tobytes() for t in affine}
    head: list[Candidate] = []
    chosen: set[int] = set()  # ids of the candidates in head
    for c in (cands[:_FINALISTS] + sorted(cands, key=lambda c: c.nmse_validation)[:_FINALISTS]
              + [c for c in cands if np.asarray(c.tree, dtype=np.int64).tobytes() in keys]):
        if (np.isfinite(c.nmse_validation) or points.folds) and id(c) not in chosen:
            head.append(c)
            chosen.add(id(c))
    if len(head) < 2:
        return cands
    if points.folds:
        cv = points
    else:
        n = points.y.size
        fold = np.empty(n, dtype=np.int64)
        fold[rng.permutation(n)] = np.arange(n) % 5
        everything = np.arange(n)
        cv = Points(points.X, points.y, everything, everything,
                    tuple((np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(5)))
    errors = cv.cross_validated([c.tree for c in head], basis, [c.constants for c in head], settings, seed,
                                per_point=True)
    with np.errstate(all="ignore"):
        means = np.where(np.all(np.isfinite(errors), axis=1), errors.mean(axis=1), np.inf)
    if not np.isfinite(means).any():  # no finalist survives its folds: keep the order as it was
        return cands
    finalists = [replace(c, nmse_validation=float(e)) for c, e in zip(head, means)]
    rest = [c for c in cands if id(c) not in chosen]
    return [finalists[k] for k in paired_order(finalists, errors, settings.tie_tolerance(cv.n_validation))] + rest


def probe_points(X: np.ndarray, max_points: int = 500) -> np.ndarray:
    """The points where :func:`plausible` looks: (up to ``max_points`` of) the data points and
    3 points inside the segment from each to its nearest neighbour (inputs scaled to their
    ranges; not the whole bounding box, where correlated inputs may put a true pole)."""
    n = X.shape[0]
    idx = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(np.int64)
    Z = X[idx]
    width = np.ptp(Z, axis=0)
    U = Z / np.where(width > 0, width, 1.0)
    d = ((U[:, None, :] - U[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d, np.inf)
    nearest = d.argmin(axis=1)
    t = np.array([0.25, 0.5, 0.75])[:, None, None]
    mids = (Z[None, :, :] * (1 - t) + Z[nearest][None, :, :] * t).reshape(-1, X.shape[1])
    return np.vstack([Z, mids])


def plausible(tree, basis, constants, X: np.ndarray, y: np.ndarray, probes: np.ndarray | None = None) -> bool:
    """No absurd formula: finite at :func:`probe_points` of X (pass ``probes`` to reuse them
    across candidates) and within twice the target's range around it there,
    [min y - R/2, max y + R/2] with R = max y - min y."""
    from ..core.tree import evaluate

    lo, hi = float(np.min(y)), float(np.max(y))
    half = 0.5 * (hi - lo)
    with np.errstate(all="ignore"):
        v = evaluate(tree, basis, probe_points(X) if probes is None else probes, constants)
    return bool(np.all(np.isfinite(v)) and np.all(v >= lo - half) and np.all(v <= hi + half))
