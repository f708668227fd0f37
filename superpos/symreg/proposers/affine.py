"""Laws affine in one input's function (source ``affine``): y = A(x_R) + B(x_R) h(x_j), the
coefficients A and B functions of the other inputs R, h one of :data:`FUNCTIONS` (x, sin x,
cos x, exp x, exp -x, log x, 1/x, x^2, sqrt x). Such a law is no sum of parts over disjoint
inputs (A and B share theirs) but splits into two smaller laws: x1 + x2 + 2 sqrt(x1 x2)
cos(x3) is A = x1 + x2 and B = 2 sqrt(x1 x2) of cos(x3); a relativistic (x1 - x2 x4) /
sqrt(1 - x2^2 / x3^2) is affine in x1.

The test (:func:`affine_splits`, numpy only): per input j and function h, A and B as
polynomials in the standardised other inputs, fitted by least squares on the fitting points;
it fires where that model explains ``affine_explained`` of the variance and leaves at most
``affine_gain`` of what the additive model A(x_R) + h(x_j) + a cubic in x_j leaves (h must
interact with the other inputs).
The best ``affine_keep`` are solved as the template ``f(x_R) + g(x_R)*h(x_j)`` (``g(x_R)*h(x_j)``
where A is not needed)
(:func:`~superpos.symreg.proposers.template.solve_template`: A and B found by the engine part
by part, then refitted jointly).
"""
from __future__ import annotations

import numpy as np

from ..candidates import Candidate
from ..engine import Search
from ..template import monomials, read_template
from ..tuning import TUNING, Tuning
from .template import solve_template

__all__ = ["AffineProposer", "FUNCTIONS", "PHASES", "affine_splits"]

FUNCTIONS = {
    "x": ("{x}", lambda v: v, None),
    "sin": ("sin({x})", np.sin, None),
    "cos": ("cos({x})", np.cos, None),
    "exp": ("exp({x})", np.exp, None),
    "exp-": ("exp(-{x})", lambda v: np.exp(-v), None),
    "log": ("log({x})", np.log, "positive"),
    "inv": ("1/{x}", lambda v: 1.0 / v, "nonzero"),
    "square": ("{x}**2", np.square, None),
    "sqrt": ("sqrt({x})", np.sqrt, "nonnegative"),
}
"""h by name: (template text over the input's name, numpy function, domain it needs)."""

PHASES = {
    "sin": ("sin({x} - {z})", np.sin),
    "cos": ("cos({x} - {z})", np.cos),
}
"""h of a difference of two inputs by name, a phase (x5 - x6 in
1 + sqrt(1 + 2 x3^2 x4 / (x1 x2^2)) cos(x5 - x6)): (template text over the inputs' names,
numpy function). y affine in cos(x_i - x_k) is affine in no function of x_i alone."""


def _domain_ok(v: np.ndarray, need: str | None) -> bool:
    if need == "positive":
        return bool(np.all(v > 0))
    if need == "nonzero":
        return bool(np.all(np.abs(v) > 1e-3 * np.max(np.abs(v))))
    if need == "nonnegative":
        return bool(np.all(v >= 0))
    return True


def _sse(D: np.ndarray, t: np.ndarray) -> float:
    coef, *_ = np.linalg.lstsq(D, t, rcond=None)
    r = t - D @ coef
    return float(r @ r)


def affine_splits(X: np.ndarray, y: np.ndarray, rows=None, tuning: Tuning = TUNING) -> list[tuple[tuple[int, ...], str, float, bool]]:
    """[(inputs, function name, unexplained share, whether A is not needed)] of the splits
    y = A(x_R) + B(x_R) h(x_j) (inputs (j,), h of :data:`FUNCTIONS`) or B(x_R) h(x_i - x_k)
    (inputs (i, k), h of :data:`PHASES`) that fire (module docstring), best first; fitted on
    ``rows`` (default all). Without A (B h alone leaves at most twice the error, plus ``affine_offset``)
    y is the product
    B(x_R) h(x_j), solved so: sin(x1) cos(x2) e^x3 changes sign, and log|y| is no sum there."""
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows)
    n, m = int(rows.size), X.shape[1]
    if m < 2 or n < 20 * m:
        return []
    Xr, t = X[rows], y[rows]
    if not np.all(np.isfinite(t)):
        return []
    sd = Xr.std(axis=0)
    if np.any(sd == 0):
        return []
    Z = (Xr - Xr.mean(axis=0)) / sd
    sst = float(np.sum((t - t.mean()) ** 2))
    if not sst > 0:
        return []
    candidates = [((j,), name, h, _domain_ok(Xr[:, j], need))
                  for j in range(m) for name, (_, h, need) in FUNCTIONS.items()]
    candidates += [((i, k), name, h, True)
                   for i in range(m) for k in range(i + 1, m) for name, (_, h) in PHASES.items()]
    out = []
    polynomials: dict = {}  # A and B's columns over the other inputs, one per set of inputs split on
    for inputs, name, h, ok in candidates:
        if not ok:
            continue
        with np.errstate(all="ignore"):
            v = h(Xr[:, inputs[0]] if len(inputs) == 1 else Xr[:, inputs[0]] - Xr[:, inputs[1]])
        if not np.all(np.isfinite(v)) or np.std(v) == 0:
            continue
        if inputs not in polynomials:
            polynomials[inputs] = _polynomial(Z[:, [k for k in range(m) if k not in inputs]], n)
        P = polynomials[inputs]
        raw = v / v.std()
        v = raw - raw.mean()
        sse = _sse(np.column_stack([P, P * v[:, None]]), t)
        if sse > (1.0 - tuning.affine_explained) * sst:
            continue
        own = [Z[:, j] ** d for j in inputs for d in (1, 2, 3)]
        additive = _sse(np.column_stack([P, *own, v]), t)
        if additive > tuning.affine_additive * sst and sse <= tuning.affine_gain * additive:
            scaled = _sse(P * raw[:, None], t)  # no A: y = B(x_R) h(x_j), a product of parts
            out.append((inputs, name, sse / sst, bool(scaled <= 2.0 * sse + tuning.affine_offset * sst)))
    return sorted(out, key=lambda r: r[2])


def _polynomial(Z: np.ndarray, n: int) -> np.ndarray:
    """The monomials of the columns of Z up to the largest degree (at most 4) whose A and B
    have at most n / 4 coefficients together."""
    degree = 4
    while degree > 1 and 2 * monomials(np.zeros((1, Z.shape[1])), degree).shape[1] > n / 4:
        degree -= 1
    return monomials(Z, degree)


class AffineProposer:
    name = "affine"

    def propose(self, search: Search, pool: list[Candidate]) -> list[Candidate]:
        m = search.n_inputs
        out: list[Candidate] = []
        for inputs, name, _, product in affine_splits(search.X, search.y, search.points.fit, search.tuning)[:search.tuning.affine_keep]:
            if search.effort.exhausted():
                break
            rest = ", ".join(f"x{k + 1}" for k in range(m) if k not in inputs)
            h = (FUNCTIONS[name][0].format(x=f"x{inputs[0] + 1}") if len(inputs) == 1 else
                 PHASES[name][0].format(x=f"x{inputs[0] + 1}", z=f"x{inputs[1] + 1}"))
            text = f"{'' if product else f'f({rest}) + '}g({rest})*{h}"
            out += solve_template(search, read_template(text, m), pool + out, self.name, "affine-part")
        return out
