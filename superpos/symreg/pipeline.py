"""One data set's formula: the work behind :meth:`superpos.SuperposRegressor.fit` and
``superpos predict``, read top-down in :func:`find_formula`.

The structure predictor ranks the ``top_k`` most likely skeletons, duplicates are dropped,
every skeleton's constants are fitted on part of the points and scored on the rest, local
search (optional) fits the trees one edit away from the best ones, the winner (ties: the
smaller tree) is refitted on all points, near-rational constants are snapped when the fit
does not suffer, and sympy simplifies the result under a time cap. Kept free of
scikit-learn imports so that the command line starts fast.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.dataset import check_dataset
from ..core.symbolic import to_sympy
from ..core.tree import evaluate
from ..exceptions import SuperposError
from ..structure.shipped import load_predictor
from .candidates import Candidate, Points, fit_candidates, unique_trees
from .fitting import refit_constants, snap_constants
from .render import round_constants, simplify_capped
from .search import local_search
from .selection import rank_candidates
from .settings import FormulaSettings

__all__ = ["Formula", "find_formula", "propose_skeletons", "selection_sample"]

_MODEL_POINTS = 200
"""The structure model sees at most this many points: its corpus has data sets of 20-200
points, and features such as log n and the curve's smoothing window depend on n."""


@dataclass
class Formula:
    """A data set's formula: ``expr`` (sympy, fitted constants), the winning prefix ``tree``
    and its ``constants``, every fitted ``candidates`` best first, and ``timings`` (seconds
    spent decoding, fitting candidates, refitting the winner, simplifying)."""

    expr: sympy.Expr
    tree: np.ndarray
    constants: np.ndarray
    basis_names: list
    candidates: list[Candidate] = field(repr=False)
    timings: dict = field(repr=False)

    def predict(self, X) -> np.ndarray:
        """The formula's values at X (n, m); NaN where it is undefined."""
        return evaluate(self.tree, Basis(self.basis_names), np.asarray(X, dtype=np.float64), self.constants)


def find_formula(X, y, predictor=None, settings: FormulaSettings | None = None, *, progress=None,
                 **options) -> Formula:
    """The formula behind (X (n, m), y (n,)). ``settings`` (or the same as keyword
    ``options``, e.g. ``top_k=200, search_rounds=2``) are checked before any work.
    Data sets of more than ``settings.max_points`` points choose their formula on a sample
    of that many (:func:`selection_sample`); the winner is refitted on all points.
    ``progress(stage)`` is told when each stage starts."""
    report = progress if progress is not None else (lambda stage: None)
    if settings is not None and options:
        raise SuperposError("pass either settings=FormulaSettings(...) or keyword settings, not both")
    settings = settings if settings is not None else FormulaSettings.from_options(**options)
    X, y = check_dataset(X, y)
    model = load_predictor(predictor)
    basis = model.basis_
    if X.shape[1] > basis.n_variables:
        raise SuperposError(f"the data has {X.shape[1]} input variables but the model's basis has "
                            f"{basis.n_variables} (x1..x{basis.n_variables}); use a model trained on more variables")
    rng = np.random.default_rng(settings.random_state)
    seed = int(rng.integers(2**31))
    clock = _Clock()

    report("decoding")
    sample = selection_sample(X, y, settings.max_points, rng)
    Xs, ys = X[sample], y[sample]
    shown = selection_sample(Xs, ys, _MODEL_POINTS, rng)  # the size of data set the model was trained on
    L = model.log_theta_for(Xs[shown], ys[shown])
    ranked = propose_skeletons(model, L, X.shape[1], settings)
    clock.lap("decode")

    report("fitting candidates")
    points = Points.split(Xs, ys, settings.validation_fraction, rng)
    rtol = settings.tie_tolerance(points.n_validation)
    cands = rank_candidates(fit_candidates(ranked, basis, points, settings, seed), rtol)
    if settings.search_rounds:
        bonus = model.size_bonus_ if settings.candidate_bonus is None else settings.candidate_bonus
        cands = local_search(cands, L + bonus, basis, points, settings, seed)
    clock.lap("fit_candidates")

    report("refitting on all points")
    win = cands[0]
    subsampled = sample.size < X.shape[0]
    constants = refit_constants(win.tree, basis, X, y, win.constants, 0 if subsampled else settings.n_starts,
                                settings.lm_iterations, seed)
    constants = snap_constants(win.tree, basis, X, y, constants)
    clock.lap("refit")

    report("simplifying")
    expr = round_constants(to_sympy(win.tree, basis, constants), digits=12, max_denominator=12, keep_floats=True)
    expr = simplify_capped(expr, float(settings.simplify_seconds))
    clock.lap("simplify")
    return Formula(expr, np.asarray(win.tree, dtype=np.int64), np.asarray(constants, dtype=np.float64),
                   basis.to_list(), cands, clock.laps)


def selection_sample(X: np.ndarray, y: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of at most ``m`` points that choose the formula: all points when there are no
    more, else the extremes of every input and of the target (so the sample spans each
    input's range) and a uniform random draw for the rest, in their original order."""
    n = X.shape[0]
    if n <= m:
        return np.arange(n)
    ends = np.unique(np.concatenate([X.argmin(axis=0), X.argmax(axis=0), [y.argmin(), y.argmax()]]))
    rest = np.setdiff1d(rng.choice(n, m, replace=False), ends)[:max(0, m - ends.size)]
    return np.sort(np.concatenate([ends, rest]))


def propose_skeletons(model, L: np.ndarray, n_variables: int, settings: FormulaSettings) -> list:
    """The ``top_k`` most likely distinct skeletons under log theta ``L`` over the data's
    ``n_variables`` inputs, [(rank, log-likelihood + bonus, tree)], best first."""
    ranked = unique_trees(model.decode(L, settings.top_k, size_bonus=settings.candidate_bonus), model.basis_,
                          n_variables)
    if not ranked:
        raise SuperposError("the model proposed no formula over this data's variables")
    return ranked


class _Clock:
    """Seconds per named stage, each lap measured from the previous one."""

    def __init__(self):
        self.laps: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        t = time.perf_counter()
        self.laps[name] = t - self._t
        self._t = t
