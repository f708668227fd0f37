"""Evidence beyond the data's points: a formula is plausible where it stays finite and near the
target's range at probe points between the data (:func:`plausible`), and one that explodes just
beyond the data gives way to a tied one that does not (:func:`extrapolation_order`)."""
from __future__ import annotations

import numpy as np

from .candidates import Candidate
from .tuning import TUNING, Tuning

__all__ = ["beyond_points", "explodes", "extrapolation_order", "probe_points", "plausible"]


def beyond_points(X: np.ndarray, rng: np.random.Generator, n: int = 200, tuning: Tuning = TUNING) -> np.ndarray:
    """Up to ``n`` points just beyond the data: rows of X with one input moved up to
    ``probe_beyond`` of its range past its least or largest value (in log space where the input
    is positive), the other inputs as they were (their correlations kept)."""
    m = X.shape[1]
    rows = X[rng.integers(0, X.shape[0], n)].copy()
    lo, hi = X.min(axis=0), X.max(axis=0)
    pos = lo > 0
    for i in range(n):
        j = int(rng.integers(m))
        t = float(rng.uniform(0.0, tuning.probe_beyond))
        up = bool(rng.integers(2))
        if pos[j]:
            w = np.log(hi[j] / lo[j])
            rows[i, j] = hi[j] * np.exp(t * w) if up else lo[j] * np.exp(-t * w)
        else:
            w = hi[j] - lo[j]
            rows[i, j] = hi[j] + t * w if up else lo[j] - t * w
    return rows


def explodes(c: Candidate, basis, probes: np.ndarray, y: np.ndarray) -> bool:
    """Whether the candidate's values at ``probes`` leave [min y - r, max y + r] (r the range
    of y) or are infinite; NaN (undefined beyond the domain: asin, a root of a difference) is not
    exploding."""
    from ..core.tree import evaluate

    lo, hi = float(np.min(y)), float(np.max(y))
    r = hi - lo
    with np.errstate(all="ignore"):
        v = evaluate(c.tree, basis, probes, c.constants)
    v = v[~np.isnan(v)]
    return bool(np.any(np.isinf(v)) or np.any(v < lo - r) or np.any(v > hi + r))


def extrapolation_order(cands: list[Candidate], basis, X: np.ndarray, y: np.ndarray, exact_below: float,
                        rng: np.random.Generator, rtol: float = 0.1, tuning: Tuning = TUNING) -> list[Candidate]:
    """Extrapolation as evidence: when the first candidate is not exact and explodes just beyond
    the data (:func:`explodes` at :func:`beyond_points`), the first one after it whose error the
    data cannot tell from its own (within the relative tie tolerance ``rtol``) and that stays
    inside goes first. A law with a true pole just beyond the range keeps its place against a
    shorter formula that fits measurably worse."""
    if not cands or cands[0].nmse_validation < exact_below or not np.isfinite(cands[0].nmse_validation):
        return cands
    probes = beyond_points(X, rng, tuning=tuning)
    if not explodes(cands[0], basis, probes, y):
        return cands
    e0 = cands[0].nmse_validation
    for k, c in enumerate(cands[1:], start=1):
        if c.nmse_validation <= e0 * (1.0 + rtol) + 1e-10 and not explodes(c, basis, probes, y):
            return [c] + cands[:k] + cands[k + 1:]
    return cands


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
