"""Scoring a formula beyond the range it was fitted on: points just outside the sampled box
and an R^2 that counts, without scoring, the points where the truth is undefined."""
from __future__ import annotations

import numpy as np

__all__ = ["beyond_box", "scored_r2"]


def beyond_box(lo, hi, n: int, rng: np.random.Generator, widen: float = 0.25) -> np.ndarray:
    """Up to ``n`` points beyond the box [lo, hi] (per input): uniform in the box widened by
    ``widen`` of each range on each side (in log space where the range is positive), keeping
    those with at least one input outside the box."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    pos = lo > 0
    a = np.where(pos, np.log(np.where(pos, lo, 1.0)), lo)
    b = np.where(pos, np.log(np.where(pos, hi, 1.0)), hi)
    w = widen * (b - a)
    U = rng.uniform(a - w, b + w, (4 * n, lo.size))
    Z = U.copy()
    Z[:, pos] = np.exp(U[:, pos])  # only where the range is positive: exp of a linear range may overflow
    return Z[np.any((Z < lo) | (Z > hi), axis=1)][:n]


def scored_r2(truth: np.ndarray, pred: np.ndarray) -> tuple[float, int, int]:
    """(R^2 where the truth is finite, points where it is not (counted, not scored), non-finite
    predictions where it is (scored as the prediction 0))."""
    truth, pred = np.asarray(truth, dtype=np.float64), np.asarray(pred, dtype=np.float64)
    ok = np.isfinite(truth)
    t, p = truth[ok], pred[ok]
    bad = ~np.isfinite(p)
    p = np.where(bad, 0.0, p)
    ss = float(np.sum((t - t.mean()) ** 2)) if t.size else 0.0
    with np.errstate(all="ignore"):
        score = 1.0 - float(np.sum((t - p) ** 2)) / ss if ss > 0 else float("nan")
    return score, int((~ok).sum()), int(bad.sum())
