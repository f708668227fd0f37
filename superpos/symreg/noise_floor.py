"""Whether a short sum of terms describes noisy data as a law: a smooth surrogate's noise floor.

Where no sum of terms describes the data exactly, a sum of a few terms chosen among hundreds
may still be the law measured with noise, or a series that fits the sample. The reference is a
smooth surrogate, the polynomial in the standardised inputs of the largest degree <= 4 with at
most n / 4 columns (:func:`noise_floor`): a few terms fit no noise that it does not fit better,
and a law's few terms fit as well as it (:func:`as_good`). Where the polynomial misfits too,
"as well as it" is no test, so the sum must then explain 99.9 % of the variance; where a degree
more buys the polynomial nothing, what it leaves is noise, and 99 % suffices.
"""
from __future__ import annotations

import math

import numpy as np

from .template import monomials
from .tuning import TUNING, Tuning

__all__ = ["noise_floor", "as_good", "unexplained"]


def noise_floor(X: np.ndarray, ys: np.ndarray, tuning: Tuning = TUNING) -> tuple[float, bool]:
    """(floor, settled): the share of the variance of ys that a smooth surrogate leaves, as a
    noise variance: the unexplained share of the polynomial in the standardised inputs of the
    largest degree d <= 4 with at most n / 4 columns, times (n - 1) / (n - p). ``settled`` where
    that estimate is at least ``surrogate_settled`` of the same at degree d - 1 (d >= 2): a degree more
    buys nothing, so what is left is noise (|x|^2 at 1 % noise), not the polynomial's misfit.
    A floor of 0 (no noisy sum passes) for one input: there the classic laws and the lab's
    families are the tools, and short sums of one input's terms at 1 % noise were look-alikes
    of its curve (exp(z) - 1 written with z^-4, z^-3 cos(1/z) and z^-2)."""
    n, m = X.shape
    sd = X.std(axis=0)
    if m < 2 or np.any(sd == 0):
        return 0.0, False
    Z = (X - X.mean(axis=0)) / sd
    degree = 4
    while degree > 1 and math.comb(m + degree, degree) > n / 4:
        degree -= 1
    P = monomials(Z, degree)
    floor = unexplained(P[:, 1:], ys) * (n - 1) / max(n - P.shape[1], 1)
    if degree < 2:
        return floor, False
    lower = math.comb(m + degree - 1, degree - 1)
    below = unexplained(P[:, 1:lower], ys) * (n - 1) / max(n - lower, 1)
    return floor, bool(floor >= tuning.surrogate_settled * below)


def as_good(cols: list[int], share: float, n: int, floor: tuple[float, bool], tuning: Tuning = TUNING) -> bool:
    """Whether a sum of these columns, leaving ``share`` of the variance, describes noisy data
    as a law: at most ``noisy_sum_terms`` terms, the noise variance it implies (share (n - 1) /
    (n - k - 1)) at most ``noise_floor_slack`` times the smooth surrogate's (:func:`noise_floor`),
    and it leaves at most ``noisy_sum_unexplained`` of the variance, or
    ``settled_sum_unexplained`` where the surrogate has settled (the noise of a reduced target, amplified where the factor divided out is small,
    may leave more than 0.1 %). A few terms chosen among hundreds fit no noise that a
    polynomial of dozens of columns does not fit better; a law's few terms fit as well as it."""
    k = len(set(cols))
    level, settled = floor
    return (k <= tuning.noisy_sum_terms
            and share <= (tuning.settled_sum_unexplained if settled else tuning.noisy_sum_unexplained)
            and share * (n - 1) / max(n - k - 1, 1) <= tuning.noise_floor_slack * level)


def unexplained(T: np.ndarray, y: np.ndarray) -> float:
    """The share of the variance of (centred) y that least squares on T (and an intercept) leaves."""
    A = np.column_stack([np.ones(y.size), T])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return float(np.sum((y - A @ coef) ** 2) / max(float(np.sum((y - y.mean()) ** 2)), 1e-300))
