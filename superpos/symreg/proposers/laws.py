"""The classic laws of one input with scale constants (source ``laws``,
:func:`~superpos.symreg.laws.laws_with_starts`), for each input, fitted with every start on the
data in the model's decade and mapped back. Tried even after an exact candidate, which may be a
long twin of one (x - 150 + 224 / (exp(0.0077 x) + 0.376) for Arrhenius in degrees C), unless
the exact candidate is no more complex than the simplest law."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidate
from ..engine import Search
from ..laws import laws_with_starts

__all__ = ["LawsProposer"]


class LawsProposer:
    name = "laws"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        kx, ky = search.decade()
        found = laws_with_starts(search.X / 10.0**kx, search.work)
        simplest = min((t.size + search.work.n_constants(t) for t, _ in found), default=0)
        if search.exact(pool) and pool[0].complexity <= simplest:  # no law can be a shorter twin
            return []
        return search.fit([t for t, _ in found], search.work, self.name, starts=[s for _, s in found],
                          scores=search.floor(pool), first_rank=len(pool), scale=(kx, ky), full=True)
