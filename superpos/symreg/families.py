"""The curves of the lab as families of one input, each a tree over the work basis with its
constants started from the data, its named parameters and its textbook forms.

Scientists fit these every day by guessing the form (scipy's ``curve_fit``, lmfit's built-in
models); a family makes that guess for them. Families: peaks (Gaussian, Lorentzian,
pseudo-Voigt, with offset), steps and growth (logistic as a tanh step, erf step, Gompertz,
Richards), dose-response (Hill / four-parameter logistic with a fitted coefficient n),
exponential rise and decay with offset (a classic law, :mod:`.laws`), damped oscillations
A e^(-g x) cos(w x + p) + d, the frequency started from a periodogram of unevenly spaced data,
and three of positive x: the log-normal peak (a Gaussian in log x; the density's 1/x is its
square completed, A/x exp(-(log x - mu)^2 / (2 sigma^2))), the stretched exponential
A exp(-(x/tau)^beta) + d (Kohlrausch relaxation, Weibull's distribution function) and a power
with an offset A x^b + d (learning curves, Cauchy's dispersion); the two-phase decay
A1 e^(-k1 x) + A2 e^(-k2 x) (started by peeling); and the Gaussian and Lorentzian peaks and the
damped oscillation also on a sloping baseline (+ slope x: a line on a drift).

A family's tree is written with free constants only (no fixed numbers: a fitted 1 beside a
fitted scale would be one constant too many), so that every constant is identified; its
textbook forms are renderings of the same function, with parameters computed from the tree's
constants (:mod:`.forms`): the form whose parameters are the shortest numbers is shown (a
logistic of the year with midpoint 1950 as L/(1 + exp(-k (x - 1950))), a culture's as
L/(1 + 99 exp(-k x))).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import forms
from .curve_starts import (biexponential_starts, damped_starts, erf_starts, gaussian_starts, gompertz_starts, hill_starts, lognormal_starts,
                           lorentzian_starts, on_slope, power_offset_starts, richards_starts, stretched_starts,
                           tanh_starts, voigt_starts)
from .notation import digits_cost, shortest, times

__all__ = ["Family", "FAMILIES", "family_trees", "family_starts", "fitted_families", "recognise", "textbook", "shortest", "digits_cost"]


@dataclass(frozen=True)
class Rendering:
    """One textbook form: ``params(constants) -> {name: value}`` (None when the constants do not
    make this form: a Gaussian needs a negative curvature), ``text(values, x) -> str`` and
    ``inverse({name: value} for the names in free) -> constants`` (the snapping of parameters,
    :func:`~superpos.symreg.snapping.snap_parameters`; None: this form's parameters do not snap)."""

    params: Callable[[np.ndarray], dict | None]
    text: Callable[[dict, str], str]
    free: tuple = ()
    inverse: Callable[[dict], list] | None = None

    def real_params(self, constants) -> dict | None:
        """``params(constants)``, or None where this form does not apply: the constants do not
        make it, or they raise, or a parameter turns complex (EC50^n of a negative EC50)."""
        try:
            p = self.params(constants)
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        return None if p is None or any(isinstance(v, complex) for v in p.values()) else p


@dataclass(frozen=True)
class Family:
    """``template``: the tree over the work basis ({x}: the input); ``starts(x, y)``: start
    constants in the template's prefix order; ``renderings``: its textbook forms, the first
    also giving the parameters reported."""

    name: str
    template: str
    starts: Callable[[np.ndarray, np.ndarray], list[np.ndarray]]
    renderings: tuple


def _sloped(r: Rendering) -> Rendering:
    """The rendering of ``slope x + f(x)`` from f's: the tree's first constant is the slope."""
    def params(c):
        p = r.params(c[1:])
        return None if p is None else {**p, "slope": c[0]}

    def text(p, x):
        t = r.text({k: v for k, v in p.items() if k != "slope"}, x)
        return f"{t} + {times(p['slope'], x)}".replace("+ -", "- ")

    inverse = None if r.inverse is None else (lambda p: [p["slope"]] + list(r.inverse(p)))
    return Rendering(params, text, r.free + ("slope",), inverse)


def _on_slope(fam: Family) -> Family:
    """``fam`` on a sloping baseline, slope x + f(x): a peak or an oscillation on a drift, the
    same name, one parameter more (``slope``)."""
    return Family(fam.name, f"add(mul(c, {{x}}), {fam.template})", on_slope(fam.starts, _SLOPED_STARTS),
                  tuple(_sloped(r) for r in fam.renderings))


_SLOPED_STARTS = 2
"""A curve on a sloping baseline takes the first this many of its base curve's starts."""


_PEAK = "mul(c, exp(mul(c, pow2(add({x}, c)))))"
_LORENTZ = "div(c, add(c, pow2(add({x}, c))))"
_DAMPED = (("A", "gamma", "omega", "phase", "offset"),
           lambda p: [p["offset"], p["A"], -p["gamma"], p["omega"], p["phase"]])
_DAMPED_SIN = (_DAMPED[0], lambda p: [p["offset"], p["A"], -p["gamma"], p["omega"], p["phase"] - math.pi / 2])
FAMILIES = (
    Family("gaussian", f"add(c, {_PEAK})", gaussian_starts,
           (Rendering(forms.gaussian_params, forms.gaussian_text, ("amplitude", "center", "sigma", "offset"),
                      lambda p: [p["offset"], p["amplitude"], -1 / (2 * p["sigma"] ** 2), -p["center"]]),
            Rendering(forms.gaussian_width_params, forms.gaussian_width_text, ("amplitude", "center", "width", "offset"),
                      lambda p: [p["offset"], p["amplitude"], -1 / p["width"] ** 2, -p["center"]]))),
    Family("lorentzian", f"add(c, {_LORENTZ})", lorentzian_starts,
           (Rendering(forms.lorentzian_params, forms.lorentzian_text, ("amplitude", "center", "gamma", "offset"),
                      lambda p: [p["offset"], p["amplitude"] * p["gamma"] ** 2, p["gamma"] ** 2, -p["center"]]),
            Rendering(forms.lorentzian_raw_params, forms.lorentzian_raw_text, ("a", "g", "center", "offset"),
                      lambda p: [p["offset"], p["a"], p["g"], -p["center"]]))),
    Family("pseudo_voigt", f"add(c, add({_LORENTZ}, {_PEAK}))", voigt_starts,
           (Rendering(forms.voigt_params, forms.voigt_text, ("lorentz_amplitude", "lorentz_center", "gamma", "gauss_amplitude",
                                                   "gauss_center", "sigma", "offset"),
                      lambda p: [p["offset"], p["lorentz_amplitude"] * p["gamma"] ** 2, p["gamma"] ** 2,
                                 -p["lorentz_center"], p["gauss_amplitude"], -1 / (2 * p["sigma"] ** 2),
                                 -p["gauss_center"]]),)),
    Family("logistic", "add(c, mul(c, tanh(mul(c, add({x}, c)))))", tanh_starts,
           (Rendering(forms.logistic_params, forms.logistic_text, ("L", "k", "x0", "offset"),
                      lambda p: [p["offset"] + p["L"] / 2, p["L"] / 2, p["k"] / 2, -p["x0"]]),
            Rendering(forms.logistic_b_params, forms.logistic_b_text, ("L", "B", "k", "offset"),
                      lambda p: [p["offset"] + p["L"] / 2, p["L"] / 2, p["k"] / 2, -math.log(p["B"]) / p["k"]]),
            Rendering(forms.tanh_params, forms.tanh_text, ("amplitude", "k", "x0", "offset"),
                      lambda p: [p["offset"], p["amplitude"], p["k"], -p["x0"]]))),
    Family("erf_step", "add(c, mul(c, erf(mul(c, add({x}, c)))))", erf_starts,
           (Rendering(forms.erf_params, forms.erf_text, ("amplitude", "center", "k", "offset"),
                      lambda p: [p["offset"], p["amplitude"], p["k"], -p["center"]]),)),
    Family("gompertz", "add(c, mul(c, exp(mul(c, exp(mul(c, {x}))))))", gompertz_starts,
           (Rendering(forms.gompertz_params, forms.gompertz_text, ("A", "b", "k", "offset"),
                      lambda p: [p["offset"], p["A"], -p["b"], -p["k"]]),)),
    Family("richards", "add(c, mul(c, exp(mul(c, log(add(c, exp(mul(c, {x}))))))))", richards_starts,
           (Rendering(forms.richards_params, forms.richards_text, ("L", "nu", "B", "k", "offset"),
                      lambda p: [p["offset"], p["L"] / (1 / p["B"]) ** (-1 / p["nu"]), -1 / p["nu"], 1 / p["B"],
                                 -p["k"]]),
            Rendering(forms.richards_x0_params, forms.richards_x0_text, ("L", "nu", "k", "x0", "offset"),
                      lambda p: [p["offset"], p["L"] / (math.exp(-p["k"] * p["x0"]) / p["nu"]) ** (-1 / p["nu"]),
                                 -1 / p["nu"], math.exp(-p["k"] * p["x0"]) / p["nu"], -p["k"]]))),
    Family("hill", "add(c, div(c, add(c, exp(mul(c, log({x}))))))", hill_starts,
           (Rendering(forms.hill_params, forms.hill_text, ("top", "bottom", "K", "n"),
                      lambda p: [p["bottom"] + p["top"], -p["top"] * p["K"], p["K"], p["n"]]),
            Rendering(forms.hill_ec50_params, forms.hill_ec50_text, ("top", "bottom", "ec50", "n"),
                      lambda p: [p["bottom"] + p["top"], -p["top"] * p["ec50"] ** p["n"], p["ec50"] ** p["n"], p["n"]]),
            Rendering(forms.four_pl_params, forms.four_pl_text, ("bottom", "span", "b", "n"),
                      lambda p: [p["bottom"], p["span"] / p["b"], 1 / p["b"], p["n"]]))),
    Family("lognormal", "add(c, mul(c, exp(mul(c, pow2(add(log({x}), c))))))", lognormal_starts,
           (Rendering(forms.lognormal_params, forms.lognormal_text, ("amplitude", "mu", "sigma", "offset"), forms.lognormal_inverse),
            Rendering(forms.log_gaussian_params, forms.log_gaussian_text, ("amplitude", "mu", "sigma", "offset"),
                      lambda p: [p["offset"], p["amplitude"], -1 / (2 * p["sigma"] ** 2), -p["mu"]]))),
    Family("stretched_exponential", "add(c, mul(c, exp(mul(c, exp(mul(c, log({x})))))))", stretched_starts,
           (Rendering(forms.stretched_params, forms.stretched_text, ("A", "tau", "beta", "offset"),
                      lambda p: [p["offset"], p["A"], -p["tau"] ** -p["beta"], p["beta"]]),
            Rendering(forms.stretched_b_params, forms.stretched_b_text, ("A", "b", "beta", "offset"),
                      lambda p: [p["offset"], p["A"], -p["b"], p["beta"]]))),
    # exponential decay and rise and Antoine's vapour pressure are classic laws (:mod:`.laws`,
    # which proposes them: no starts here); as families they are written in their textbook forms
    Family("exponential", "add(c, mul(c, exp(mul(c, {x}))))", lambda x, y: [],
           (Rendering(forms.exponential_params, forms.exponential_text, ("A", "k", "offset"),
                      lambda p: [p["offset"], p["A"], -p["k"]]),
            Rendering(forms.exponential_tau_params, forms.exponential_tau_text, ("A", "tau", "offset"),
                      lambda p: [p["offset"], p["A"], -1 / p["tau"]]))),
    Family("exponential", "mul(c, exp(mul(c, {x})))", lambda x, y: [],
           (Rendering(forms.exponential_params, forms.exponential_text, ("A", "k"), lambda p: [p["A"], -p["k"]]),
            Rendering(forms.exponential_tau_params, forms.exponential_tau_text, ("A", "tau"), lambda p: [p["A"], -1 / p["tau"]]))),
    Family("exponential", "sub(c, mul(c, exp(mul(c, {x}))))", lambda x, y: [],  # a rise, as sympy writes it
           (Rendering(lambda c: forms.exponential_params([c[0], -c[1], c[2]]), forms.exponential_text, ("A", "k", "offset"),
                      lambda p: [p["offset"], -p["A"], -p["k"]]),
            Rendering(lambda c: forms.exponential_tau_params([c[0], -c[1], c[2]]), forms.exponential_tau_text, ("A", "tau", "offset"),
                      lambda p: [p["offset"], -p["A"], -1 / p["tau"]]))),
    Family("antoine", "mul(c, exp(div(c, add(c, {x}))))", lambda x, y: [],
           (Rendering(forms.antoine_params, forms.antoine_text, ("A", "B", "C"),
                      lambda p: [10 ** p["A"], -p["B"] * math.log(10), p["C"]]),)),
    Family("biexponential", "add(mul(c, exp(mul(c, {x}))), mul(c, exp(mul(c, {x}))))", biexponential_starts,
           (Rendering(forms.biexponential_params, forms.biexponential_text, ("A1", "k1", "A2", "k2"),
                      lambda p: [p["A1"], -p["k1"], p["A2"], -p["k2"]]),)),
    Family("power_offset", "add(c, mul(c, exp(mul(c, log({x})))))", power_offset_starts,
           (Rendering(forms.power_offset_params, forms.power_offset_text, ("A", "exponent", "offset"),
                      lambda p: [p["offset"], p["A"], p["exponent"]]),)),
    Family("damped_oscillation", "add(c, mul(mul(c, exp(mul(c, {x}))), cos(add(mul(c, {x}), c))))", damped_starts,
           (Rendering(forms.damped_params, forms.damped_text, *_DAMPED), Rendering(forms.damped_signed_params, forms.damped_text, *_DAMPED),
            Rendering(forms.damped_sin_params, forms.damped_sin_text, *_DAMPED_SIN))),
)
FAMILIES = FAMILIES + tuple(_on_slope(f) for f in FAMILIES if f.name in ("gaussian", "lorentzian", "damped_oscillation"))
# the Gaussian at the origin is a classic law (:mod:`.laws`, c exp(c x^2)): written as a family
FAMILIES = FAMILIES + (
    Family("gaussian", "mul(c, exp(mul(c, pow2({x}))))", lambda x, y: [],
           (Rendering(lambda c: forms.gaussian_params([0.0, c[0], c[1], 0.0]), forms.gaussian_text,
                      ("amplitude", "sigma"), lambda p: [p["amplitude"], -1 / (2 * p["sigma"] ** 2)]),
            Rendering(lambda c: forms.gaussian_width_params([0.0, c[0], c[1], 0.0]), forms.gaussian_width_text,
                      ("amplitude", "width"), lambda p: [p["amplitude"], -1 / p["width"] ** 2]))),
)
"""The families, in the order they are proposed (the peaks and the damped oscillation also on a
sloping baseline; the Gaussian at the origin, which the classic laws propose, last)."""

NEEDS = ("add", "mul", "div", "exp", "log", "pow2", "cos", "tanh", "erf")


def family_trees(X: np.ndarray, y: np.ndarray, basis, max_inputs: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """(tree, start) for every family and start, on each of the first ``max_inputs`` inputs of X
    that vary; a family whose functions the basis lacks is left out."""
    return [(t, s) for t, s, _, _ in family_starts(X, y, basis, max_inputs)]


def family_starts(X: np.ndarray, y: np.ndarray, basis, max_inputs: int = 3) -> list[tuple]:
    """(tree, start, family, input index) as :func:`family_trees` gives (tree, start)."""
    from ..core.tree import from_string
    from ..exceptions import NotRepresentable, SuperposError

    out = []
    for j in range(min(X.shape[1], max_inputs, basis.n_variables)):
        x = X[:, j]
        if np.ptp(x) <= 0 or not np.all(np.isfinite(x)):
            continue
        for fam in FAMILIES:
            try:
                tree = from_string(fam.template.format(x=basis.variables[j].name), basis)
            except (SuperposError, NotRepresentable):
                continue
            try:  # a start from odd data may overflow: that start is left out
                with np.errstate(all="ignore"):
                    starts = [s for s in fam.starts(x, y) if np.all(np.isfinite(s))]
            except (ArithmeticError, ValueError):
                starts = []
            out += [(tree, s, fam, j) for s in starts]
    return out


def recognise(tree: np.ndarray, basis) -> tuple[Family, int] | None:
    """(family, input index) when ``tree`` is a family's template over one input, else None."""
    from ..core.tree import from_string
    from ..exceptions import NotRepresentable, SuperposError

    tree = np.asarray(tree)
    for j in range(basis.n_variables):
        for fam in FAMILIES:
            try:
                t = from_string(fam.template.format(x=basis.variables[j].name), basis)
            except (SuperposError, NotRepresentable):
                continue
            if t.size == tree.size and np.array_equal(t, tree):
                return fam, j
    return None


_LEVELS = ("offset", "bottom")
"""Additive parameters: below 1e-7 of the target's scale they are written as 0 (an offset of
5e-8 beside a plateau of 120 is the data's rounding)."""


def textbook(fam: Family, constants: np.ndarray, x: str, scale: float = 0.0) -> tuple[str, dict] | None:
    """The family's formula in the textbook form whose parameters are the shortest numbers, and
    those parameters; None when no form applies. ``scale``: the target's largest |value|."""
    c = [float(v) for v in constants]
    best = None
    for r in fam.renderings:
        p = r.real_params(c)
        if p is None or not all(np.isfinite(v) for v in p.values()):
            continue
        p = {k: 0.0 if k in _LEVELS and abs(v) <= 1e-7 * scale else v for k, v in p.items()}
        cost = digits_cost(p.values())
        if best is None or cost < best[0]:
            best = (cost, r.text(p, x), p)
    return None if best is None else (best[1], {k: float(f"{v:.12g}") for k, v in best[2].items()})


def fitted_families(Z: np.ndarray, y: np.ndarray, basis, fit_rows: np.ndarray, settings, seed: int,
                    keep: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """(tree, constants) of the ``keep`` families that fit a reduced data set of one input z
    best (a Gaussian of x1 / x2), fitted with every start on the rows ``fit_rows``; none for
    more inputs or a basis without the families' functions."""
    from .fitting import fit_many

    if Z.shape[1] != 1 or not all(basis.has(n) for n in NEEDS):
        return []
    found = family_trees(Z[fit_rows], y[fit_rows], basis, max_inputs=1)
    if not found:
        return []
    fits = fit_many([t for t, _ in found], basis, Z[fit_rows], y[fit_rows], n_starts=settings.n_starts,
                    max_iter=settings.lm_iterations, random_state=seed, init=[s for _, s in found])
    order = np.argsort([e for _, e, _ in fits], kind="stable")
    return [(found[k][0], fits[k][0]) for k in order[:keep] if np.isfinite(fits[k][1]) and np.all(np.isfinite(fits[k][0]))]
