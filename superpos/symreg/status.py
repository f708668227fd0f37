"""The honest status of a formula: ``exact`` (to the data's precision), ``law`` (not exact, but
its residuals show no structure left) or ``approximation`` (otherwise).

A law holds beyond the points that fixed its constants: refitted on the interior of the
sample, it predicts the outermost points as well (:mod:`~superpos.symreg.edges`; an expansion
that fits a smooth curve to round-off does not). A law's residuals are noise: no input
explains them (the F-test of a cubic in each input against a constant,
:func:`~superpos.symreg.inputs.residual_dependence`, the ``left_out`` test, at 0.1 %), and
neither of two smooth fits of the residuals on all inputs predicts held-out residuals better
than their mean (one-sided, 0.1 % for them together): a global one (:func:`smooth_gain`:
Legendre polynomials of each input and products of pairs, least squares, 5-fold) and a local
one (:func:`neighbour_gains`: the mean residual of the nearest points, leave-one-out, among all
inputs, each pair of inputs and along each input). The local fit catches what a polynomial
cannot: the residuals of a polynomial soup are orthogonal to the polynomials, not to their
neighbours. Both levels are strict so that a law measured with noise is rarely called an
approximation by chance (several inputs, two tests). An approximation's residuals keep a trend
a smooth function finds: the curve it misses.
"""
from __future__ import annotations

from statistics import NormalDist

import numpy as np

from ..core.numeric import chi2_upper
from .edges import holds_at_edges
from .inputs import residual_dependence
from .tuning import TUNING, Tuning

__all__ = ["STATUSES", "formula_status", "structured", "relevant_inputs", "smooth_gain", "neighbour_gains",
           "neighbourhoods"]

STATUSES = ("exact", "law", "approximation")


def _features(X: np.ndarray) -> np.ndarray:
    """Legendre polynomials of each input scaled to [-1, 1] (degree 10 for one input, 6 for
    two, 4 for three, 3 beyond) and the products of pairs of inputs, with a constant column."""
    n, m = X.shape
    degree = {1: 10, 2: 6, 3: 4}.get(m, 3)
    lo, hi = X.min(axis=0), X.max(axis=0)
    U = np.where(hi > lo, 2.0 * (X - lo) / np.where(hi > lo, hi - lo, 1.0) - 1.0, 0.0)
    cols = [np.ones(n)]
    for j in range(m):
        cols += list(np.polynomial.legendre.legvander(U[:, j], degree)[:, 1:].T)
    cols += [U[:, i] * U[:, j] for i in range(m) for j in range(i + 1, m)]
    return np.column_stack(cols)


def smooth_gain(X: np.ndarray, r: np.ndarray, rng: np.random.Generator, folds: int = 5,
                tuning: Tuning = TUNING) -> float | None:
    """How many standard errors a smooth fit of the residuals ``r`` on the inputs beats their
    mean by in ``folds``-fold cross-validation (paired per-point squared errors); None when
    there are too few points for the test (fewer than ``smooth_points_per_feature`` a feature)."""
    A = _features(X)
    n, p = A.shape
    if n < tuning.smooth_points_per_feature * p or n < 2 * folds:
        return None
    scale = float(np.max(np.abs(r)))
    if not (np.isfinite(scale) and scale > 0):
        return 0.0
    r = r / scale
    fold = np.empty(n, dtype=np.int64)
    fold[rng.permutation(n)] = np.arange(n) % folds
    e_mean = np.empty(n)
    e_fit = np.empty(n)
    for f in range(folds):
        tr, te = fold != f, fold == f
        coef, *_ = np.linalg.lstsq(A[tr], r[tr], rcond=None)
        e_fit[te] = (r[te] - A[te] @ coef) ** 2
        e_mean[te] = (r[te] - r[tr].mean()) ** 2
    d = e_mean - e_fit
    se = float(np.std(d, ddof=1)) / np.sqrt(n)
    if not se > 0:
        return np.inf if d.mean() > 0 else 0.0
    return float(d.mean() / se)


def relevant_inputs(X: np.ndarray, t: np.ndarray, tuning: Tuning = TUNING) -> list[int]:
    """The inputs a smooth fit of ``t`` needs: input j is kept when dropping its columns from the
    global fit of :func:`smooth_gain` (its Legendre terms and its products with the others) raises
    the squared error by an F statistic above the ``structure_level`` (chi-square limit,
    Wilson-Hilferty). All inputs where the fit has fewer than ``smooth_points_per_feature`` points
    a feature, or none would be kept. Unlike a
    test of each input alone, it keeps x2 of f(x2 / x3) over x2 in [1, 2], x3 in [3, 20]."""
    n, m = X.shape
    A = _features(X)
    p = A.shape[1]
    if m < 2 or n < tuning.smooth_points_per_feature * p:
        return list(range(m))
    t = (t - t.mean()) / max(float(np.max(np.abs(t - t.mean()))), 1e-300)

    def sse(B: np.ndarray) -> float:
        coef, *_ = np.linalg.lstsq(B, t, rcond=None)
        return float(np.sum((t - B @ coef) ** 2))

    full = sse(A)
    keep = []
    for j in range(m):
        B = _features(np.delete(X, j, axis=1))
        d = p - B.shape[1]
        if (sse(B) - full) / d > chi2_upper(d, tuning.structure_level) / d * max(full, 1e-300) / (n - p):
            keep.append(j)
    return keep or list(range(m))


