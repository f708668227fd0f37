"""More inputs than the structure model's basis: which inputs it sees, and the candidates that
use every input without it.

The shipped model knows x1..x3. For data with more inputs (up to :data:`MAX_INPUTS`) the model
searches on the 3 inputs :func:`select_inputs` ranks first, its trees are relabelled onto the
data's inputs (:func:`relabel`), and two kinds of candidate over all inputs join them: the
affine formula (as FFX's linear base) and the power law c * prod x_i^a_i that a linear fit of
log|y| on the log|x_i| suggests (:func:`power_law_trees`, exponents rounded to halves, as most
laws of physics have them).
"""
from __future__ import annotations

import numpy as np
import sympy

from ..core.basis import MAX_VARIABLES, Basis
from ..core.symbolic import from_sympy
from ..exceptions import NotRepresentable
from .tuning import TUNING, Tuning

__all__ = ["MAX_INPUTS", "select_inputs", "relabel", "relabelling", "power_law_trees", "inputs_used", "residual_dependence"]

MAX_INPUTS = MAX_VARIABLES


def _rank(v: np.ndarray) -> np.ndarray:
    """Ranks with ties averaged (a constant column has no rank order to correlate)."""
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    starts = np.cumsum(counts) - counts
    return (starts + (counts - 1) / 2.0)[inverse]


def _abs_corr(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    den = np.sqrt((a @ a) * (b @ b))
    return float(abs(a @ b) / den) if den > 0 and np.isfinite(den) else 0.0


def select_inputs(X: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` inputs most related to y, in their original order: each scored by the
    largest absolute correlation of y with x, |x|, x^2, log|x| and 1/x and of their ranks
    (monotone and even effects); ties go to the earlier input."""
    scores = []
    with np.errstate(all="ignore"):
        for j in range(X.shape[1]):
            x = X[:, j]
            if np.ptp(x) == 0:  # a constant input explains nothing
                scores.append(-1.0)
                continue
            ax = np.abs(x) + 1e-300
            cols = [x, np.abs(x), x * x, np.log(ax), 1.0 / np.where(ax > 1e-12, x, 1e-12)]
            s = max(_abs_corr(c, y) for c in cols if np.all(np.isfinite(c)))
            scores.append(max(s, _abs_corr(_rank(x), _rank(y))))
    order = sorted(range(X.shape[1]), key=lambda j: (-scores[j], j))
    return np.sort(np.array(order[:k], dtype=np.int64))


def relabel(tree, model_basis: Basis, work_basis: Basis, inputs: np.ndarray) -> np.ndarray:
    """A tree over the model's basis, whose variable x_j stands for the data's input
    ``inputs[j - 1]``, as a tree over ``work_basis`` (the same functions, every input)."""
    return relabelling(model_basis, work_basis, inputs)[np.asarray(tree, dtype=np.int64)]


def relabelling(model_basis: Basis, work_basis: Basis, inputs: np.ndarray) -> np.ndarray:
    """The colour table of :func:`relabel` (model colour -> work colour), to index many trees with."""
    table = np.zeros(len(model_basis), dtype=np.int64)
    for c, f in enumerate(model_basis.functions):
        if c == 0 or (f.kind == "variable" and f.index >= len(inputs)):  # not in a tree over len(inputs) inputs
            continue
        table[c] = work_basis.index(f"x{inputs[f.index] + 1}" if f.kind == "variable" else f.name)
    return table


def power_law_trees(X: np.ndarray, y: np.ndarray, basis: Basis) -> list[np.ndarray]:
    """Trees of c * prod x_i^a_i from the least-squares fit of log|y| on log|x_i| (inputs
    whose values are all nonzero), exponents rounded to the nearest half and to the nearest
    integer (|a| < 1/4 drops the input); none when y changes sign or vanishes."""
    if np.any(y == 0) or (np.any(y > 0) and np.any(y < 0)):
        return []
    use = [j for j in range(X.shape[1]) if np.all(X[:, j] != 0) and np.ptp(X[:, j]) > 0]
    if not use:
        return []
    with np.errstate(all="ignore"):
        A = np.column_stack([np.ones(X.shape[0])] + [np.log(np.abs(X[:, j])) for j in use])
        coef, *_ = np.linalg.lstsq(A, np.log(np.abs(y)), rcond=None)
    if not np.all(np.isfinite(coef)):
        return []
    out, seen = [], set()
    for step in (0.5, 1.0):
        a = np.round(coef[1:] / step) * step
        if not np.any(a) or np.max(np.abs(a)) > 4 or tuple(a) in seen:
            continue
        seen.add(tuple(a))
        expr = sympy.Symbol("c0") * sympy.Mul(*[basis.variables[j] ** sympy.Rational(int(round(2 * e)), 2)
                                                 for j, e in zip(use, a) if e])
        try:
            out.append(from_sympy(expr, basis)[0])
        except NotRepresentable:
            continue
    return out


def inputs_used(tree, basis: Basis, expr: sympy.Expr | None = None) -> list[int]:
    """The data columns (0-based) the formula reads: those of the rendered ``expr`` when given
    (a term whose constant was snapped to 0 is gone there), else of the tree."""
    if expr is not None:
        names = {v.name: k for k, v in enumerate(basis.variables)}
        return sorted(names[s.name] for s in expr.free_symbols if s.name in names)
    return sorted({basis.functions[c].index for c in np.asarray(tree) if basis.functions[c].kind == "variable"})


def residual_dependence(X: np.ndarray, residuals: np.ndarray, used: list[int],
                        tuning: Tuning = TUNING) -> list[tuple[int, float]]:
    """Inputs the formula leaves out that still explain part of its residuals: for each such
    input x_j, the F statistic of a cubic polynomial in x_j against a constant fitted to the
    residuals; [(j, F)] for those above the critical value ``relevance_f``, strongest first."""
    n = residuals.size
    if n < 12 or not np.all(np.isfinite(residuals)):
        return []
    top = float(np.max(np.abs(residuals)))
    if not (np.isfinite(top) and top > 0):  # an exact fit leaves nothing to explain
        return []
    r = residuals / top  # unit scale: no underflow or overflow whatever the units of y
    r = r - r.mean()
    if not float(np.std(r)) > 0:
        return []
    sse0 = float(r @ r)
    out = []
    for j in range(X.shape[1]):
        if j in used or np.ptp(X[:, j]) == 0:
            continue
        u = (X[:, j] - X[:, j].mean()) / np.std(X[:, j])
        A = np.column_stack([np.ones(n), u, u**2, u**3])
        coef, *_ = np.linalg.lstsq(A, r, rcond=None)
        sse1 = float(np.sum((r - A @ coef) ** 2))
        F = ((sse0 - sse1) / 3) / (sse1 / (n - 4)) if sse1 > 1e-12 * sse0 else np.inf
        if F > tuning.relevance_f:
            out.append((j, float(F)))
    return sorted(out, key=lambda jf: -jf[1])
