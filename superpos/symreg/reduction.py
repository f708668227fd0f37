"""The reduced data set of a reduction (:class:`Reduction`: a monomial factor times a function
of a few monomial groups of the inputs, or of their differences and sums) and the log fits the
tests for reductions share: quiet points left out, log|y| and log|x|, trimmed least squares,
exponents rounded to halves (:mod:`~superpos.symreg.decompose` finds the reductions)."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import rewritten
from .tuning import Tuning

__all__ = ["Reduction"]


def _power(x: np.ndarray, a: float) -> np.ndarray:
    """x^a, through |x| for a fractional a (only inputs of one sign get those)."""
    return x**a if a == int(a) else np.abs(x) ** a


def _monomial(v: list, exponents) -> sympy.Expr:
    return sympy.Mul(*[v[j] ** sympy.Rational(int(round(2 * a)), 2) for j, a in enumerate(exponents) if a])


@dataclass(frozen=True)
class Reduction:
    """y = prod_j w_j^factor_j * g(z_1..z_k) with z_i = prod_j w_j^inner_ij, where w = x, or
    w = P x for a ``linear`` map P whose rows are differences x_i - x_j, sums x_i + x_j and single inputs
    (:func:`translations`): a data set of k <= 3 inputs for the structure model. ``score``:
    the BIC of the log fit that proposed it."""

    inner: tuple[tuple[float, ...], ...]
    factor_exponents: tuple[float, ...]
    score: float
    linear: tuple[tuple[float, ...], ...] | None = None

    def base(self, X: np.ndarray) -> np.ndarray:
        """w at the rows of X."""
        return X if self.linear is None else X @ np.array(self.linear).T

    def inputs(self, X: np.ndarray) -> np.ndarray:
        """z at the rows of X, (n, k)."""
        W = self.base(X)
        with np.errstate(all="ignore"):
            return np.column_stack([np.prod([_power(W[:, j], a) for j, a in enumerate(row) if a], axis=0)
                                    for row in self.inner])

    def factor(self, X: np.ndarray) -> np.ndarray:
        """prod w_j^factor_j at the rows of X."""
        W = self.base(X)
        out = np.ones(X.shape[0])
        with np.errstate(all="ignore"):
            for j, a in enumerate(self.factor_exponents):
                if a:
                    out = out * _power(W[:, j], a)
        return out

    def compose(self, tree, constants, model_basis: Basis, basis: Basis):
        """The tree and constants of prod w^factor * g(z(x)) over ``basis`` for g (``tree``
        with ``constants`` over ``model_basis``, whose x_k stands for z_k); None when the
        result has no tree over ``basis``."""
        v = basis.variables
        if self.linear is not None:
            v = [sympy.Add(*[int(c) * v[j] for j, c in enumerate(row) if c]) for row in self.linear]
        z = {model_basis.variables[k]: _monomial(v, row) for k, row in enumerate(self.inner)}
        factor = _monomial(v, self.factor_exponents)
        return rewritten(tree, model_basis, constants, lambda e: e.xreplace(z) * factor, basis)


def _cubic(Z: np.ndarray) -> list[np.ndarray]:
    """Monomials of degree 1-3 in the columns of Z."""
    return [np.prod(Z[:, list(idx)], axis=1) for d in (1, 2, 3)
            for idx in combinations_with_replacement(range(Z.shape[1]), d)]


def _trimmed_lstsq(A: np.ndarray, ly: np.ndarray, tuning: Tuning) -> tuple[np.ndarray, np.ndarray, float] | None:
    """Least squares of ly on A, refitted without the points above the ``reduction_trimmed`` quantile
    of the residuals (near a pole or a zero of g, log|y| has outliers): (coefficients, the
    points kept, SSE on them); None if not finite."""
    with np.errstate(all="ignore"):
        coef, *_ = np.linalg.lstsq(A, ly, rcond=None)
        res = np.abs(ly - A @ coef)
        if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(res))):
            return None
        keep = res <= np.quantile(res, tuning.reduction_trimmed)
        coef, *_ = np.linalg.lstsq(A[keep], ly[keep], rcond=None)
        sse = float(np.sum((ly[keep] - A[keep] @ coef) ** 2))
    if not (np.all(np.isfinite(coef)) and np.isfinite(sse)):
        return None
    return coef, keep, sse


def _explains(sse: float, sst: float, k: int, p: int, share: float) -> bool:
    """Whether a fit of p columns to k points explains ``share`` of the variance (adjusted R^2)."""
    return k > p and sse / (k - p) <= (1.0 - share) * sst / (k - 1)


def _trimmed_fit(A: np.ndarray, ly: np.ndarray, tuning: Tuning) -> tuple[np.ndarray, float] | None:
    """:func:`_trimmed_lstsq` as (coefficients, BIC); None if not finite or if the fit explains
    less than ``reduction_explained`` of the variance of ly: a reduction is proposed only for
    laws measured cleanly, not noisy tables, where more candidates would only add chances for a
    spurious winner."""
    fitted = _trimmed_lstsq(A, ly, tuning)
    if fitted is None:
        return None
    coef, keep, sse = fitted
    k = int(keep.sum())
    if not _explains(sse, float(np.sum((ly[keep] - ly[keep].mean()) ** 2)), k, A.shape[1], tuning.reduction_explained):
        return None  # log|y| is not this shape (adjusted R^2): noise or another law, not a reduction
    return coef, k * np.log(max(sse, 1e-300) / k) + A.shape[1] * np.log(k)


def _rounded(a: float, x: np.ndarray) -> float:
    """An exponent of input x rounded to a half (to an integer when x takes negative values)."""
    step = 0.5 if np.all(x > 0) else 1.0
    return float(np.round(a / step) * step)


def _both_signs(X: np.ndarray) -> np.ndarray:
    """Which inputs take both signs."""
    return (X.min(axis=0) < 0) & (X.max(axis=0) > 0)


def _audible(X: np.ndarray, y: np.ndarray, tuning: Tuning) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) without the rows where |y| is under ``reduction_quiet`` of its root mean square
    (additive noise of 1 % of it puts log|y| there off by 0.2 or more and can flip the sign of a
    value near 0, while the louder points pin the exponents as well); all
    rows where fewer than 20 would be left, y is not finite, or an input takes both signs (its
    zero is where y is quiet, and the fit of the louder points nearby, still noisy, passed on
    a curvature that was the noise's: y = x1 at 1 % noise became x1 g(x1 x2^2))."""
    with np.errstate(all="ignore"):
        keep = np.abs(y) >= tuning.reduction_quiet * np.sqrt(np.mean(y * y))
    if not np.all(np.isfinite(y)) or keep.sum() < 20 or np.any(_both_signs(X)):
        return X, y
    return X[keep], y[keep]


def _logs(X: np.ndarray, y: np.ndarray):
    """(log|y|, {column: log|x|} of the nonconstant inputs without a zero); None when y has a zero."""
    if X.shape[0] < 20 or not np.all(np.isfinite(y)) or np.any(y == 0):
        return None
    with np.errstate(all="ignore"):
        return np.log(np.abs(y)), {j: np.log(np.abs(X[:, j])) for j in range(X.shape[1])
                                   if np.all(X[:, j] != 0) and np.ptp(X[:, j]) > 0}
