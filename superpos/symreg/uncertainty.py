"""How much to trust a formula: the noise level, each constant's standard error, how often
the chosen structure wins on bootstrap resamples of the points, and the accuracy-complexity
front of the candidates (PySR's hall of fame).

All three work on what the search already fitted (no refits), so they cost milliseconds.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.numeric import error_scale
from ..core.tree import evaluate
from .candidates import Candidate, Points
from .fitting import noise_variance, standard_errors
from .render import clean_constants
from .selection import tie_order

__all__ = ["noise_variance", "standard_errors", "structure_confidence", "pareto_front"]


def structure_confidence(cands: list[Candidate], basis: Basis, points: Points, rtol: float, n_boot: int = 100,
                         top: int = 20, random_state=None) -> float:
    """The share of ``n_boot`` bootstrap resamples of the validation points on which the
    winner (``cands[0]``) still wins among the ``top`` best candidates, each keeping its
    fitted constants, under the same rule (ties within ``rtol`` go to the simpler tree)."""
    pool = [c for c in cands[:top] if np.isfinite(c.nmse_validation)]
    if not pool or pool[0] is not cands[0]:
        return 0.0
    val = points.val if points.val.size <= 2000 else points.val[:: -(-points.val.size // 2000)]  # bounded memory
    Xv, yv = points.X[val], points.y[val]
    with np.errstate(all="ignore"):
        R = np.array([(yv - evaluate(c.tree, basis, Xv, c.constants)) ** 2 for c in pool])
    R = np.where(np.isfinite(R), R, np.inf)
    rng = np.random.default_rng(random_state)
    idx = rng.integers(0, yv.size, (n_boot, yv.size))
    scale = np.array([error_scale(yv[i]) for i in idx])
    err = R[:, idx].mean(axis=2) / scale[None, :]  # (candidates, resamples)
    best = err.min(axis=0)
    tied = err <= best[None, :] * (1.0 + rtol) + 1e-10
    order = tie_order(pool)
    wins = 0
    for b in range(n_boot):
        winner = next(k for k in order if tied[k, b])
        wins += winner == 0
    return wins / n_boot


def pareto_front(cands: list[Candidate], names: list[str] | None = None,
                 transform=None) -> list[tuple[int, float, sympy.Expr]]:
    """(complexity, validation error, formula) of the candidates no other candidate beats on
    both (fewer nodes + constants and a lower normalised validation error), simplest first,
    each formula once (cleaned as for display, then ``transform``)."""
    from .render import rename_variables

    best: dict[int, Candidate] = {}
    for c in cands:
        if np.isfinite(c.nmse_validation) and (c.complexity not in best
                                               or c.nmse_validation < best[c.complexity].nmse_validation):
            best[c.complexity] = c
    out, seen, floor = [], set(), np.inf
    for k in sorted(best):
        c = best[k]
        if c.nmse_validation < floor:
            floor = c.nmse_validation
            expr = clean_constants(c.formula)
            expr = transform(expr) if transform is not None else expr
            expr = rename_variables(expr, names) if names else expr
            if str(expr) not in seen:
                seen.add(str(expr))
                out.append((k, float(c.nmse_validation), expr))
    return out