def _paired_gain(e: np.ndarray, local: np.ndarray) -> float:
    """Standard errors by which ``local`` beats the mean of the other points as predictions of
    ``e`` (paired per-point squared errors)."""
    others = (e.sum() - e) / (e.size - 1)
    gain = (e - others) ** 2 - (e - local) ** 2
    se = float(np.std(gain, ddof=1)) / np.sqrt(gain.size)
    if not se > 0:
        return np.inf if gain.mean() > 0 else 0.0
    return float(gain.mean() / se)


def neighbourhoods(X: np.ndarray, max_points: int = 400, tuning: Tuning = TUNING) -> tuple[np.ndarray, list[np.ndarray]]:
    """(rows used, per subspace the (rows, ``neighbours``) indices of each row's nearest
    other rows): at most ``max_points`` evenly spaced rows, inputs scaled to their ranges, the
    subspaces being all inputs and, with several inputs, each pair of inputs (3 or more) and
    each input alone. Computed once per data set; :func:`neighbour_gains` reuses them."""
    n = X.shape[0]
    idx = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(np.int64)
    Z = X[idx]
    width = np.ptp(Z, axis=0)
    U = Z / np.where(width > 0, width, 1.0)
    m = U.shape[1]
    spaces = [list(range(m))]
    spaces += [[i, j] for i in range(m) for j in range(i + 1, m)] if m > 2 else []
    spaces += [[j] for j in range(m) if width[j] > 0] if m > 1 else []
    hoods = []
    k = tuning.neighbours
    for cols in spaces if idx.size > k else ():
        V = U[:, cols]
        d = ((V[:, None, :] - V[None, :, :]) ** 2).sum(axis=2)
        np.fill_diagonal(d, np.inf)
        hoods.append(np.argpartition(d, k, axis=1)[:, :k])
    return idx, hoods


def neighbour_gains(X: np.ndarray, r: np.ndarray, hoods: tuple | None = None, tuning: Tuning = TUNING) -> list[float]:
    """Local smooth fits of the residuals ``r``: each point's residual predicted by the mean
    residual of its ``neighbours`` nearest points (itself left out) in each subspace of
    :func:`neighbourhoods` (pass ``hoods`` to reuse them): a trend in one or two inputs hides
    among far neighbours in many dimensions. Per fit, the standard errors by which it beats the
    mean of the other points; empty with fewer than 20 points."""
    if r.size < 20:
        return []
    idx, near = neighbourhoods(X, tuning=tuning) if hoods is None else hoods
    e = r[idx]
    scale = float(np.max(np.abs(e)))
    if not (np.isfinite(scale) and scale > 0):
        return []
    e = e / scale
    return [_paired_gain(e, e[k].mean(axis=1)) for k in near]


def formula_status(nmse: float, exact_below: float, X: np.ndarray, residuals: np.ndarray,
                   rng: np.random.Generator, least: float | None = None, hoods: tuple | None = None,
                   edges=None, edge_floor: float | None = None, tuning: Tuning = TUNING) -> str:
    """``exact`` when the normalised error ``nmse`` is under ``exact_below`` (the data's
    precision); else ``law`` when the ``residuals`` on X show no structure (module docstring)
    and (given ``least``, the least error of the candidates) no candidate explains much more
    (``nmse`` at most ``alike_times`` ``least``, or ``alike_more`` more); ``approximation`` otherwise, and whenever
    the formula refitted on an interior misses its edge (``edges``: (interior, edge) errors of
    :func:`~superpos.symreg.edges.edge_errors`, or a function computing them, called last, only
    for a formula that would be exact or a law; :func:`~superpos.symreg.edges.holds_at_edges`
    with ``edge_floor``, :func:`~superpos.symreg.edges.edge_floor`, the record's by default).
    ``hoods``: :func:`neighbourhoods` of X, to reuse across formulas."""
    def holds() -> bool:
        return edges is None or holds_at_edges(edges() if callable(edges) else edges, edge_floor, tuning)

    if nmse < exact_below:
        return "exact" if holds() else "approximation"
    if least is not None and nmse > max(tuning.alike_times * least, least + tuning.alike_more):
        return "approximation"
    return "approximation" if structured(X, residuals, rng, hoods, tuning) or not holds() else "law"


def structured(X: np.ndarray, residuals: np.ndarray, rng: np.random.Generator, hoods: tuple | None = None,
               tuning: Tuning = TUNING) -> bool:
    """Whether the ``residuals`` on X keep a trend the inputs explain (not finite counts as one):
    the ``left_out`` F-test on every input, or a global or local smooth fit that predicts held-out
    residuals better than their mean (module docstring; ``structure_level`` together)."""
    r = np.asarray(residuals, dtype=np.float64)
    if not np.all(np.isfinite(r)):
        return True
    if residual_dependence(X, r, [], tuning=tuning):
        return True
    r = r - r.mean()
    gains = [g for g in [smooth_gain(X, r, rng, tuning=tuning)] + neighbour_gains(X, r, hoods, tuning)
             if g is not None]
    z = NormalDist().inv_cdf(1.0 - tuning.structure_level / max(1, len(gains)))  # 0.1 % for the tests together
    return any(g > z for g in gains)
