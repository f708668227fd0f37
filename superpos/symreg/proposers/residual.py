"""Residual search (source ``residual``): where the best formulas so far leave residuals that the
inputs still explain, the search goes on with what they miss as one more part.

The finalists are the ``residual_finalists`` most accurate candidates of the pool's
accuracy-complexity front with at most :func:`readable_size` nodes, after the simplest of that
front that explains all but ``residual_knee`` of the variance (searched first, when the effort
left is largest: a short frame whose residual is the missing part; the most accurate frames
leave a factor polluted by their own constants). For each f whose residuals
y - f keep a trend (:func:`~superpos.symreg.status.structured`, the status's tests at 0.1 %),
r = y - f is solved by the engine (:meth:`Search.solve`, the plan's context ``residual``: the
same rows, the proposers of a separable law's parts and the sums) over the inputs a smooth fit of r needs
(:func:`~superpos.symreg.status.relevant_inputs`), and f + g is proposed for its best g; where
f keeps one sign and stays away from zero (``residual_away_from_zero``), q = y / f the same, and f g. Each extended formula
is refitted jointly from its parts' constants and kept where it halves the least validation
error in the pool (``residual_gain``: the part must explain what every candidate misses, not
refit noise); the selection by description length decides whether the
extra part pays for itself. On the user's data of 2 or more inputs only (not within parts),
last of the sources.
"""
from __future__ import annotations

import numpy as np

from ...core.symbolic import to_sympy
from ...core.tree import evaluate
from ..candidates import Candidate
from ..engine import Search, model_basis_over
from ..laws import law_basis
from ..selection import front
from ..status import relevant_inputs, structured
from ..tuning import TUNING, Tuning

__all__ = ["ResidualProposer", "readable_size"]


def readable_size(n_inputs: int, tuning: Tuning = TUNING) -> int:
    """The most nodes a finalist may have over ``n_inputs`` inputs: ``readable_nodes`` (a part
    beside a soup of terms would be one more term of the soup), and two more (a leaf and its
    operator) for each input beyond 3, since a law over more inputs needs them (x3^2 / (2 x1)
    beside a 17-node product over five others)."""
    return tuning.readable_nodes + 2 * max(n_inputs - 3, 0)


class ResidualProposer:
    name = "residual"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        X, y = search.X, search.y
        fit = search.points.fit
        rng = np.random.default_rng(search.seed)
        variables = search.work.variables
        out: list[Candidate] = []
        t = search.tuning
        size = readable_size(search.n_inputs, t)
        readable = front([c for c in pool if np.all(np.isfinite(c.constants)) and c.size <= size], len(pool))
        bar = min((c.nmse_validation for c in pool), default=np.inf)
        simple = [c for c in readable if c.nmse_validation <= t.residual_knee][:1]
        finalists = simple + [c for c in readable[::-1][:t.residual_finalists] if all(c is not f for f in simple)]
        for c in finalists:
            if search.effort.exhausted():
                break
            with np.errstate(all="ignore"):
                f = evaluate(c.tree, search.work, X, c.constants)
            if not np.all(np.isfinite(f)) or not structured(X[fit], (y - f)[fit], rng, tuning=t):
                continue
            fx = to_sympy(c.tree, search.work, c.constants)
            parts = [("sum", y - f)]
            if np.all(f > 0) or np.all(f < 0):
                if np.min(np.abs(f)) >= t.residual_away_from_zero * np.max(np.abs(f)):
                    parts.append(("product", y / f))
            for kind, target in parts:
                if search.effort.exhausted():
                    break
                if np.ptp(target) == 0:
                    continue
                inputs = relevant_inputs(X[fit], target[fit], t)
                basis = model_basis_over(search.model, len(inputs))
                work = law_basis(basis)
                mapping = {work.variables[j]: variables[v] for j, v in enumerate(inputs)}
                found = search.solve("residual", X[:, inputs], target, basis=basis, work=work)
                for g in [g for g in found if np.all(np.isfinite(g.constants))][:t.residual_keep]:
                    gx = to_sympy(g.tree, work, g.constants).xreplace(mapping)
                    out += [e for e in search.refit_expression(fx + gx if kind == "sum" else fx * gx,
                                                               search.floor(pool), self.name, len(pool) + len(out))
                            if e.nmse_validation < t.residual_gain * bar]
        return out

