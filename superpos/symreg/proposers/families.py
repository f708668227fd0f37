"""The curves of the lab (source ``families``, :mod:`~superpos.symreg.families`): peaks, steps
and growth, dose-response and damped oscillations on each input, their constants started from
the fitting points (peak position and width, plateaus, the frequency of a periodogram) and
fitted with every start, in the engine's units."""
from __future__ import annotations

from ..candidates import Candidate
from ..engine import Search
from ..families import NEEDS, family_trees

__all__ = ["FamiliesProposer"]


class FamiliesProposer:
    name = "families"
    after_exact = False

    def applies(self, search: Search) -> bool:
        return search.points.fit.size >= 8 and all(search.work.has(n) for n in NEEDS)

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        p = search.points
        found = family_trees(p.X[p.fit], p.y[p.fit], search.work)
        return search.fit([t for t, _ in found], search.work, self.name, starts=[s for _, s in found],
                          scores=search.floor(pool), first_rank=len(pool), full=True)
