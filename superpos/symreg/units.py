"""Units: the data seen in decades the structure model knows, and formulas mapped back.

The structure model was trained on inputs whose largest magnitude is about 1-10, and does
well on the benchmarks' ranges of about 1-5. A law measured in other units (millimetres,
kilopascal) is the same law with its inputs and target multiplied by constants.
:func:`decade_scales` picks for each input and for the target the power of ten s with
max|v| / s in the decade [0.75, 7.5): multiplying a column by 10^k changes s by 10^k and
leaves v / s unchanged, so the normalised data, and the formula found on them, do not
depend on the units (data already in that decade are left as they are). :func:`to_user_units` writes a formula found on the normalised
data, f(x / s) * s_y, as a tree over the user's units (the scales folded into constants).
"""
from __future__ import annotations

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import rewritten

__all__ = ["decade_scales", "to_user_units"]


_LOW = 0.75
"""The decade the data are brought into is [_LOW, 10 * _LOW)."""


def _decade(v: np.ndarray) -> int:
    top = float(np.max(np.abs(v)))
    return int(np.floor(np.log10(top / _LOW))) if top > 0 and np.isfinite(top) else 0


def decade_scales(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
    """(k_x per input, k_y): the powers of ten with max|x_j| / 10^k_j and max|y| / 10^k_y in [0.75, 7.5)."""
    return np.array([_decade(X[:, j]) for j in range(X.shape[1])], dtype=np.int64), _decade(y)


def to_user_units(tree, constants, basis: Basis, kx: np.ndarray, ky: int):
    """The tree and constants of 10^ky * f(x / 10^kx) for a formula f (``tree`` with
    ``constants``) found on the normalised data; None when the result has no tree over the
    basis (:func:`~superpos.core.symbolic.rewritten`)."""
    subs = {v: v / sympy.Integer(10) ** int(k) for v, k in zip(basis.variables, kx) if k}
    return rewritten(tree, basis, constants,
                     lambda e: e.xreplace(subs) * sympy.Integer(10) ** int(ky) if ky else e.xreplace(subs))
