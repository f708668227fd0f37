"""Separable laws solved part by part (source ``separable``): y = f_1(x_P1) + ... + f_k(x_Pk),
or the product of such parts, over disjoint groups of inputs found by
:func:`~superpos.symreg.separable.separations` on the fitting points.

Each part is a data set of its own, solved by the engine (:meth:`Search.solve` over the laws'
basis, in the plan's contexts ``part`` and, from the second pass, ``part-later``: the model,
powers, families, local search, reductions, the laws, the rational laws from the second pass,
and this proposer again, to ``decompose_depth`` levels), on the same rows, so the same split of
the points; each part gets the context's share of the effort left over k passes. Backfitting:
part p's target is y minus (sum) or divided by (product) the current fits of the other parts
(where the factors change sign, on the rows away from the others' zeros), at first the
polynomial parts of the test, then each part's best formula as soon as it is found (the part
whose polynomial misses most first: :meth:`~superpos.symreg.separable.Separation.order`);
``backfit_passes`` passes, each searching the structures again with cleaner targets. The parts'
formulas are recombined into one tree over every input and refitted jointly from their
constants.
"""
from __future__ import annotations

import numpy as np
import sympy

from ...core.symbolic import to_sympy
from ...core.tree import evaluate
from ..candidates import Candidate
from ..engine import Search, model_basis_over
from ..laws import law_basis
from ..separable import Separation, separations

__all__ = ["SeparableProposer"]


class SeparableProposer:
    name = "separable"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        p = search.points
        out: list[Candidate] = []
        # the product test of a y that changes sign on the user's data only: within a part, on a
        # target still off by the other parts' polynomials, it split x1 cos(x2 x3) again, for
        # seconds, where the model finds the part whole
        for sep in separations(p.X, p.y, p.fit, signed=search.context.users_data, tuning=search.tuning)[:2]:
            if search.effort.exhausted():
                break
            found = _solve_parts(search, sep)
            if found is None:
                continue
            expr = sympy.Add(*found) if sep.kind == "sum" else _product(found)
            out += search.refit_expression(expr, search.floor(pool), self.name, len(pool) + len(out),
                                           decomposition=("sum" if sep.kind == "sum" else "product", sep.parts))
        return out


def _near_integers(e: sympy.Expr) -> sympy.Expr:
    """Floats within 1e-9 (relative) of an integer written as that integer."""
    return e.xreplace({f: sympy.Integer(round(float(f))) for f in e.atoms(sympy.Float)
                       if round(float(f)) != 0 and abs(float(f) - round(float(f))) <= 1e-9 * abs(float(f))})


def _product(parts: list[sympy.Expr]) -> sympy.Expr:
    """The product of the parts with one constant factor: each part's scale (its leading
    numeric coefficient) moved in front, so that (a x1 + a x2)(b x3 + b x4) becomes
    a b (x1 + x2)(x3 + x4) and the joint refit has no redundant pair of constants."""
    scale = sympy.Integer(1)
    out = []
    for e in parts:
        lead = (e.as_ordered_terms()[0] if isinstance(e, sympy.Add) else e).as_coeff_Mul()[0]
        if lead.is_number and lead != 0:
            scale *= lead
            e = sympy.Add(*[t / lead for t in e.args]) if isinstance(e, sympy.Add) else e / lead
        out.append(_near_integers(e))
    return _near_integers(scale * sympy.Mul(*out))


def _solve_parts(search: Search, sep: Separation) -> list[sympy.Expr] | None:
    """Each part's best formula over the search's variables, by backfitting; None when a part
    finds nothing or its values are not finite. A factor's target y / g (g the other factors,
    which change sign) is searched on the rows where |g| is at least ``factor_away_from_zeros``
    of its largest value (or its median, where fewer rows are left): near g's zeros y / g is
    mostly noise."""
    X, y = search.X, search.y
    k = len(sep.parts)
    current = [sep.part_values(i) for i in range(k)]
    exprs: list = [None] * k
    variables = search.work.variables
    t = search.tuning
    passes = t.backfit_passes
    for pass_ in range(passes):
        for i in sep.order(t.misfit_negligible):
            part = sep.parts[i]
            others = [current[j] for j in range(k) if j != i]
            rows = None
            with np.errstate(all="ignore"):
                if sep.kind == "sum":
                    target = y - np.sum(others, axis=0)
                elif sep.kind == "product":
                    target = y / np.prod(others, axis=0)
                else:  # factors that change sign: y / g only where |g| is not near its zeros
                    g = np.abs(np.prod(others, axis=0))
                    rows = g >= min(t.factor_away_from_zeros * np.max(g), np.median(g))
                    target = np.where(rows, y / np.where(rows, np.prod(others, axis=0), 1.0), 0.0)
            kept = target if rows is None else target[rows]
            if not np.all(np.isfinite(kept)) or np.ptp(kept) == 0:
                return None
            basis = model_basis_over(search.model, len(part))
            work = law_basis(basis)
            found = search.solve("part-later" if pass_ else "part", X[:, list(part)], target, pieces=k * passes,
                                 basis=basis, work=work, rows=rows)
            found = [c for c in found if np.all(np.isfinite(c.constants))]
            if not found:
                return None
            best = found[0]
            with np.errstate(all="ignore"):
                values = evaluate(best.tree, work, X[:, list(part)], best.constants)
            if not np.all(np.isfinite(values)):
                return None
            current[i] = values
            mapping = {work.variables[j]: variables[v] for j, v in enumerate(part)}
            exprs[i] = to_sympy(best.tree, work, best.constants).xreplace(mapping)
        if search.effort.exhausted():
            break
    return exprs
