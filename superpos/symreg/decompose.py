"""Reductions: a law of many inputs as a function of a few (monomial factors, dimensionless
groups, differences and sums), for the structure model of 1-3 inputs.

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
values). This is the multiplicative separability of Udrescu & Tegmark (2020) tested on
the data by a regression instead of on a fitted surrogate.

Other laws depend on several inputs only through one dimensionless group, a monomial z =
prod x^b (x1 exp(-x2 x3 / (x4 x5)), x1 / sqrt(1 - x2^2 / x3^2)): :func:`single_index` finds b
from the rank-one Hessian of log|y| in log|x|, and where log|y| follows no such fit (sin(2 pi x1
x2 / x3)^2 has zeros), :func:`smooth_index` finds a small group by sorting y on it. Where y is
a function of such a group and of one more input taken as it is (Compton scattering: m c^2 / E
beside theta), :func:`index_beside` finds both from the same Hessian with that input's row and
column left out.

Others read a pair of inputs only through their difference or their sum (cos(x3 - x4), (x2 - x1)^2 +
(x4 - x3)^2): :func:`~superpos.symreg.translations.translations` finds such pairs from the
gradients of a polynomial surrogate, the translational symmetry of Udrescu & Tegmark.

Any of these gives the structure model a data set it knows, (z, y / prod w^a) with at most 3
inputs z (a :class:`Reduction`), and :meth:`Reduction.compose` writes each g it finds back as a
tree over every input; :func:`reductions` picks those worth a search. Each is proposed only
where its fit describes the data (``reduction_explained``; the surrogate of the translations): on noisy tables more
candidates only add chances for a spurious winner.

Modules: :mod:`~superpos.symreg.reduction` (the :class:`Reduction` and the shared log fits),
:mod:`~superpos.symreg.groups` (single index, a group beside one input, smooth index),
:mod:`~superpos.symreg.translations`; here the monomial splits and :func:`reductions`.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np

from .groups import index_beside, single_index, smooth_in, smooth_index
from .pairs import combined_pair
from .reduction import Reduction, _audible, _cubic, _explains, _logs, _rounded, _trimmed_lstsq
from .translations import translations
from .tuning import TUNING, Tuning

__all__ = ["Reduction", "monomial_splits", "single_index", "index_beside", "smooth_index", "smooth_in",
           "translations", "reductions"]

def _signed_fit(X: np.ndarray, Z: np.ndarray, inner: tuple[int, ...], r: np.ndarray, share: float) -> float | None:
    """BIC of r = y / prod x_O^a fitted in its own units by a cubic in the standardised x_S,
    1/x_j (inputs of one sign) and log|x_j| (no zero) of S; None unless it explains ``share``
    (``decompose_signed_explained``: clean laws only) of the variance of r."""
    n = X.shape[0]
    cols = [np.ones(n)] + _cubic(Z[:, list(inner)])
    with np.errstate(all="ignore"):
        cols += [1.0 / X[:, j] for j in inner if np.all(X[:, j] > 0) or np.all(X[:, j] < 0)]
        cols += [np.log(np.abs(X[:, j])) for j in inner if np.all(X[:, j] != 0)]
    B = np.column_stack(cols)
    if not (np.all(np.isfinite(B)) and np.all(np.isfinite(r)) and np.ptp(r) > 0):
        return None
    rs = (r - r.mean()) / np.std(r)
    coef, *_ = np.linalg.lstsq(B, rs, rcond=None)
    sse = float(np.sum((rs - B @ coef) ** 2))
    if not (np.isfinite(sse) and _explains(sse, float(n), n, B.shape[1], share)):
        return None
    return n * np.log(max(sse, 1e-300) / n) + B.shape[1] * np.log(n)


def monomial_splits(X: np.ndarray, y: np.ndarray, max_inner: int = 3, limit: int = 2,
                    tuning: Tuning = TUNING) -> list[Reduction]:
    """The ``limit`` best splits of y into a monomial of some inputs times a function of at
    most ``max_inner`` others, best (lowest BIC) first, on the points where |y| is not quiet
    (:func:`_audible`); none with fewer than 20 points. An input with a zero can only be
    inner. Splits with no outer input, or whose rounded exponents are all 0, are left out (the
    power law and the plain search cover them).

    A g that changes sign (sin x4, log(x5 / x4), 1/x4 - 1/x3) leaves log|y| with a tail of
    outliers at its zeros that fails the test on log|y|; where no split passes it, the
    exponents of the trimmed log fit are kept and the split is tested on y / prod x_O^a in
    its own units instead (:func:`_signed_fit`, a stricter ``decompose_signed_explained``), and
    those splits are ranked by that fit's BIC. Exponents beyond ``max_law_exponent`` are no law's."""
    X, y = _audible(X, y, tuning)
    n, m = X.shape
    found_logs = _logs(X, y)
    if found_logs is None or m <= 1:
        return []
    ly, logs = found_logs
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    must_inner = [j for j in range(m) if j not in logs]
    if len(must_inner) > max_inner:
        return []
    found, signed = [], []
    for size in range(max(1, len(must_inner)), min(max_inner, m - 1) + 1):
        for inner in combinations(range(m), size):
            if any(j not in inner for j in must_inner):
                continue
            outer = [j for j in range(m) if j not in inner and j in logs]
            A = np.column_stack([np.ones(n)] + [logs[j] for j in outer] + _cubic(Z[:, list(inner)])
                                + [logs[j] for j in inner if j in logs])
            fitted = _trimmed_lstsq(A, ly, tuning)
            if fitted is None:
                continue
            coef, keep, sse = fitted
            factor = np.zeros(m)
            factor[outer] = [_rounded(a, X[:, j]) for j, a in zip(outer, coef[1:1 + len(outer)])]
            if not factor.any() or np.max(np.abs(factor)) > tuning.max_law_exponent:
                continue
            unit = tuple(tuple(float(j == i) for j in range(m)) for i in inner)
            k = int(keep.sum())
            if _explains(sse, float(np.sum((ly[keep] - ly[keep].mean()) ** 2)), k, A.shape[1], tuning.reduction_explained):
                bic = k * np.log(max(sse, 1e-300) / k) + A.shape[1] * np.log(k)
                found.append(Reduction(unit, tuple(float(a) for a in factor), float(bic)))
            elif not found:
                split = Reduction(unit, tuple(float(a) for a in factor), 0.0)
                with np.errstate(all="ignore"):
                    bic = _signed_fit(X, Z, inner, y / split.factor(X), tuning.decompose_signed_explained)
                if bic is not None:
                    signed.append(replace(split, score=float(bic)))
    found.sort(key=lambda r: (r.score, len(r.inner)))
    out, seen = [], set()
    for r in found or sorted(signed, key=lambda r: (r.score, len(r.inner))):
        if (r.inner, r.factor_exponents) not in seen:
            seen.add((r.inner, r.factor_exponents))
            out.append(r)
    return out[:limit]


def reductions(X: np.ndarray, y: np.ndarray, max_inner: int = 3, limit: int = 3,
               tuning: Tuning = TUNING) -> list[Reduction]:
    """The reductions worth a search of the structure model, at most ``limit``, in this
    order: the best monomial split, a group beside one input (else the single-index
    reduction, else the smooth index), the data in the differences (or sums) of the inputs
    that enter only through them (:func:`translations`; as they are when few enough, else
    their best monomial split), the second monomial split; where none of those is found, the
    pair of inputs read through one combination (:func:`_paired`; each reduction costs a search
    of the model, and the least specific test is spent only where nothing else reduces the data)."""
    splits = monomial_splits(X, y, max_inner, limit=2, tuning=tuning)
    out = splits[:1] + (index_beside(X, y, tuning) or single_index(X, y, tuning) or smooth_index(X, y, tuning))
    P = translations(X, y, tuning)
    if P is not None:
        out += _in_linear(X, y, P, max_inner, tuning)
    out += splits[1:]
    return (out or _paired(X, y, max_inner, tuning))[:limit]


def _in_linear(X: np.ndarray, y: np.ndarray, P: tuple, max_inner: int, tuning: Tuning) -> list[Reduction]:
    """The data in w = P x: w itself where few enough, else its best monomial split."""
    W = X @ np.array(P).T
    if W.shape[1] <= max_inner:
        return [Reduction(tuple(tuple(float(k == j) for k in range(W.shape[1])) for j in range(W.shape[1])),
                          (0.0,) * W.shape[1], 0.0, P)]
    return [replace(r, linear=P) for r in monomial_splits(W, y, max_inner, limit=1, tuning=tuning)]


def _paired(X: np.ndarray, y: np.ndarray, max_inner: int, tuning: Tuning) -> list[Reduction]:
    """The data with the pair of inputs y reads through one combination
    (:func:`~superpos.symreg.pairs.combined_pair`) replaced by it: a difference or sum as a
    translation's linear map, a product or ratio as a monomial group beside the other inputs
    (their best monomial split where they are too many, its exponents over w mapped back to x)."""
    pair = combined_pair(X, y, tuning)
    if pair is None:
        return []
    i, j, op = pair
    m = X.shape[1]
    rest = [k for k in range(m) if k not in (i, j)]
    units = [tuple(float(k == r) for k in range(m)) for r in rest]
    if op in "+-":
        row = tuple(float(k == i) + (1.0 if op == "+" else -1.0) * float(k == j) for k in range(m))
        return _in_linear(X, y, (row,) + tuple(units), max_inner, tuning)
    row = tuple(float(k == i) + (1.0 if op == "*" else -1.0) * float(k == j) for k in range(m))
    M = np.array((row,) + tuple(units))
    if M.shape[0] <= max_inner:
        return [Reduction(tuple(tuple(float(a) for a in r) for r in M), (0.0,) * m, 0.0)]
    with np.errstate(all="ignore"):
        W = np.column_stack([pair.values(X)] + [X[:, r] for r in rest])
    return [Reduction(tuple(tuple(float(a) + 0.0 for a in np.array(e) @ M) for e in r.inner),
                      tuple(float(a) + 0.0 for a in np.array(r.factor_exponents) @ M), r.score)
            for r in monomial_splits(W, y, max_inner, limit=1, tuning=tuning)]
