"""Composed laws y = F(g(x)) with an invertible outer F (source ``outer``): where a transform
T(y) = y^2, 1/y, log|y| or exp(y) is separable (:func:`~superpos.symreg.separable.separations`:
a sum or product of parts over disjoint inputs) and y is not (or much less), g = T(y) is
solved by the engine like any data set (:meth:`Search.solve`, the plan's context ``outer``: the
same rows, the proposers of a separable law's parts, the separable one among them) and F = T^-1 is put back on its best
formulas: sqrt(x1^2 + x2^2 + x3^2) is the root of a sum, 1/(1/x1 + 1/x2 + 1/x3) the inverse
of one. The test is numpy only and costs milliseconds per transform.
"""
from __future__ import annotations

import numpy as np
import sympy

from ...core.symbolic import to_sympy
from ..candidates import Candidate
from ..engine import Search, model_basis_over
from ..laws import law_basis
from ..separable import separations
from ..tuning import TUNING, Tuning

__all__ = ["OuterProposer", "TRANSFORMS", "transformed", "outer", "firing"]

TRANSFORMS = ("square", "inverse", "log", "exp")
"""T(y) = y^2, 1/y, log|y|, exp(y); F = T^-1 is sqrt (with y's sign), 1/u, exp (with y's sign), log."""


def transformed(y: np.ndarray, kind: str) -> np.ndarray | None:
    """T(y) for the transform ``kind`` of :data:`TRANSFORMS`, or None where it is not invertible
    on these values (y^2, 1/y and log|y| need y of one sign and not 0; exp(y) y within 300 and a
    range under 50)."""
    one_sign = bool(np.all(y > 0) or np.all(y < 0))
    with np.errstate(all="ignore"):
        if kind == "square" and one_sign:
            return y * y
        if kind == "inverse" and one_sign:
            return 1.0 / y
        if kind == "log" and one_sign:
            return np.log(np.abs(y))
        if kind == "exp" and np.max(y) < 300 and np.ptp(y) < 50:
            return np.exp(y)
    return None


def outer(kind: str, g: sympy.Expr, sign: float) -> sympy.Expr:
    """F(g) = T^-1(g): y from a formula g of T(y) (``sign``: y's sign, for sqrt and exp)."""
    s = sympy.Integer(-1 if sign < 0 else 1)
    if kind == "square":
        return s * sympy.sqrt(g)
    if kind == "inverse":
        return 1 / g
    if kind == "log":
        return s * sympy.exp(g)
    return sympy.log(g)


def firing(X: np.ndarray, y: np.ndarray, rows=None, tuning: Tuning = TUNING) -> list[tuple[str, np.ndarray]]:
    """[(transform, T(y))] of the transforms whose T(y) splits into parts on ``rows``
    (:func:`~superpos.symreg.separable.separations`) leaving at most ``outer_gain`` of what
    y's own split leaves unexplained (all of it when y does not split)."""
    left = min((1.0 - s.explained for s in separations(X, y, rows, tuning=tuning)), default=1.0)
    out = []
    for kind in TRANSFORMS:
        t = transformed(y, kind)
        if t is None or not np.all(np.isfinite(t)) or np.ptp(t) == 0:
            continue
        seps = separations(X, t, rows, tuning=tuning)
        if seps and 1.0 - max(s.explained for s in seps) <= tuning.outer_gain * left:
            out.append((kind, t))
    return out


class OuterProposer:
    name = "outer"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        X, y = search.X, search.y
        sign = float(np.sign(y[np.argmax(np.abs(y))]))
        out: list[Candidate] = []
        for kind, t in firing(X, y, search.points.fit, search.tuning):
            if search.effort.exhausted():
                break
            basis = model_basis_over(search.model, search.n_inputs)
            work = law_basis(basis)
            found = search.solve("outer", X, t, basis=basis, work=work)
            for c in [c for c in found if np.all(np.isfinite(c.constants))][:search.tuning.outer_keep]:
                out += search.refit_expression(outer(kind, to_sympy(c.tree, work, c.constants), sign),
                                               search.floor(pool), self.name, len(pool) + len(out))
        return out
