"""The curves of the lab (source ``families``, :mod:`~superpos.symreg.families`): peaks, steps
and growth, dose-response and damped oscillations on each input, their constants started from
the fitting points (peak position and width, plateaus, the frequency of a periodogram) and
fitted with every start, in the engine's units."""
from __future__ import annotations

import numpy as np

from ..candidates import Candidate
from ..engine import Search
from ..families import NEEDS, family_starts

__all__ = ["FamiliesProposer"]


class FamiliesProposer:
    name = "families"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        p = search.points
        found = family_starts(p.X[p.fit], p.y[p.fit], search.work)
        of = {np.asarray(t, dtype=np.int64).tobytes(): (fam, j) for t, _, fam, j in found}
        fits = search.fit([t for t, _, _, _ in found], search.work, self.name, starts=[s for _, s, _, _ in found],
                          scores=search.floor(pool), first_rank=len(pool), full=True)
        return [c for c in fits if _stands(c, of.get(np.asarray(c.tree, dtype=np.int64).tobytes()), search)]


_STRICT = ("lognormal", "stretched_exponential", "power_offset", "biexponential")
"""Families whose fits stand only in a textbook form (below)."""


def _stands(c: Candidate, seen, search: Search) -> bool:
    """A fit of one of the :data:`_STRICT` families or of a curve on a sloping baseline stands
    where one of its textbook forms applies (a stretched exponential decays: exp(+b x^beta) is
    a curve fitter), a peak on a slope where its center lies within the data's range of its
    input (elsewhere a line and a peak's flank beyond the data fit a vapour pressure's rise at
    1 % noise, and fail beyond it), a fitted power where it is not a logarithm
    (x^b varies over the data by at least ``min_power_span`` in its log, |b| times the range of
    log x: below, A x^b + d and A exp(-b x^beta) + d are a logarithm in disguise,
    x^b = 1 + b log x + ...). ``seen``: the candidate's (family, input index)."""
    if seen is None:
        return True
    fam, j = seen
    if fam.name not in _STRICT and "slope" not in fam.renderings[0].free:
        return True
    values = [float(v) for v in c.constants]
    for r in fam.renderings:
        p = r.real_params(values)
        if p is None:
            continue
        x = search.X[:, j]
        if "center" in p and "slope" in p:
            return bool(np.min(x) <= p["center"] <= np.max(x))
        power = p.get("beta", p.get("exponent"))
        if power is not None:
            with np.errstate(all="ignore"):
                return bool(abs(power) * np.ptp(np.log(np.abs(x))) >= search.tuning.min_power_span)
        return True
    return False

