"""Dominated sums: a sum c + u whose u stays far below its constant c over the data is c.

A search can fit a constant far beyond the data's scale where only a ratio of constants
matters: 9000 sqrt(x1 x2 / (x2 - 2.03e7)) cos(x3) + x1 + x2 over x2 in [1, 5] is
2.0 sqrt(x1 x2) cos(x3) + x1 + x2 to 2.5e-7. Written without the
sum, the numbers that meet fold into one (9000 / sqrt(2.03e7)) and it can snap to 2
(:mod:`~superpos.symreg.snapping`): the law. :func:`dominated_sums` finds such sums on the
tree (each other term evaluated on the data, numpy only); :func:`undominated` keeps the shorter
formula where the data cannot tell it from the winner.
"""
from __future__ import annotations

import numpy as np

from ..core.basis import Basis
from ..core.symbolic import from_sympy, to_sympy
from ..core.tree import evaluate, subtree_ends
from ..exceptions import NotRepresentable, SuperposError
from .fitting import refit_constants
from .tuning import TUNING, Tuning

__all__ = ["dominated_sums", "undominated"]

def dominated_sums(tree, basis: Basis, X: np.ndarray, constants,
                   tuning: Tuning = TUNING) -> tuple[np.ndarray, np.ndarray] | None:
    """(tree, constants) with each add or sub node of a ``c`` leaf whose other term stays within
    ``dominated_share`` of |c| at every row of X replaced by that constant (-c for u - c); None
    where there is none. The outermost such sum is taken; the others within it go with it."""
    t = np.asarray(tree, dtype=np.int64)
    c = np.asarray(constants, dtype=np.float64)
    code, names = basis.constant, [f.name for f in basis.functions]
    if code < 0:
        return None
    arities, holds = basis.arities, basis.holds_constant
    ends = subtree_ends(t, arities)
    before = np.concatenate([[0], np.cumsum(holds[t])])  # constants ahead of each node
    keep_t, keep_c, k = [], [], 0
    changed = False
    while k < t.size:
        e = ends[k]
        if names[t[k]] in ("add", "sub"):
            s2 = ends[k + 1]
            value = _dominant(t, c, k + 1, s2, s2, e, code, before, basis, X, tuning.dominated_share)
            sign = 1.0
            if value is None:
                value = _dominant(t, c, s2, e, k + 1, s2, code, before, basis, X, tuning.dominated_share)
                sign = -1.0 if names[t[k]] == "sub" else 1.0
            if value is not None:
                keep_t.append(code)
                keep_c.append(sign * value)
                changed = True
                k = e
                continue
        keep_t.append(int(t[k]))
        keep_c.extend(c[before[k]:before[k + 1]])
        k += 1
    return (np.array(keep_t, dtype=np.int64), np.array(keep_c, dtype=np.float64)) if changed else None


def _dominant(t, c, a0, a1, b0, b1, code, before, basis, X, share: float) -> float | None:
    """The constant of the leaf t[a0:a1] where it is a ``c`` leaf and the subtree t[b0:b1] stays
    within ``share`` of it at every row of X; else None."""
    if a1 - a0 != 1 or t[a0] != code:
        return None
    v = float(c[before[a0]])
    if not (np.isfinite(v) and v != 0.0):
        return None
    with np.errstate(all="ignore"):
        u = evaluate(t[b0:b1], basis, X, c[before[b0]:before[b1]])
    return v if np.all(np.isfinite(u)) and float(np.max(np.abs(u), initial=0.0)) <= share * abs(v) else None


def undominated(tree, basis: Basis, X: np.ndarray, y: np.ndarray, constants, max_iter: int,
                seed: int, tuning: Tuning = TUNING) -> tuple[np.ndarray, np.ndarray] | None:
    """The formula without its dominated sums (:func:`dominated_sums`), read back through sympy
    (the numbers that meet folded into one) and refitted on (X, y) from its constants, where its
    tree is shorter and its squared error within 0.1 % of the formula's (the data cannot tell
    them apart); else None."""
    lean = dominated_sums(tree, basis, X, constants, tuning)
    if lean is None:
        return None
    try:
        t, values = from_sympy(to_sympy(lean[0], basis, lean[1]), basis)
    except (SuperposError, NotRepresentable, TypeError, ValueError, ZeroDivisionError, RecursionError):
        return None
    if t.size >= np.asarray(tree).size:
        return None
    new = refit_constants(t, basis, X, y, np.array([float(v) for v in values], dtype=np.float64), 0, max_iter, seed)
    with np.errstate(all="ignore"):
        was = float(np.sum((y - evaluate(tree, basis, X, constants)) ** 2))
        now = float(np.sum((y - evaluate(t, basis, X, new)) ** 2))
    return (t, new) if now <= 1.001 * was else None
