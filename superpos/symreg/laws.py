"""Fixed skeletons proposed beside the structure model's, ranked after its trees so that they
win only on the data: the affine baselines (:func:`baseline_trees`), and the classic laws of one
input with scale constants (:func:`law_trees`), which the structure model's trees reach
rarely (its corpus has constants of order 1 and inputs of order 1-10): exponential growth or
decay c exp(c x), the rise or fall to a level c + c exp(c x), Arrhenius c exp(c / x) and the
same with an offset, c exp(c / (x + c)) (temperature in degrees C rather than kelvin),
saturation c x / (x + c) (Michaelis-Menten), the Gaussian at the origin c exp(c x^2) (a
normal density of a reduction's group (x2 - x3) / x1, which cos(0.56 z)^3 matches to 1 % noise
with as many constants), the Lorentz factor c / sqrt(1 + c x^2), also of 1 / x (a reduction's
group v / c, or c / v; at 1 % noise x1 exp(0.55 x2^2 / x3^2) passes for x1 / sqrt(1 - x2^2 / x3^2)
where the sums of 1 / y^2 are not searched), and with functions the model's basis lacks,
c tanh(c x), c asin(c x) and c acos(c x) (over :func:`law_basis`). Proposed for each input beside
the model's candidates, fitted on the data brought into the model's decade and scored like
any other.
"""
from __future__ import annotations

import numpy as np
import sympy

from typing import TYPE_CHECKING

from ..core.basis import Basis
from ..core.symbolic import from_sympy
from ..core.tree import from_string
from ..exceptions import NotRepresentable, SuperposError
from .fitting import fit_many
from .decades import decade_scales, to_data_scale

if TYPE_CHECKING:
    from .candidates import Points
    from .settings import FormulaSettings

__all__ = ["baseline_trees", "law_trees", "laws_with_starts", "law_basis", "fitted_laws", "LAW_FUNCTIONS"]

_LAWS = (
    "mul(c, exp(mul(c, {x})))",
    "add(c, mul(c, exp(mul(c, {x}))))",
    "mul(c, exp(div(c, {x})))",
    "mul(c, exp(div(c, add({x}, c))))",
    "div(mul(c, {x}), add({x}, c))",
    "mul(c, exp(mul(c, pow2({x}))))",
    "div(c, sqrt(add(1, mul(c, pow2({x})))))",
    "div(c, sqrt(add(1, div(c, pow2({x})))))",
)
_NEEDS = ("add", "mul", "div", "exp", "c")

_ARC_LAWS = (
    ("tanh", "mul(c, tanh(mul(c, {x})))"),
    ("asin", "mul(c, asin(mul(c, {x})))"),
    ("acos", "mul(c, acos(mul(c, {x})))"),
    ("tanh", "mul(c, tanh(div(c, {x})))"),
    ("asin", "mul(c, asin(div(c, {x})))"),
    ("acos", "mul(c, acos(div(c, {x})))"),
)
"""Laws with the functions the structure model's basis lacks (saturation c tanh(c x), an
angle from a ratio, c asin(c x) and c acos(c x): the outer c is the target's unit), also of
c / x (a reduction's group z may come as the inverse of the law's ratio): proposed over
:func:`law_basis`."""

LAW_FUNCTIONS = tuple(dict.fromkeys(name for name, _ in _ARC_LAWS)) + ("erf",)
"""Functions the pool's trees may use beyond the structure model's basis: those of the laws and
erf (the erf step of :mod:`.families`)."""


def law_basis(basis: Basis) -> Basis:
    """``basis`` with the functions of the laws it lacks (tanh, asin, acos, erf) appended after its
    own colours, which keep their ids: a tree over ``basis`` is the same tree over the result."""
    extra = [name for name in LAW_FUNCTIONS if not basis.has(name)]
    return Basis(basis.to_list() + extra) if extra else basis


