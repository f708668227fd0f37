"""Sums of monomials with integer exponents: y = c_0 + sum c_k prod x_j^e_jk over many inputs,
-(x2 x6^4 / x3^2 + x4^2 x6^2 (1 - 2 x5)) / (8 pi x1), whose terms the term library's products
of two inputs (:mod:`.terms`) do not hold and grown products reach only one paying step at a
time. The same forward stepwise selection and price as the library's sums, over a library of
tens of thousands of monomials."""
from __future__ import annotations

from itertools import combinations, product

import numpy as np
import sympy

from ..core.basis import Basis
from .noise_floor import unexplained as _unexplained
from .terms import _backward, _stepwise, sum_skeletons
from .tuning import TUNING, Tuning

__all__ = ["monomial_library", "monomial_sum_trees"]


def monomial_library(X: np.ndarray, tuning: Tuning = TUNING) -> np.ndarray:
    """The exponents (terms, m) of the monomials prod x_j^e_j with e_j in
    ``monomial_exponents`` (not 0; below 0 only for an input of one sign) over at most 4
    inputs, or as many as keep the library within ``monomial_columns``."""
    m = X.shape[1]
    lo, hi = tuning.monomial_exponents
    choices = [[e for e in range(lo if np.all(X[:, j] > 0) or np.all(X[:, j] < 0) else 1, hi + 1) if e]
               for j in range(m)]
    rows: list[np.ndarray] = []
    for k in range(1, min(4, m) + 1):
        block = []
        for S in combinations(range(m), k):
            for es in product(*(choices[j] for j in S)):
                e = np.zeros(m, dtype=np.int64)
                e[list(S)] = es
                block.append(e)
        if len(rows) + len(block) > tuning.monomial_columns:
            break
        rows += block
    return np.array(rows, dtype=np.int64).reshape(len(rows), m)


def monomial_sum_trees(X: np.ndarray, y: np.ndarray, basis: Basis, max_terms: int = 4,
                       tuning: Tuning = TUNING) -> list[np.ndarray]:
    """Skeletons c_0 + sum c_k m_k(x) of at most ``max_terms`` monomials with integer exponents
    (:func:`monomial_library`, tens of thousands of them): the forward stepwise path over the
    library (its price grows with the library's size, :func:`_price`) and its pruning by backward
    elimination (from each of the ``monomial_beam`` first terms most correlated with y), where
    one of them explains ``sum_explained`` of the variance. Laws that are short
    sums of monomials over many inputs, -(x2 x6^4 / x3^2 + x4^2 x6^2 (1 - 2 x5)) / (8 pi x1),
    whose terms the library's products of two inputs and the grown products (one factor a step,
    each step paying its price) do not reach. For 3 inputs or more (the library's polynomials
    cover fewer), on at most ``monomial_rows`` points (evenly spaced)."""
    n, m = X.shape
    if m < 3 or n < 20 or not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))) or np.ptp(y) == 0:
        return []
    rows = np.unique(np.linspace(0, n - 1, min(n, tuning.monomial_rows)).astype(np.int64))
    Xr, yr = X[rows], y[rows]
    E = monomial_library(Xr, tuning)
    if not E.size:
        return []
    with np.errstate(all="ignore"):  # |x|^e from logs, the sign from the parity of the negative factors
        T = np.exp(np.log(np.abs(Xr)) @ E.T) * (1 - 2 * (((Xr < 0).astype(np.int64) @ (E % 2).T) % 2))
    scale = np.std(T, axis=0)
    ok = np.isfinite(scale) & (scale > 0) & np.all(np.isfinite(T), axis=0)
    E, T, scale = E[ok], T[:, ok], scale[ok]
    if not E.size:
        return []
    Ts = (T - T.mean(axis=0)) / scale
    ys = (yr - yr.mean()) / np.std(yr)
    steps = min(max_terms, yr.size // 3)
    picks: list[list[int]] = []
    # a beam over the first term: among thousands of correlated monomials the greedy first
    # pick is often a look-alike of the law's terms that the later ones cannot undo
    for first in np.argsort(-np.abs(Ts.T @ ys), kind="stable")[:tuning.monomial_beam]:
        q = Ts[:, first] / np.linalg.norm(Ts[:, first])
        path = [[int(first)]] + [[int(first)] + cols for cols in
                                 _stepwise(Ts - np.outer(q, q @ Ts), ys - q * (q @ ys), steps - 1)]
        kept = _backward(Ts[:, path[-1]], ys)
        picks += path + ([[path[-1][c] for c in kept]] if kept else [])
    if not any(_unexplained(Ts[:, cols], ys) <= 1.0 - tuning.sum_explained for cols in picks):
        return []
    xs = basis.variables
    return sum_skeletons([[sympy.Mul(*[xs[j] ** int(e) for j, e in enumerate(E[c]) if e]) for c in sorted(cols)]
                          for cols in picks], basis, max_terms)
