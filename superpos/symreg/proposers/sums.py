"""Sums of library terms (source ``sums``): the sparse fits of :func:`~superpos.symreg.terms.sum_trees`
on the fitting points, with grown products on small data, and short sums of monomials with
integer exponents over 3 inputs or more (:func:`~superpos.symreg.monomial_sums.monomial_sum_trees`),
found on the data in the decade the model knows (sin(x) of millimetres is no term) and mapped
back to the user's units."""
from __future__ import annotations

from ..candidates import Candidate
from ..engine import Search
from ..monomial_sums import monomial_sum_trees
from ..terms import sum_trees

__all__ = ["SumsProposer"]


class SumsProposer:
    name = "sums"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        kx, ky = search.decade()
        p = search.points
        Xf, yf = p.X[p.fit] / 10.0**kx, p.y[p.fit] / 10.0**ky
        t = search.tuning
        trees = (sum_trees(Xf, yf, search.work, grown=not p.folds, tuning=t)
                 + monomial_sum_trees(Xf, yf, search.work, tuning=t))
        return search.fit(trees, search.work, self.name, scores=search.floor(pool), first_rank=len(pool),
                          scale=(kx, ky))
