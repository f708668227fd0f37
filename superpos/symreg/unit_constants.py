"""Finalists written with their unit constants: a fitted constant within ``unit_near`` of +-1
is fixed there and the formula read back as it is written, shorter (c x with c = 1 is x; the
Lorentz factor c / sqrt(1 + c x^2) with 1 and -1 is 1 / sqrt(1 - x^2), 15 units of complexity
down to 9). The written form joins the finalists as a candidate of its own, and the
cross-validation, which refits the constants left on every fold, says whether the data can tell
it from the fitted one: a law measured with noise is no longer ranked with the complexity of
constants the data fix at 1 (at 1 % noise x1 exp(0.55 x2^2 / x3^2), complexity 10, passed for
x1 / sqrt(1 - x2^2 / x3^2) written with two constants, 15). The pool's best candidates are
written too (:func:`scored_variants`), scored on their own, so that a written law can reach
the accuracy-complexity front the finalists are taken from.

The written form ranks; a winner written so is refitted and snapped as the candidate it came
from (``written_from``), its units started at +-1: the snapping's joint test then decides
whether they stay there beside the other constants (at 1 % noise 2.996 x3 x4 / (-1 + 3 / (x1 x2))
snaps to 3 and 3 together, while x3 x4 / (c + 1 / (x1 x2)), its 1 fixed alone, left c at
-0.332, which the test of that one value kept from -1/3).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import from_sympy, to_sympy
from ..exceptions import NotRepresentable, SuperposError
from .candidates import Candidate, Points
from .fitting import fit_many
from .tuning import TUNING, Tuning

__all__ = ["unit_variants", "scored_variants"]

def unit_variants(cands: list[Candidate], basis: Basis, memo: dict | None = None,
                  tuning: Tuning = TUNING) -> list[Candidate]:
    """For each candidate with constants within ``unit_near`` of +-1, the candidate with those
    fixed at +-1 and its tree as sympy writes that formula (:func:`from_sympy` of the form with
    the other constants as symbols), where that tree is smaller and not already among
    ``cands``; its other constants start at their fitted values. ``memo`` (id of a candidate ->
    its written form or None) keeps the sympy round trips of one selection from being done twice."""
    seen = {np.asarray(c.tree, dtype=np.int64).tobytes() for c in cands}
    out = []
    for c in cands:
        if memo is None or id(c) not in memo:
            w = _written(c, basis, tuning.unit_near)
            if memo is not None:
                memo[id(c)] = w
        else:
            w = memo[id(c)]
        if w is None or w.tree.tobytes() in seen:
            continue
        seen.add(w.tree.tobytes())
        out.append(w)
    return out


def _written(c: Candidate, basis: Basis, near: float) -> Candidate | None:
    """``c`` written with its unit constants fixed (:func:`unit_variants`), None where it has
    none or the written tree is not smaller."""
    v = np.asarray(c.constants, dtype=np.float64)
    unit = np.abs(np.abs(v) - 1.0) <= near
    if not unit.any() or not np.all(np.isfinite(v)):
        return None
    free = {}
    values: list = []
    for j, x in enumerate(v):
        if unit[j]:
            values.append(sympy.Integer(int(np.sign(x))))
        else:
            s = sympy.Symbol(f"c{len(free)}")
            free[s.name] = float(x)
            values.append(s)
    try:
        tree, consts = from_sympy(to_sympy(c.tree, basis, values), basis)
        start = [free[str(k)] if str(k) in free else float(k) for k in consts]
    except (SuperposError, NotRepresentable, TypeError, ValueError, KeyError):
        return None
    tree = np.asarray(tree, dtype=np.int64)
    if tree.size >= np.asarray(c.tree).size:
        return None
    return replace(c, tree=tree, constants=np.asarray(start, dtype=np.float64),
                   written_from=(np.asarray(c.tree), np.where(unit, np.sign(v), v)))


def scored_variants(cands: list[Candidate], basis: Basis, points: Points, settings, seed: int,
                    memo: dict | None = None) -> list[Candidate]:
    """:func:`unit_variants` of ``cands`` with their own errors: their other constants refitted
    on the fitting points from the fitted values and scored on the validation points (with
    ``points.folds``, cross-validated), where a parent's error would flatter a form whose
    units the data do not fix (x1 (1.011 + 1.025 exp(-x3 / x2)) written x1 (1 + exp(-x3 / x2))
    doubles its error at 1 % noise)."""
    written = unit_variants(cands, basis, memo, tuning=settings.tuning)
    if not written:
        return []
    trees, starts = [c.tree for c in written], [c.constants for c in written]
    if points.folds:
        held_out = points.cross_validated(trees, basis, starts, settings, seed)
        return [replace(c, nmse_validation=float(e)) for c, e in zip(written, held_out)]
    Xf, yf, Xv, yv = points.parts()
    fits = fit_many(trees, basis, Xf, yf, Xv, yv, n_starts=1, max_iter=settings.lm_iterations, init=starts,
                    random_state=seed)
    return [replace(c, constants=np.asarray(k, dtype=np.float64), nmse_fit=float(ef), nmse_validation=float(ev))
            for c, (k, ef, ev) in zip(written, fits)]
