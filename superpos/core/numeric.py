"""Numeric bounds and error measures shared by the evaluator, the fitting kernel, the corpus
and selection: each bound is defined here once, under a name that says what it bounds."""
from __future__ import annotations

import numpy as np

__all__ = ["DIV_EPS", "MAX_CONSTANT", "MAX_DATA", "VARIANCE_FLOOR", "RELATIVE_FLOOR", "error_scale", "nmse", "r2",
           "chi2_upper"]

DIV_EPS = 1e-12
"""Protected division: a denominator with |b| <= DIV_EPS gives NaN (the candidate loses)."""

MAX_CONSTANT = 1e150
"""Fitted constants are clipped to [-MAX_CONSTANT, MAX_CONSTANT] during Levenberg-Marquardt."""

MAX_DATA = 1e300  # the messages of core.dataset say "1e300"
"""Data values beyond this magnitude are refused (squares would overflow)."""


VARIANCE_FLOOR = 1e-300
RELATIVE_FLOOR = 1e-24
"""y counts as constant, and its mean square (at least 1) scales the error, when its variance is
below VARIANCE_FLOOR or below RELATIVE_FLOOR times its mean square (a relative bound, so that
data in units of 1e-155 still have a variance)."""


def error_scale(y: np.ndarray) -> float:
    """The denominator of the normalised error: var(y), or for a constant y its mean square
    (at least 1). The fitting kernel's ``_kernels.program.error_scale`` is its compiled twin
    (the tests compare them); plain numpy here, so that a command does not load a compiled
    kernel to score one formula."""
    y = np.asarray(y, dtype=np.float64)
    var, ms = float(np.var(y)), float(np.mean(y * y))
    return var if var > max(VARIANCE_FLOOR, RELATIVE_FLOOR * ms) else max(ms, 1.0)


def nmse(y: np.ndarray, pred: np.ndarray) -> float:
    """Mean squared error over :func:`error_scale` (1 for a constant predictor at the mean;
    inf when pred is not finite or has another shape)."""
    y = np.asarray(y, dtype=np.float64).ravel()
    pred = np.asarray(pred, dtype=np.float64)
    if pred.shape != y.shape or y.size == 0 or not np.all(np.isfinite(pred)):
        return np.inf
    with np.errstate(all="ignore"):
        out = float(np.mean((y - pred) ** 2)) / error_scale(y)
    return out if np.isfinite(out) else np.inf


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    """Coefficient of determination 1 - NMSE (-inf for non-finite predictions). It does not
    depend on the unit of y: data beyond 10^±100 are divided by max|y| first, so that squares
    neither underflow (R^2 = 1 for any fit of data near 1e-160) nor overflow (-inf near 1e200)."""
    y = np.asarray(y, dtype=np.float64).ravel()
    top = float(np.max(np.abs(y))) if y.size else 0.0
    if top > 0 and (top < 1e-100 or top > 1e100):
        with np.errstate(all="ignore"):
            return 1.0 - nmse(y / top, np.asarray(pred, dtype=np.float64) / top)
    return 1.0 - nmse(y, pred)


def chi2_upper(k: int, level: float) -> float:
    """The value chi-square with ``k`` degrees of freedom exceeds with probability ``level``
    (Wilson-Hilferty: k (1 - h + z sqrt h)^3, h = 2 / (9 k); within 2 % of the exact quantile at
    the 0.1 % level from k = 3 on); divided by k, the F test's critical value for many points."""
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1.0 - level)
    h = 2.0 / (9.0 * k)
    return float(k * (1.0 - h + z * np.sqrt(h)) ** 3)
