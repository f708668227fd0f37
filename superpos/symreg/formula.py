"""A data set's formula as :func:`~superpos.symreg.pipeline.find_formula` returns it, and its
evaluation (through its rescaled twin for data beyond 10^±100)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.tree import evaluate
from .candidates import Candidate
from .render import distinct_formulas, rename_variables
from .uncertainty import pareto_front
from .decades import expr_in_data_scale, times_ten_power

__all__ = ["Formula", "evaluate_formula"]


@dataclass
class Formula:
    """A data set's formula: ``expr`` (sympy, fitted constants), the winning prefix ``tree``
    and its ``constants`` with their ``standard_errors``, every fitted ``candidates`` best
    first, ``confidence`` (the share of bootstrap resamples of the validation points on which
    this structure still wins), ``noise`` (the residual standard deviation on all points) and
    ``timings`` (seconds spent decoding, fitting candidates, refitting the winner, simplifying),
    ``inputs`` (the data columns the formula reads, 0-based) and ``left_out`` ([(column, F)]
    of unused inputs that still explain part of the residuals,
    :func:`~superpos.symreg.inputs.residual_dependence`) and ``status``.
    :meth:`pareto_front` gives the accuracy-complexity front."""

    expr: sympy.Expr
    tree: np.ndarray
    constants: np.ndarray
    basis_names: list
    candidates: list[Candidate] = field(repr=False)
    timings: dict = field(repr=False)
    standard_errors: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    confidence: float = float("nan")
    noise: float = float("nan")
    inputs: list = field(default_factory=list)
    left_out: list = field(default_factory=list)
    status: str = "approximation"
    """``exact`` (to the data's precision), ``law`` (residuals with no structure left) or
    ``approximation`` (:mod:`~superpos.symreg.status`)."""
    family: str = ""
    """The lab curve the formula is (:mod:`~superpos.symreg.families`: "gaussian", "hill", ...), or ""."""
    parameters: dict = field(default_factory=dict)
    """A family's named parameters (amplitude, center, sigma, ...), else empty."""
    textbook: str = ""
    """A family's formula in its textbook form, over x1, x2, ... (``expr`` is the same function as sympy
    writes it), else ""."""
    precision_threshold: float = field(default=1e-10, repr=False)
    """The normalised error under which a formula is exact to the data's precision."""
    scales: tuple | None = field(default=None, repr=False)
    """For data beyond 10^±100 (:func:`~superpos.symreg.decades.extreme_decades`): (tree,
    constants, k_x, k_y) of the formula as found on the data divided by 10^k; :meth:`predict`
    evaluates it there and scales back, so that no intermediate value under- or overflows.
    ``expr`` is always in the data's units; ``tree`` and ``constants`` are too where the
    formula has a tree over the basis in them with finite constants, else they are the
    rescaled ones (``tree is scales[0]``)."""
    decomposition: str = field(default="", repr=False)
    """"sum" or "product" where the formula was solved part by part over disjoint groups of
    inputs (:mod:`~superpos.symreg.separable`), else ""."""
    parts: list = field(default_factory=list, repr=False)
    """[(inputs (0-based), part as sympy)] of such a formula: its terms or factors by group."""
    trace: object = field(default=None, repr=False)
    """The search's :class:`~superpos.symreg.trace.Trace`: what each proposer of each context
    did, and what chose the winner."""
    alike: list = field(default_factory=list, repr=False)
    """Finalists the data cannot tell from the formula that are another function beyond the
    data (a law and its expansion on a narrow domain, two curves through noisy points):
    :meth:`alike_formulas` shows them."""
    dimensions: object = field(default=None, repr=False)
    """With the columns' units: :class:`~superpos.core.dimensions.Dimensional` of ``expr``
    (whether its units agree, which constant carries which unit); None without units."""

    @property
    def complexity(self) -> int:
        """Nodes plus fitted constants of the tree (the front's measure)."""
        return int(np.size(self.tree) + np.size(self.constants))

    def pareto_front(self, names: list[str] | None = None) -> list[tuple[int, float, sympy.Expr]]:
        """(complexity, validation error, formula) of the candidates no other beats on both,
        simplest first (:func:`~superpos.symreg.uncertainty.pareto_front`)."""
        return pareto_front(self.candidates, names, self._shown())

    def distinct_candidates(self, limit: int, names: list[str] | None = None) -> list[tuple[Candidate, sympy.Expr]]:
        """The first ``limit`` candidates of distinct cleaned formulas, in the data's units:
        [(candidate, formula)] (:func:`~superpos.symreg.render.distinct_formulas`)."""
        return distinct_formulas(self.candidates, limit, names, self._shown())

    def alike_formulas(self, names: list[str] | None = None) -> list[sympy.Expr]:
        """The :attr:`alike` finalists as formulas, in the data's units and column ``names``."""
        return [e for _, e in distinct_formulas(self.alike, len(self.alike), names, self._shown())]

    def _shown(self):
        """How a candidate's formula is shown: as it is, or for data rescaled by powers of ten
        (``scales``) written back in the data's units."""
        if self.scales is None:
            return None
        kx, ky = self.scales[2], self.scales[3]
        return lambda expr: expr_in_data_scale(expr, kx, ky)

    def shown(self, names: list[str] | None = None) -> str:
        """The formula as text: the textbook form of a family, else ``expr``, in the data's
        column ``names`` (default x1, x2, ...)."""
        if not self.textbook:
            return str(rename_variables(self.expr, names) if names else self.expr)
        if not names:
            return self.textbook
        return re.sub(r"\bx([1-9][0-9]*)\b", lambda m: names[int(m.group(1)) - 1]
                      if int(m.group(1)) <= len(names) else m.group(0), self.textbook)

    def predict(self, X) -> np.ndarray:
        """The formula's values at X (n, m); NaN where it is undefined."""
        return evaluate_formula(self.tree, self.basis_names, self.constants, self.scales, X)


def evaluate_formula(tree, basis_names, constants, scales, X) -> np.ndarray:
    """A :class:`Formula`'s values at X, through its rescaled twin where it has one."""
    X = np.asarray(X, dtype=np.float64)
    if scales is None:
        return evaluate(tree, Basis(basis_names), X, constants)
    work_tree, work_constants, kx, ky = scales
    with np.errstate(all="ignore"):
        return times_ten_power(evaluate(work_tree, Basis(basis_names), times_ten_power(X, -kx), work_constants), ky)
