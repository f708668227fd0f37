"""Rational laws (source ``rational``): sparse P(x) / Q(x) of low degree over the inputs,
found on the fitting points by :func:`~superpos.symreg.rational.rational_fits` (a null vector
of [M_P, -y M_Q], made sparse by backward elimination), and over few inputs exact ratios of
trigonometric columns (:func:`~superpos.symreg.rational.trig_rational_fits`), refitted by the
engine from those coefficients. Run before the local search, which an exact rational law spares."""
from __future__ import annotations

from ..candidates import Candidate
from ..engine import Search
from ..rational import rational_fits, trig_rational_fits
from ...core.symbolic import from_sympy
from ...exceptions import NotRepresentable

__all__ = ["RationalProposer"]


class RationalProposer:
    name = "rational"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        p = search.points
        trees, starts = [], []
        X, y = p.X[p.fit], p.y[p.fit]
        t = search.tuning
        trig = trig_rational_fits(X, y, t) if search.work.has("cos") and search.work.has("sin") else []
        for expr, _ in rational_fits(X, y, tuning=t) + trig:
            try:
                tree, consts = from_sympy(expr, search.work)
            except NotRepresentable:
                continue
            trees.append(tree)
            starts.append([float(c) for c in consts])
        return search.fit(trees, search.work, self.name, starts=starts, scores=search.floor(pool),
                          first_rank=len(pool), full=True)
