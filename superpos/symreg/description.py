"""Description length: the code length, in nats, of the data under a formula, after the
minimum-description-length criterion of Exhaustive Symbolic Regression (Bartlett, Desmond &
Ferreira 2023),

    L = -log L(D | theta) + sum_i max(0, log(|theta_i| sqrt(I_ii / 3))) + L(numbers) + L(structure),

- the data: the Gaussian negative log-likelihood n/2 log(2 pi s^2) + SSE / (2 s^2) under one
  noise variance s^2 for the data set (not per formula), at least the data's precision;
- each free constant at the precision the data determine it (I = J^T J / s^2, the Fisher
  information; a constant the data cannot tell from 0 costs nothing); a constant snapped to a
  simple value (:func:`~superpos.symreg.fitting.snap_constants`) costs its number instead:
  log 2 (sign) + log(1 + |p|) + log q for p/q, once more log 2 for a multiple of pi, d log 10 +
  log(1 + |e|) for a decimal of d digits and exponent e;
- the structure: -log P(tree) under the structure model where it scored the tree (with the
  decoder's size bonus: one scale), or ESR's explicit code, k log(n) for k nodes drawn from the
  n distinct symbols of the tree, whichever is shorter (a law's function pays for its name in
  n). Sums of library terms are trees like any other here: their terms pay for their nodes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.basis import Basis
from ..core.constants import number_code
from ..core.tree import evaluate
from .candidates import Candidate
from .fitting import jacobian

__all__ = ["CodeLength", "code_length", "number_code", "structure_code"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class CodeLength:
    """The parts of a description length, in nats: ``data``, ``constants`` (free and snapped),
    ``structure``; ``total`` their sum."""

    data: float
    constants: float
    structure: float

    @property
    def total(self) -> float:
        return self.data + self.constants + self.structure


def structure_code(c: Candidate, model_scored: bool) -> float:
    """Nats of the tree: ESR's k log(n) (k nodes, n distinct symbols in it), or -log P(tree)
    under the structure model where it scored the tree and that is shorter."""
    tree = np.asarray(c.tree)
    explicit = tree.size * math.log(max(2, np.unique(tree).size))
    if model_scored and math.isfinite(c.log_likelihood):
        return float(min(explicit, max(0.0, -c.log_likelihood)))
    return float(explicit)


def code_length(c: Candidate, fitted: np.ndarray, snapped: np.ndarray, basis: Basis, X: np.ndarray, y: np.ndarray,
                s2: float, model_scored: bool) -> CodeLength:
    """The description length of candidate ``c`` with constants ``snapped`` (those that differ
    from ``fitted`` were snapped to simple values) on (X, y) under noise variance ``s2``."""
    n = y.size
    with np.errstate(all="ignore"):
        r = y - evaluate(c.tree, basis, X, snapped)
        sse = float(r @ r)
    if not math.isfinite(sse):
        return CodeLength(math.inf, 0.0, structure_code(c, model_scored))
    data = n * (_HALF_LOG_2PI + 0.5 * math.log(s2)) + sse / (2.0 * s2)
    constants = 0.0
    free = [j for j in range(snapped.size) if snapped[j] == fitted[j] or number_code(float(snapped[j])) is None]
    for j in range(snapped.size):
        if j not in free:
            constants += number_code(float(snapped[j]))
    if free:
        info = _fisher_diagonal(c.tree, basis, X, snapped, free) / s2
        for j, ii in zip(free, info):
            v = abs(float(snapped[j]))
            constants += max(0.0, math.log(v * math.sqrt(ii / 3.0))) if v > 0 and ii > 0 and math.isfinite(ii) else 0.0
    return CodeLength(float(data), float(constants), structure_code(c, model_scored))


def _fisher_diagonal(tree, basis: Basis, X: np.ndarray, constants: np.ndarray, which: list[int]) -> np.ndarray:
    """diag(J^T J) for the constants ``which``, J the finite-difference Jacobian of the values."""
    J = jacobian(lambda v: evaluate(tree, basis, X, v), np.asarray(constants, dtype=np.float64), which)
    with np.errstate(all="ignore"):
        out = np.sum(J * J, axis=0)
    return np.where(np.isfinite(out), out, np.inf)
