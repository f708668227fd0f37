"""The selection rule: which fitted candidate wins.

The validation error decides; errors within a tolerance of the best count as a tie, and a
tie goes to the simpler tree (nodes plus free constants), then the more likely one. The
finalists are ranked again by cross-validation over all the points.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .candidates import Candidate, Points

__all__ = ["selection_order", "rank_candidates", "cross_validated_finalists", "probe_points", "plausible"]


def selection_order(cands: list[Candidate], rtol: float = 0.05, atol: float = 1e-10) -> list[int]:
    """Candidates best first. The validation error decides; errors within ``rtol`` (relative)
    or ``atol`` (absolute, normalised error) of the best count as a tie, and ties go to the
    simpler tree (fewer nodes plus free constants), then the more likely one. The rest
    follow by validation error."""
    if not cands:
        return []
    err = np.array([c.nmse_validation if np.isfinite(c.nmse_validation) else np.inf for c in cands])
    best = err.min()
    tied = err <= best * (1.0 + rtol) + atol if np.isfinite(best) else np.ones(len(cands), bool)
    key = [((0, c.complexity, -c.log_likelihood, c.rank) if tied[k] else (1, err[k], c.complexity, c.rank))
           for k, c in enumerate(cands)]
    return sorted(range(len(cands)), key=lambda k: key[k])


def rank_candidates(cands: list[Candidate], rtol: float) -> list[Candidate]:
    """The candidates best first under :func:`selection_order`."""
    return [cands[k] for k in selection_order(cands, rtol=rtol)]


_FINALISTS = 10
"""The candidates first under the tie rule and those of least validation error, this many of
each, are ranked again by cross-validation on all the selection points."""


def cross_validated_finalists(cands: list[Candidate], basis, points: Points, settings, seed: int,
                              rng: np.random.Generator, affine: list) -> list[Candidate]:
    """``cands`` with their finalists ranked first by 5-fold cross-validation on all the
    points (constants refitted on each fold's other four fifths), with the ``affine`` trees
    (the affine formula over every input) among them: one split's quarter of the points chooses between thousands
    of candidates, and on noisy tables it lets a simple formula tie with a better one by
    chance; the folds use every point once and halve the tie tolerance. The finalists'
    validation errors become their cross-validated ones. Small data (``points.folds``) were
    cross-validated already, the best by training error only: the affine formula joins them."""
    keys = {np.asarray(t, dtype=np.int64).tobytes() for t in affine}
    is_affine = [np.asarray(c.tree, dtype=np.int64).tobytes() in keys for c in cands]
    if points.folds:
        head = [c for c, a in zip(cands, is_affine) if a and not np.isfinite(c.nmse_validation)]
        cv = points
    else:
        head = []
        for c in (cands[:_FINALISTS] + sorted(cands, key=lambda c: c.nmse_validation)[:_FINALISTS]
                  + [c for c, a in zip(cands, is_affine) if a]):
            if np.isfinite(c.nmse_validation) and all(c is not h for h in head):
                head.append(c)
        if len(head) < 2:
            return cands
        n = points.y.size
        fold = np.empty(n, dtype=np.int64)
        fold[rng.permutation(n)] = np.arange(n) % 5
        everything = np.arange(n)
        cv = Points(points.X, points.y, everything, everything,
                    tuple((np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(5)))
    if not head:
        return cands
    errors = cv.cross_validated([c.tree for c in head], basis, [c.constants for c in head], settings, seed)
    finalists = [replace(c, nmse_validation=float(e)) for c, e in zip(head, errors)]
    rest = [c for c in cands if all(c is not h for h in head)]
    if points.folds:
        return rank_candidates(rest + finalists, settings.tie_tolerance(points.n_validation))
    return rank_candidates(finalists, settings.tie_tolerance(cv.n_validation)) + rest


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
