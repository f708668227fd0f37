"""The user's template (source ``template``): ``FormulaSettings.template`` such as
``f(x1, x2) + g(x3)``, its placeholders solved as parts (:mod:`~superpos.symreg.template`).
When a template is given it is the only proposer: the law has the form the user wrote.

Each placeholder is solved by the engine on its own inputs (:meth:`Search.solve`, the plan's
context ``template-part``: the same proposers as a separable law's parts, over the laws' basis),
the same rows and a share of the effort; ``backfit_passes`` backfitting passes; after each the parts
go back into the template, which is refitted jointly from their constants and the template's,
one candidate per pass (the second pass's parts fit targets off by the first's errors and may
write a part worse than the first pass did: benchmarks/decisions.md).
"""
from __future__ import annotations

import numpy as np
import sympy

from ...core.symbolic import to_sympy
from ...core.tree import evaluate
from ..candidates import Candidate
from ..engine import Search, model_basis_over
from ..laws import law_basis
from ..template import Template, fit_surrogates, input_index, read_template, solved_for

__all__ = ["TemplateProposer", "solve_template"]


class TemplateProposer:
    name = "template"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        return solve_template(search, read_template(search.settings.template, search.n_inputs), pool, self.name,
                              "template-part")


def _value_at(t, current, use) -> np.ndarray:
    """The current values of one placeholder call: its name's k-th use."""
    same = [u for u in t.uses if u.func.__name__ == use.func.__name__]
    return current[use.func.__name__][same.index(use)]


def solve_template(search: Search, t: Template, pool: list[Candidate], source: str,
                   context: str) -> list[Candidate]:
    """The template ``t`` solved on the search's data (module docstring): its placeholders
    found part by part in the plan's ``context`` (its share of the effort left over the
    placeholders and passes), put back after each pass and
    refitted jointly, as candidates of ``source``; those of the passes completed when a
    placeholder finds nothing or the values are not finite."""
    p = search.points
    fitted = fit_surrogates(t, p.X[p.fit], p.y[p.fit], search.seed, search.tuning)
    if fitted is None:
        return []
    surrogates, consts, _ = fitted
    X, y = search.X, search.y
    names = list(t.names)
    current = {nm: surrogates[nm](X) for nm in names}  # values at each use
    solvers = {nm: solved_for(t, next(u for u in t.uses if u.func.__name__ == nm))
               for nm in names if sum(u.func.__name__ == nm for u in t.uses) == 1}
    found: dict = {}
    variables = search.work.variables
    out: list[Candidate] = []
    passes = search.tuning.backfit_passes
    for _ in range(passes):
        for nm in names:
            args = list(t.names[nm])
            target = _target(t, nm, solvers.get(nm), current, consts, X, y)
            rows = _steady(t, nm, solvers.get(nm), current, consts, X, y, target)
            kept = slice(None) if rows is None else rows
            if target is None or not _usable(target[kept], current[nm][0][kept]):
                target, rows = current[nm][0], None
            elif rows is not None:
                target = np.where(rows, target, current[nm][0])
            if not np.all(np.isfinite(target)):
                return out
            basis = model_basis_over(search.model, len(args))
            work = law_basis(basis)
            cands = [c for c in search.solve(context, X[:, args], target, pieces=len(names) * passes,
                                             basis=basis, work=work, rows=rows)
                     if np.all(np.isfinite(c.constants))]
            if not cands:
                return out
            best = cands[0]
            local = to_sympy(best.tree, work, best.constants)
            found[nm] = (local, work)
            with np.errstate(all="ignore"):
                current[nm] = [evaluate(best.tree, work, X[:, [input_index(a) for a in u.args]], best.constants)
                               for u in t.uses if u.func.__name__ == nm]
        expr = t.expr
        for u in t.uses:
            local, work = found[u.func.__name__]
            expr = expr.xreplace({u: local.xreplace({work.variables[j]: variables[input_index(a)]
                                                     for j, a in enumerate(u.args)})})
        expr = expr.xreplace(dict(zip(t.constants, [sympy.Float(float(v)) for v in consts])))
        out += search.refit_expression(expr, search.floor(pool), source, len(pool) + len(out))
        if search.effort.exhausted():
            break
    return out


def _target(t, name, solver, current, consts, X, y):
    """The placeholder's values that make the template give y with the other placeholders
    at their current values (its inversion), or None where none is known."""
    if solver is None:
        return None
    others = [_value_at(t, current, u) for u in t.uses if u.func.__name__ != name]
    m = max(t.inputs, default=-1) + 1
    with np.errstate(all="ignore"):
        out = solver(*[X[:, j] for j in range(m)], *others, *consts, y)
    return np.broadcast_to(np.asarray(out, dtype=np.float64), y.shape).copy()


def _steady(t, name, solver, current, consts, X, y, target):
    """Where the inversion's sensitivity to y, |d target / d y|, spans more than a decade, the
    rows where it is at most its median: (y - f) / cos(x3) carries f's error divided by cos(x3),
    spikes where that crosses zero and is steady where it is large. None otherwise."""
    if target is None or not np.all(np.isfinite(target)):
        return None
    step = 1e-6 * float(np.sqrt(np.mean(y**2)))
    if not step > 0:
        return None
    moved = _target(t, name, solver, current, consts, X, y + step)
    with np.errstate(all="ignore"):
        s = np.abs(moved - target) / step
    if not (np.all(np.isfinite(s)) and np.min(s) > 0) or np.max(s) <= 10.0 * np.min(s):
        return None
    return s <= np.median(s)


def _usable(target, surrogate: np.ndarray) -> bool:
    """Whether an inverted target can stand for the surrogate: finite, not constant, and
    nowhere more than 10 ranges of the surrogate away from it (dividing by a function that
    crosses zero, (y - f) / cos(x3), spikes where the other parts are not yet exact)."""
    if target is None or not np.all(np.isfinite(target)) or np.ptp(target) == 0:
        return False
    return bool(np.max(np.abs(target - surrogate)) <= 10.0 * max(np.ptp(surrogate), 1e-300))