def law_trees(X: np.ndarray, basis: Basis, max_inputs: int = 3) -> list[np.ndarray]:
    """The trees of :data:`_LAWS` (and of :data:`_ARC_LAWS` where the basis has their
    function) for each of the first ``max_inputs`` inputs of X (those that vary); none over a
    basis without add, mul, div, exp and free constants."""
    return [t for t, _ in laws_with_starts(X, basis, max_inputs)]


def laws_with_starts(X: np.ndarray, basis: Basis, max_inputs: int = 3) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """(tree, start) per tree of :func:`law_trees`: the start of its constants where the
    generic starts miss, None for the others. asin and acos are NaN wherever their argument
    leaves [-1, 1], so their inner constant starts at 0.5 / max|u| for u = x or 1 / x (c x
    within [-0.5, 0.5] at every point)."""
    names = set(basis.to_list())
    if not all(n in names for n in _NEEDS):
        return []
    out = []
    for j in range(min(X.shape[1], max_inputs, basis.n_variables)):
        x = X[:, j]
        if np.ptp(x) <= 0:
            continue
        for name, law in [("", law) for law in _LAWS] + [(n, law) for n, law in _ARC_LAWS if basis.has(n)]:
            start = None
            if name in ("asin", "acos"):
                with np.errstate(all="ignore"):
                    u = 1.0 / x if "div(c" in law else x
                top = float(np.max(np.abs(u)))
                if not (np.isfinite(top) and top > 0):
                    continue
                start = np.array([1.0, 0.5 / top])  # prefix order: the outer c, then the inner one
            try:
                out.append((from_string(law.format(x=basis.variables[j].name), basis), start))
            except (SuperposError, NotRepresentable):
                continue
    return out


def baseline_trees(basis: Basis, n_variables: int) -> list[np.ndarray]:
    """The affine formula c + c x1 + ... + c xm over the data's inputs, always a candidate (the
    fallback of noisy measurements, as in FFX), and each input alone times c plus c; ranked
    after every decoded tree, so they win only on the data."""
    xs = basis.variables[:n_variables]
    exprs = [sympy.Symbol("c0") + sum(sympy.Symbol(f"c{j + 1}") * x for j, x in enumerate(xs))]
    exprs += [sympy.Symbol("c0") + sympy.Symbol("c1") * x for x in xs] if n_variables > 1 else []
    out = []
    for e in exprs:
        try:
            out.append(from_sympy(e, basis)[0])
        except NotRepresentable:  # a basis without add, mul or c
            continue
    return out


def fitted_laws(Z: np.ndarray, y: np.ndarray, basis: Basis, points: Points, settings: FormulaSettings,
                 seed: int, keep: int = 2) -> list[tuple[np.ndarray, np.ndarray]]:
    """(tree, constants) of the ``keep`` classic laws (:func:`~superpos.symreg.laws.law_trees`)
    that fit a reduced data set of one input z best, fitted with every start on the fitting
    points brought into the model's decade (:mod:`.units`) and mapped back; none for more
    inputs (a law is of one input)."""
    if Z.shape[1] != 1:
        return []
    kx, ky = decade_scales(Z, y, settings.tuning)  # fitted in the model's decade (scale constants within the starts' reach)
    Zs = Z[points.fit] / 10.0**kx
    found = laws_with_starts(Zs, basis)
    if not found:
        return []
    trees = [t for t, _ in found]
    fits = fit_many(trees, basis, Zs, y[points.fit] / 10.0**ky, n_starts=settings.n_starts,
                    max_iter=settings.lm_iterations, random_state=seed, init=[start for _, start in found])
    out = []
    for k in np.argsort([e for _, e, _ in fits], kind="stable")[:keep]:
        if np.isfinite(fits[k][1]) and np.all(np.isfinite(fits[k][0])):
            mapped = to_data_scale(trees[k], fits[k][0], basis, kx, ky) if kx.any() or ky else (trees[k], fits[k][0])
            out += [mapped] if mapped is not None else []
    return out
