"""Translations: pairs of inputs a law reads only through their difference or their sum (the
translational symmetry of Udrescu & Tegmark 2020: y(x_i + a, x_j + a) = y, or
y(x_i + a, x_j - a) = y), found from the gradients of a polynomial surrogate of y;
:func:`~superpos.symreg.decompose.reductions` turns them into a data set of the differences
and sums for the structure model."""
from __future__ import annotations

from itertools import combinations, combinations_with_replacement

import numpy as np

from .tuning import TUNING, Tuning

__all__ = ["translations"]


def _exponents(m: int, d: int) -> list[tuple[int, ...]]:
    """Exponent vectors of the monomials of degree d in m variables."""
    out = []
    for idx in combinations_with_replacement(range(m), d):
        e = [0] * m
        for i in idx:
            e[i] += 1
        out.append(tuple(e))
    return out


def _mismatch(D: np.ndarray, i: int, j: int, s: float) -> float:
    """sum (D_i + s D_j)^2 / sum (D_i^2 + D_j^2) over the points (inf where both vanish): near 0
    where the columns i and j of D cancel (s = 1) or agree (s = -1)."""
    den = float(np.sum(D[:, i] ** 2 + D[:, j] ** 2))
    return float(np.sum((D[:, i] + s * D[:, j]) ** 2)) / den if den > 0 else np.inf


def translations(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> tuple[tuple[float, ...], ...] | None:
    """Translational symmetry (Udrescu & Tegmark 2020): the rows of P (w = P x) that replace each pair of
    inputs the law reads only through their difference (y(x_i + a, x_j + a) = y; e.g. cos(x3 -
    x4), (x2 - x1)^2 + (x4 - x3)^2) by x_i - x_j, or only through their sum (sin(x1 + x2)) by
    x_i + x_j, and keep the other inputs; pairs taken greedily, the most symmetric first. The
    test: the gradients of a least-squares surrogate of y at the points (cubic where the points
    allow, else quadratic, explaining ``translation_explained`` of the variance: a kink such as
    |x_i - x_j| keeps a cubic below 0.98): a pair enters as x_i - x_j when
    sum (dy/dx_i + dy/dx_j)^2 over the points is below ``translation_symmetry`` of
    sum (dy/dx_i)^2 + (dy/dx_j)^2, as x_i + x_j when sum (dy/dx_i - dy/dx_j)^2 is; in either
    case only where the same share for the scaled gradients x dy/dx (the test of x_i x_j and
    x_i / x_j) is larger: over inputs of a narrow range far from zero a product or ratio nearly
    passes the test of a sum or difference. None when no pair passes."""
    n, m = X.shape
    if m < 2 or not np.all(np.isfinite(y)) or np.ptp(y) == 0:
        return None
    sd = X.std(axis=0)
    if np.any(sd == 0):
        return None
    Z = (X - X.mean(axis=0)) / sd
    powers = None
    for degree in (3, 2):  # the richest surrogate the points allow
        powers = [e for d in range(degree + 1) for e in _exponents(m, d)]
        if len(powers) < n // 2:
            break
    else:
        return None
    A = np.column_stack([np.prod(Z ** np.array(e), axis=1) for e in powers])
    ys = (y - y.mean()) / np.std(y)
    coef, *_ = np.linalg.lstsq(A, ys, rcond=None)
    if not (np.all(np.isfinite(coef)) and n > A.shape[1]
            and float(np.sum((ys - A @ coef) ** 2)) / (n - A.shape[1]) <= (1.0 - tuning.translation_explained) * n / (n - 1)):
        return None  # the surrogate does not describe y (adjusted R^2): its gradients say nothing
    G = np.zeros((n, m))  # dy/dx at each point, in the data's units
    for c, e in zip(coef, powers):
        for i in range(m):
            if e[i]:
                d = list(e)
                d[i] -= 1
                G[:, i] += c * e[i] * np.prod(Z ** np.array(d), axis=1)
    G /= sd
    H = G * X  # x dy/dx: a law of x_i x_j or x_i / x_j has x_i dy/dx_i = +-x_j dy/dx_j
    scores = []
    for i, j in combinations(range(m), 2):
        scaled = min(_mismatch(H, i, j, 1.0), _mismatch(H, i, j, -1.0))
        for sign in (-1.0, 1.0):  # the row x_i - x_j (dy/dx_i = -dy/dx_j), x_i + x_j (they agree)
            score = _mismatch(G, i, j, -sign)
            if score < scaled:  # over a narrow range x1 x3 nearly passes for x1 + x3: a product's test wins
                scores.append((score, i, j, sign))
    used: set[int] = set()
    rows = []
    for score, i, j, sign in sorted(scores):
        if score > tuning.translation_symmetry:
            break
        if i in used or j in used:
            continue
        used |= {i, j}
        rows.append(tuple(float(k == i) + sign * float(k == j) for k in range(m)))
    if not rows:
        return None
    return tuple(rows) + tuple(tuple(float(k == j) for k in range(m)) for j in range(m) if j not in used)
