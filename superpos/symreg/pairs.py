"""Pairs of inputs a law reads through one combination: x_i - x_j, x_i + x_j, x_i x_j or
x_i / x_j, found by comparing surrogates (the symmetries of Udrescu & Tegmark 2020,
tested by regression instead of a fitted network).

The gradient test of :func:`~superpos.symreg.translations.translations` needs a cubic that
describes y; over wide ranges one does not (cos(x3 - x4) on [1, 5]^2: the cubic explains 82 %
and its gradients miss the symmetry). Here y is fitted by the richest polynomial the points
allow in the inputs as they are, and in each reduced set where one pair is replaced by one of
its combinations: a law of x3 - x4 is described better by a polynomial in (x1, x2, x3 - x4) of
degree 6 than by one in (x1, x2, x3, x4) of degree 4, and better than by any other
combination of those inputs. A pair is taken where its reduced fit leaves at most
``pair_gain`` of what the full fit leaves unexplained and of what every other combination
that shares an input with it leaves (adjusted R^2, which charges each fit its columns), and
the fit explains ``pair_explained`` of the variance. The test abstains below
``pair_points_per_input`` points per input. Numpy only; one least-squares fit per
combination.
"""
from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from math import comb

import numpy as np

from .tuning import TUNING, Tuning

__all__ = ["PairCombination", "combined_pair"]

OPERATIONS = ("-", "+", "*", "/")
"""The combinations tested: difference, sum, product, ratio."""


class PairCombination(tuple):
    """(i, j, op): inputs i < j (0-based) read only through x_i op x_j, op one of
    :data:`OPERATIONS`."""

    __slots__ = ()

    def __new__(cls, i: int, j: int, op: str):
        return super().__new__(cls, (int(i), int(j), op))

    def values(self, X: np.ndarray) -> np.ndarray:
        """x_i op x_j at the rows of X."""
        a, b = X[:, self[0]], X[:, self[1]]
        with np.errstate(all="ignore"):
            return {"-": a - b, "+": a + b, "*": a * b, "/": a / b}[self[2]]


def _unexplained(W: np.ndarray, y: np.ndarray, max_columns: int, max_degree: int) -> float:
    """1 - adjusted R^2 of the richest polynomial in the standardised columns of W with at most
    ``max_columns`` columns (intercept included) and degree ``max_degree`` (one input and 200
    points would allow far more columns); inf where W does not allow one."""
    n, m = W.shape
    sd = W.std(axis=0)
    if not np.all(np.isfinite(W)) or np.any(sd == 0):
        return np.inf
    Z = (W - W.mean(axis=0)) / sd
    # a polynomial of degree d in m inputs has comb(m + d, d) columns, the intercept included
    degree = max((d for d in range(1, max_degree + 1) if comb(m + d, d) <= max_columns), default=0)
    if degree == 0:
        return np.inf
    terms = [idx for d in range(1, degree + 1) for idx in combinations_with_replacement(range(m), d)]
    A = np.column_stack([np.ones(n)] + [np.prod(Z[:, list(idx)], axis=1) for idx in terms])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    sse = float(np.sum((y - A @ coef) ** 2))
    sst = float(np.sum((y - y.mean()) ** 2))
    p = A.shape[1]
    if not np.isfinite(sse) or n <= p or sst <= 0:
        return np.inf
    return (sse / (n - p)) / (sst / (n - 1))


def combined_pair(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> PairCombination | None:
    """The pair of inputs y reads only through one combination (see the module docstring), or
    None where no pair passes, the points are too few or y is constant or not finite. Ratios
    only where x_j keeps one sign."""
    n, m = X.shape
    if m < 2 or n < tuning.pair_points_per_input * m or not np.all(np.isfinite(y)) or np.ptp(y) == 0:
        return None
    cap, degree = n // 2, tuning.pair_max_degree
    full = _unexplained(X, y, cap, degree)
    if not np.isfinite(full):
        return None
    scores: dict[PairCombination, float] = {}
    for i, j in combinations(range(m), 2):
        rest = [k for k in range(m) if k not in (i, j)]
        for op in OPERATIONS:
            if op == "/" and not (np.all(X[:, j] > 0) or np.all(X[:, j] < 0)):
                continue
            pair = PairCombination(i, j, op)
            scores[pair] = _unexplained(np.column_stack([X[:, rest], pair.values(X)]), y, cap, degree)
    best = min(scores, key=lambda p: scores[p], default=None)
    if best is None or not (np.isfinite(scores[best]) and scores[best] <= 1.0 - tuning.pair_explained):
        return None
    rivals = [s for p, s in scores.items() if p != best and {p[0], p[1]} & {best[0], best[1]}]
    if scores[best] > tuning.pair_gain * min([full] + rivals):
        return None
    return best
