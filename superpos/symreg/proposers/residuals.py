"""The search goes on on the residuals of the finalists (source ``residuals``).

For each of the :data:`TOP` best candidates that is not exact and whose residuals r = y - f(x)
on the fitting points still depend on the inputs (a cubic in some input explains part of them:
the F-test of :func:`~superpos.symreg.inputs.residual_dependence` at 0.1 %), the engine solves r
as one more additive part over all inputs (the model, powers and local search: short parts;
:data:`SHARE` of the effort left each); f + g is written as one tree and refitted jointly from
both constants. Runs last: it serves the laws no other proposer reached, and an exact candidate
spares it. A factor y / f is not searched: on the hard set it turned a short approximation into
a long product that fits the sample and fails beyond it (mm_linear, sample 4).
"""
from __future__ import annotations

import numpy as np

from ...core.basis import Basis
from ...core.symbolic import from_sympy, to_sympy
from ...core.tree import evaluate
from ...exceptions import NotRepresentable
from ..candidates import Candidate
from ..engine import Search
from ..inputs import residual_dependence
from ..laws import law_basis

__all__ = ["ResidualsProposer", "TOP", "SHARE"]

TOP = 3
"""Finalists whose residuals are searched."""

SHARE = 0.1
"""Share of the effort left that each residual search gets."""

RESIDUAL_PROPOSERS = ("model", "powers", "search")
"""Short parts only: the families and laws fit any residual with a long curve (soups)."""


class ResidualsProposer:
    name = "residuals"
    after_exact = False

    def applies(self, search: Search) -> bool:
        """The user's data (not a part) of 2 or more inputs: with one input a second part of the
        same input only adds an approximation to an approximation (the README's Bessel curve
        became sin(0.79 sin(1.16 r) / r) + 0.21 cos(0.717 r - 6 cos(0.07 r)))."""
        return search.settings.decompose and search.depth == 0 and search.n_inputs >= 2

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        p = search.points
        X, y = search.X, search.y
        model_basis = search.model.basis_
        basis = model_basis if X.shape[1] <= model_basis.n_variables else Basis(model_basis.to_list(), X.shape[1])
        work = law_basis(basis)
        out: list[Candidate] = []
        for c in pool[:TOP]:
            if search.effort.exhausted() or c.nmse_validation < search.exact_below:
                break
            if not np.all(np.isfinite(c.constants)):
                continue
            with np.errstate(all="ignore"):
                f = evaluate(c.tree, search.work, X, c.constants)
            if not np.all(np.isfinite(f)):
                continue
            r = y - f
            if not residual_dependence(X[p.fit], r[p.fit], []):
                continue
            found = search.solve(X, r, RESIDUAL_PROPOSERS, share=SHARE, basis=basis, work=work)
            found = [g for g in found if np.all(np.isfinite(g.constants))]
            if not found:
                continue
            g = found[0]
            whole = to_sympy(c.tree, search.work, c.constants)
            part = to_sympy(g.tree, work, g.constants).xreplace(
                {v: w for v, w in zip(work.variables, search.work.variables)})
            try:
                tree, consts = from_sympy(whole + part, search.work)
            except (NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError):
                continue
            consts = np.array([float(v) for v in consts], dtype=np.float64)
            cand = Candidate(tree, tuple(search.work.to_list()), c.log_likelihood, 0, consts, np.inf, np.inf,
                             self.name)
            out += search.refit([(cand, (tree, consts))], search.work, len(pool) + len(out))
        return out
