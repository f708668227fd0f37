"""Monomial factors: a law of many inputs as a power law times a function of a few.

Most laws of physics with many inputs are a product prod_{i in O} x_i^a_i * g(x_S) of a
monomial in some inputs O and a function g of at most three others S (q E / (m (w0^2 - w^2)),
n k T log(V2 / V1)). Taking logarithms separates them additively,

    log|y| = a_0 + sum_{i in O} a_i log|x_i| + log|g(x_S)|,

which :func:`monomial_splits` tests for every S of at most ``max_inner`` inputs: log|g| is
stood in for by a cubic polynomial in the standardised x_S and the log|x_j| of S (g may hold a
power of its own inputs), the whole fitted by least squares and refitted without the tenth of
the points it fits worst (near a pole of g, log|y| has outliers),
and the splits ranked by BIC (n log(SSE / n) + p log n; the one with fewer free columns wins
a near tie). The exponents are rounded to halves (to integers for an input with negative
values). The structure model then searches g on (x_S, y / prod x_i^a_i), a data set it knows,
and :func:`times_monomial` writes each g found back as a tree over every input. This is AI
Feynman's multiplicative separability (Udrescu & Tegmark 2020) tested on the data by a
regression instead of on a fitted surrogate.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import from_sympy, to_sympy
from ..exceptions import NotRepresentable

__all__ = ["Split", "monomial_splits", "times_monomial"]

_MAX_EXPONENT = 6.0
"""An exponent beyond this is no law's: the split is not offered."""


_TRIMMED = 0.9
"""Each log fit is redone on the points whose residual is below this quantile."""


@dataclass(frozen=True)
class Split:
    """y = prod_{i in outer} x_i^exponents_i * g(x_inner): columns 0-based, ``bic`` of the log fit."""

    inner: tuple[int, ...]
    outer: tuple[int, ...]
    exponents: tuple[float, ...]
    bic: float

    def factor(self, X: np.ndarray) -> np.ndarray:
        """prod x_i^a_i at the rows of X."""
        out = np.ones(X.shape[0])
        with np.errstate(all="ignore"):
            for j, a in zip(self.outer, self.exponents):
                out = out * (X[:, j] ** a if a == int(a) else np.abs(X[:, j]) ** a)
        return out


def _cubic(Z: np.ndarray) -> list[np.ndarray]:
    """Monomials of degree 1-3 in the columns of Z."""
    return [np.prod(Z[:, list(idx)], axis=1) for d in (1, 2, 3)
            for idx in combinations_with_replacement(range(Z.shape[1]), d)]


def monomial_splits(X: np.ndarray, y: np.ndarray, max_inner: int = 3, limit: int = 2) -> list[Split]:
    """The ``limit`` best splits of y into a monomial of some inputs times a function of at
    most ``max_inner`` others, best (lowest BIC) first; none when y has a zero or fewer than
    20 points. An input with a zero can only be inner. Splits with no outer input, or whose
    rounded exponents are all 0, are left out (the power law and the plain search cover them)."""
    n, m = X.shape
    if n < 20 or m <= 1 or not np.all(np.isfinite(y)) or np.any(y == 0):
        return []
    with np.errstate(all="ignore"):
        ly = np.log(np.abs(y))
        logs = {j: np.log(np.abs(X[:, j])) for j in range(m) if np.all(X[:, j] != 0) and np.ptp(X[:, j]) > 0}
        sd = X.std(axis=0)
        Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    must_inner = [j for j in range(m) if j not in logs]
    if len(must_inner) > max_inner:
        return []
    found = []
    for size in range(max(1, len(must_inner)), min(max_inner, m - 1) + 1):
        for inner in combinations(range(m), size):
            if any(j not in inner for j in must_inner):
                continue
            outer = [j for j in range(m) if j not in inner and j in logs]
            A = np.column_stack([np.ones(n)] + [logs[j] for j in outer] + _cubic(Z[:, list(inner)])
                                + [logs[j] for j in inner if j in logs])
            coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
            res = np.abs(ly - A @ coef)
            if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(res))):
                continue
            keep = res <= np.quantile(res, _TRIMMED)  # refitted without the worst points: a pole of g
            coef, *_ = np.linalg.lstsq(A[keep], ly[keep], rcond=None)  # inside the data is no outlier of log|y|
            sse = float(np.sum((ly[keep] - A[keep] @ coef) ** 2))
            if not (np.all(np.isfinite(coef)) and np.isfinite(sse)):
                continue
            bic = keep.sum() * np.log(max(sse, 1e-300) / keep.sum()) + A.shape[1] * np.log(keep.sum())
            exps = []
            for j, a in zip(outer, coef[1:1 + len(outer)]):
                step = 0.5 if np.all(X[:, j] > 0) else 1.0
                exps.append(float(np.round(a / step) * step))
            kept = [(j, a) for j, a in zip(outer, exps) if a != 0]
            if not kept or max(abs(a) for _, a in kept) > _MAX_EXPONENT:
                continue
            found.append(Split(tuple(inner), tuple(j for j, _ in kept), tuple(a for _, a in kept), float(bic)))
    found.sort(key=lambda s: (s.bic, len(s.inner)))
    out, seen = [], set()
    for s in found:
        key = (s.inner, s.outer, s.exponents)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out[:limit]


def times_monomial(tree, constants, basis: Basis, split: Split):
    """The tree and constants of prod x_i^a_i * g over ``basis`` for g (``tree`` with
    ``constants``, already over ``basis``); None when the product has no tree over it."""
    expr = to_sympy(tree, basis, constants)
    for j, a in zip(split.outer, split.exponents):
        expr = expr * basis.variables[j] ** sympy.Rational(int(round(2 * a)), 2)
    try:
        raw, consts = from_sympy(expr, basis)
    except (NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None
    return raw, np.array([float(c) for c in consts], dtype=np.float64)
