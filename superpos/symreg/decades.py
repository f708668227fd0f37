"""Decades: the data seen in decades the structure model knows, and formulas mapped back
(physical units, read from a header, are :mod:`superpos.core.units`).

The structure model was trained on inputs whose largest magnitude is about 1-10, and does
well on the benchmarks' ranges of about 1-5. A law measured in other units (millimetres,
kilopascal) is the same law with its inputs and target multiplied by constants.
:func:`decade_scales` picks for each input and for the target the power of ten s with
max|v| / s in the decade [0.75, 7.5): multiplying a column by 10^k changes s by 10^k and
leaves v / s unchanged, so the normalised data, and the formula found on them, do not
depend on the units (data already in that decade are left as they are). :func:`to_data_scale` writes a formula found on the normalised
data, f(x / s) * s_y, as a tree over the data's own scale (the scales folded into constants).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.symbolic import rewritten
from .tuning import TUNING, Tuning

__all__ = ["decade_scales", "expr_in_data_scale", "extreme_decades", "in_data_scale", "readable_numbers",
           "times_ten_power", "to_data_scale"]


def _decade(v: np.ndarray, low: float) -> int:
    top = float(np.max(np.abs(v)))
    return int(np.floor(np.log10(top / low))) if top > 0 and np.isfinite(top) else 0


def decade_scales(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> tuple[np.ndarray, int]:
    """(k_x per input, k_y): the powers of ten with max|x_j| / 10^k_j and max|y| / 10^k_y in
    [l, 10 l), l the record's ``decade_low`` (0.75 shipped)."""
    low = tuning.decade_low
    return np.array([_decade(X[:, j], low) for j in range(X.shape[1])], dtype=np.int64), _decade(y, low)


def to_data_scale(tree, constants, basis: Basis, kx: np.ndarray, ky: int):
    """The tree and constants of 10^ky * f(x / 10^kx) for a formula f (``tree`` with
    ``constants``) found on the normalised data; None when the result has no tree over the
    basis (:func:`~superpos.core.symbolic.rewritten`)."""
    subs = {v: v / sympy.Integer(10) ** int(k) for v, k in zip(basis.variables, kx) if k}
    return rewritten(tree, basis, constants,
                     lambda e: e.xreplace(subs) * sympy.Integer(10) ** int(ky) if ky else e.xreplace(subs))


def extreme_decades(X: np.ndarray, y: np.ndarray, tuning: Tuning = TUNING) -> tuple[np.ndarray, int]:
    """(k_x per input, k_y) as :func:`decade_scales`, zero for the columns within 10^±k
    (``extreme_decades``, 100 shipped): the others are brought into the model's decade before any
    search, which squares, divides and differences the data and would overflow or underflow past
    about 10^±150, while a law is a law at any scale."""
    kx, ky = decade_scales(X, y, tuning)
    k = tuning.extreme_decades
    kx = np.where(np.abs(kx) > k, kx, 0)
    return kx, (ky if abs(ky) > k else 0)


def times_ten_power(v: np.ndarray, k) -> np.ndarray:
    """v * 10^k column by column (``k`` one integer or one per column), in two steps so that
    neither factor over- or underflows (10.0 ** 310 does)."""
    k = np.asarray(k, dtype=np.int64)
    half = k // 2
    with np.errstate(over="ignore", under="ignore"):
        return np.asarray(v, dtype=np.float64) * 10.0 ** half.astype(np.float64) * 10.0 ** (k - half).astype(np.float64)


def readable_numbers(expr: sympy.Expr) -> sympy.Expr:
    """Exact numbers with more than 12 digits (a power of ten that a change of units put into a
    formula, an integer read from a float such as 1e30) written as 15-digit floats: 1.0e+30*x1,
    not 1000000000000000019884624838656*x1."""
    big = {r: sympy.Float(r, 15) for r in expr.atoms(sympy.Rational)
           if max(abs(int(r.p)), int(r.q)) > 10**12}
    return expr.xreplace(big) if big else expr


def expr_in_data_scale(expr: sympy.Expr, kx: np.ndarray, ky: int) -> sympy.Expr:
    """10^ky * expr(x / 10^kx): a formula found on rescaled data, in the data's own units (the
    variables x1..xm are matched by name)."""
    scale = {f"x{j + 1}": int(k) for j, k in enumerate(kx) if k}
    subs = {s: s / sympy.Integer(10) ** scale[s.name] for s in expr.free_symbols if s.name in scale}
    out = expr.xreplace(subs) * (sympy.Integer(10) ** int(ky) if ky else 1)
    return readable_numbers(sympy.expand_mul(out) if ky or subs else out)


def in_data_scale(f, kx: np.ndarray, ky: int):
    """The formula ``f`` found on the data divided by 10^kx (inputs) and 10^ky (target), in
    the data's units: tree and constants of 10^ky f(x / 10^kx), the constants' standard errors
    scaled with them, the noise by 10^ky. The candidates stay those of the rescaled data (their
    errors are the same in any units); the front and the distinct candidates are shown in the
    data's units (:meth:`~superpos.symreg.formula.Formula.distinct_candidates`)."""
    mapped = to_data_scale(f.tree, f.constants, Basis(f.basis_names), kx, ky)
    if mapped is not None:
        tree, constants = mapped
        with np.errstate(all="ignore"):
            lost = ~np.isfinite(constants) | ((constants == 0) & (f.constants != 0)) \
                if constants.size == f.constants.size else ~np.isfinite(constants)
        if np.any(lost):
            mapped = None
    if mapped is None:  # no tree over the basis (log|x| + c), or a constant beyond the floats: the
        return replace(f, expr=expr_in_data_scale(f.expr, kx, ky), textbook="", parameters={}, scales=(f.tree, f.constants, kx, ky),  # rescaled ones
                       noise=float(times_ten_power(np.array([f.noise]), ky)[0]))
    if constants.size == f.constants.size:
        with np.errstate(all="ignore"):
            ratio = np.where(f.constants != 0, np.abs(constants / np.where(f.constants != 0, f.constants, 1)), np.nan)
        errors = np.asarray(f.standard_errors) * ratio
    else:
        errors = np.full(constants.size, np.nan)
    return replace(f, expr=expr_in_data_scale(f.expr, kx, ky), textbook="", parameters={}, tree=np.asarray(tree, dtype=np.int64), constants=constants,
                   standard_errors=errors, noise=float(times_ten_power(np.array([f.noise]), ky)[0]),
                   scales=(f.tree, f.constants, kx, ky))
