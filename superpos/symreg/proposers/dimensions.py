"""Buckingham's reduction (source ``dimensions``), where every column carries a unit: y = prod x^a
* F(pi_1, ..., pi_k) with the pi_i the dimensionless groups of the inputs
(:func:`~superpos.core.dimensions.pi_groups`). With no group left, the power law c prod x^a
itself; with 1 to the model's number of inputs, the engine's best F on (pi, y / prod x^a)
(the plan's context ``reduced``, as a reduction of :mod:`.reductions`), written back over every
input. A law with a dimensional constant of its own (G, R, a spring's k) has no such
reduction where no product of the inputs has y's unit, and the step adds nothing; where one
has, the candidates it adds compete with the others as every candidate does."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy

from ...core.dimensions import pi_groups
from ...core.units import parse_unit
from ..candidates import Candidate
from ..engine import Search
from ..reduction import Reduction
from .reductions import solved

__all__ = ["DimensionsProposer", "buckingham"]


@lru_cache(maxsize=64)
def buckingham(units: tuple) -> Reduction | None:
    """The reduction of Buckingham's theorem for columns of these unit texts (the target last),
    or None: no product of the inputs has the target's dimension, an exponent of y's monomial
    is not a multiple of 1/2 (what :class:`Reduction` writes), or no input has a dimension (the
    groups are then the inputs themselves)."""
    dims = [parse_unit(u).dimension for u in units]
    found = pi_groups(dims[:-1], dims[-1])
    if found is None:
        return None
    a, groups = found
    if len(groups) == len(dims) - 1 or any((2 * e).denominator != 1 for e in a):
        return None
    return Reduction(tuple(tuple(float(b) for b in g) for g in groups), tuple(float(e) for e in a), 0.0)


class DimensionsProposer:
    """Candidates of the dimensionless form of the law (module docstring)."""

    name = "dimensions"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        red = buckingham(tuple(search.settings.units))
        if red is None:
            return []
        points = search.points
        with np.errstate(all="ignore"):
            factor = red.factor(points.X)
            rest = points.y / factor
        if not (np.all(np.isfinite(rest)) and np.all(np.isfinite(factor))):
            return []
        if not red.inner:  # y / prod x^a is a dimensionless number
            v = search.work.variables
            expr = sympy.Float(float(np.median(rest))) * sympy.Mul(
                *[v[j] ** sympy.Rational(int(round(2 * e)), 2) for j, e in enumerate(red.factor_exponents) if e])
            return search.refit_expression(expr, search.floor(pool), self.name, len(pool))
        if len(red.inner) > search.model.basis_.n_variables:
            return []
        with np.errstate(all="ignore"):
            Z = red.inputs(points.X)
        if not (np.all(np.isfinite(Z)) and np.all(np.ptp(Z, axis=0) > 0)):
            return []
        out = solved(search, red, Z, rest, len(pool))
        for c in out:
            c.source = self.name
        return out
