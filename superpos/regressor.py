"""SuperposRegressor: a scikit-learn regressor that finds a formula for one data set.

fit(X, y): the structure predictor ranks the ``top_k`` most likely skeletons, duplicates
(alike under sympy) are dropped, every skeleton's constants are fitted on part of the
points and scored on the rest, the winner (ties: the smaller tree) is refitted on all
points, near-rational constants are snapped when the fit does not suffer, and sympy
simplifies the result under a time cap.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import sympy
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .basis import Basis
from .constants import Skeleton, fit_constants, nmse, refine_constants, snap_constants
from .search import depths_and_scores, neighbours
from .selection import (fit_candidates, round_constants, selection_order, simplify_capped, split_points,
                        structural_key, unique_trees)
from .exceptions import SuperposError
from .features import check_dataset

__all__ = ["SuperposRegressor", "decode_candidates", "default_model_path", "load_predictor"]

_CACHE: dict = {}


def default_model_path() -> Path:
    """Where the shipped default model lives: ``superpos/models/default.npz``."""
    return Path(__file__).parent / "models" / "default.npz"


def load_predictor(predictor=None):
    """A fitted StructurePredictor from None (the shipped default), a path or an instance.

    Paths are loaded once per file version (cached by path and modification time).
    A ``sklearn.frozen.FrozenEstimator`` around a predictor is unwrapped."""
    from .predictor import StructurePredictor

    if predictor is None:
        path = default_model_path()
        if not path.is_file():
            raise SuperposError(f"no default model is installed ({path} is missing): pass "
                                "predictor=StructurePredictor(...).fit(corpus) or the path of a saved model")
        predictor = path
    if isinstance(predictor, (str, os.PathLike)):
        path = Path(predictor)
        if not path.is_file():
            raise SuperposError(f"{path}: no such model file")
        key = (str(path.resolve()), path.stat().st_mtime_ns)
        if key not in _CACHE:
            _CACHE.clear()
            _CACHE[key] = StructurePredictor.load(path)
        return _CACHE[key]
    inner = getattr(predictor, "estimator", None)
    if type(predictor).__name__ == "FrozenEstimator" and inner is not None:
        predictor = inner
    if not hasattr(predictor, "predict_trees"):
        raise SuperposError(f"predictor must be None, a model path or a StructurePredictor, got {type(predictor).__name__}")
    if not hasattr(predictor, "classifier_"):
        raise SuperposError("the StructurePredictor is not fitted (scikit-learn's clone() drops its training): "
                            "fit it, or pass its saved path or sklearn.frozen.FrozenEstimator(predictor)")
    return predictor


def decode_candidates(predictor, X, y, k: int, size_bonus: float | None = None):
    """The k most likely trees for (X, y), [(log-likelihood + size bonus, tree)], best first.
    Input variables the data does not have (x_j, j > X.shape[1]) get probability 0 before
    decoding, so no rank is spent on trees that cannot be evaluated. ``size_bonus`` (per
    edge) overrides the predictor's own."""
    return predictor.decode(_log_theta_for(predictor, X, y), k, size_bonus=size_bonus)


def _log_theta_for(predictor, X, y) -> np.ndarray:
    """log theta for (X, y), with the variables the data does not have at -inf."""
    L = predictor.log_theta([(X, y)])[0]
    absent = [j for j, f in enumerate(predictor.basis_.functions) if f.kind == "variable" and f.index >= X.shape[1]]
    if absent:
        L = L.copy()
        L[..., absent] = -np.inf
    return L


class SuperposRegressor(RegressorMixin, BaseEstimator):
    """Symbolic regression for one data set, guided by a trained structure predictor.

    Parameters
    ----------
    predictor : None (the shipped default model), the path of a saved
        :class:`~superpos.StructurePredictor`, or a fitted one.
    top_k : skeletons taken from the decoder, most likely first.
    candidate_bonus : per-edge bonus added to log theta when listing the candidates (None:
        the predictor's own, tuned for the single best tree). The likelihood ranks larger
        trees too low; the data arbitrates between candidates anyway, so a wider list costs
        little: 0.3 and 0.6 tie with 0 on held-out generated formulas (R^2 > 0.99 on 0.89-0.905
        of them at k = 200) and 0.6 fits 9 of 11 Nguyen problems to R^2 > 0.99 at k = 200
        against 6 with 0 (README).
    search_rounds : rounds of local search after the decoder's candidates are fitted (0: none):
        each round fits every tree one edit away from the ``search_seeds`` best-fitting
        candidates (:mod:`superpos.search`), which finds formulas the model ranks too low;
        about 0.1-0.2 s per round.
    validation_fraction : share of the points held out to choose between skeletons
        (data sets of fewer than 8 points are fitted and scored on all points).
    n_starts, max_iter : starts and iterations of the constant fit per skeleton.
    simplify_seconds : wall-clock cap on ``sympy.simplify`` of the winner (0: skip).
    tie_rtol : validation errors within this relative distance of the best count as a tie;
        ties go to the simpler tree (nodes + free constants), then the more likely one.
        "auto": one standard error of a mean squared error over the n_v validation points,
        sqrt(2 / n_v) (the one-standard-error rule; 0.63 for 5 points, 0.28 for 25), which
        suits noisy data; the default 0.05 suits exact data, where the error of a wrong
        formula is bias, not noise.
    random_state : seeds the split of the points and the random starts.

    Attributes
    ----------
    expr_ : sympy expression with the fitted constants (symbols x1, x2, ...).
    tree_, constants_ : the winning prefix tree and its constants (what ``predict`` uses).
    candidates_ : list of :class:`superpos.selection.Candidate`, best first: ``formula``,
        ``log_likelihood``, ``r2_validation``, ``size``, ``rank`` (decoder rank).
    n_features_in_ : number of input columns.
    timings_ : seconds spent in decoding, fitting, refitting and simplifying.
    """

    def __init__(self, predictor=None, top_k: int = 200, candidate_bonus: float | None = 0.6,
                 search_rounds: int = 0, search_seeds: int = 10,
                 validation_fraction: float = 0.25, n_starts: int = 4, max_iter: int = 40,
                 simplify_seconds: float = 1.0, tie_rtol=0.05, random_state=None):
        self.predictor = predictor
        self.top_k = top_k
        self.candidate_bonus = candidate_bonus
        self.search_rounds = search_rounds
        self.search_seeds = search_seeds
        self.validation_fraction = validation_fraction
        self.n_starts = n_starts
        self.max_iter = max_iter
        self.simplify_seconds = simplify_seconds
        self.tie_rtol = tie_rtol
        self.random_state = random_state

    def _tie_rtol(self, n_val: int) -> float:
        if isinstance(self.tie_rtol, str):
            if self.tie_rtol != "auto":
                raise SuperposError(f"tie_rtol must be a number >= 0 or 'auto', got {self.tie_rtol!r}")
            return float(np.sqrt(2.0 / max(n_val, 1)))
        if float(self.tie_rtol) < 0:
            raise SuperposError(f"tie_rtol must be >= 0, got {self.tie_rtol!r}")
        return float(self.tie_rtol)

    def _check_params(self):
        if not (isinstance(self.top_k, (int, np.integer)) and self.top_k >= 1):
            raise SuperposError(f"top_k must be an integer >= 1, got {self.top_k!r}")
        if not 0.0 <= float(self.validation_fraction) < 1.0:
            raise SuperposError(f"validation_fraction must be in [0, 1), got {self.validation_fraction!r}")
        if int(self.search_rounds) < 0 or int(self.search_seeds) < 1:
            raise SuperposError("search_rounds must be >= 0 and search_seeds >= 1")
        if int(self.n_starts) < 1 or int(self.max_iter) < 0:
            raise SuperposError("n_starts must be >= 1 and max_iter >= 0")
        self._tie_rtol(1)

    def fit(self, X, y):
        """Find the formula; returns self."""
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        self._check_params()
        if X.shape[0] < 5:
            raise SuperposError(f"SuperposRegressor needs at least 5 points; got n_samples = {X.shape[0]}")
        X, y = check_dataset(X, y)
        pred = load_predictor(self.predictor)
        basis = pred.basis_
        if X.shape[1] > basis.n_variables:
            raise SuperposError(f"the data has {X.shape[1]} input variables but the model's basis has "
                                f"{basis.n_variables} (x1..x{basis.n_variables}); use a model trained on more variables")
        rng = np.random.default_rng(self.random_state)
        seed = int(rng.integers(2**31))
        t0 = time.perf_counter()
        L = _log_theta_for(pred, X, y)
        ranked = unique_trees(pred.decode(L, int(self.top_k), size_bonus=self.candidate_bonus), basis, X.shape[1])
        t1 = time.perf_counter()
        if not ranked:
            raise SuperposError("the model proposed no formula over this data's variables")
        fit_idx, val_idx = split_points(X.shape[0], float(self.validation_fraction), rng)
        cands = fit_candidates(ranked, basis, X, y, fit_idx, val_idx, n_starts=int(self.n_starts),
                               max_iter=int(self.max_iter), random_state=seed)
        rtol = self._tie_rtol(len(val_idx))
        cands = [cands[k] for k in selection_order(cands, rtol=rtol)]
        if int(self.search_rounds):
            bonus = pred.size_bonus_ if self.candidate_bonus is None else float(self.candidate_bonus)
            cands = self._search(cands, L + bonus, basis, X, y, fit_idx, val_idx, seed, rtol)
        t2 = time.perf_counter()
        win = cands[0]
        sk = Skeleton(win.tree, basis)
        constants = win.constants
        if sk.n_constants:
            res = fit_constants(sk, X, y, n_starts=int(self.n_starts), max_iter=int(self.max_iter),
                                init=constants, random_state=seed)
            with np.errstate(all="ignore"):
                before = nmse(y, sk.evaluate(X, constants))
            if res.nmse <= before or not np.isfinite(before):
                constants = res.constants
            constants = refine_constants(sk, X, y, constants).constants
            constants = snap_constants(sk, X, y, constants)
        t3 = time.perf_counter()
        expr = round_constants(sk.sympy(constants), digits=12, max_denominator=12, keep_floats=True)
        expr = simplify_capped(expr, float(self.simplify_seconds))
        t4 = time.perf_counter()
        self.tree_ = np.asarray(win.tree, dtype=np.int64)
        self.constants_ = np.asarray(constants, dtype=np.float64)
        self.basis_names_ = basis.to_list()
        self.expr_ = expr
        self.candidates_ = cands
        self.timings_ = {"decode": t1 - t0, "fit_candidates": t2 - t1, "refit": t3 - t2, "simplify": t4 - t3}
        return self

    def _search(self, cands, S, basis, X, y, fit_idx, val_idx, seed, rtol):
        """Local search rounds (see ``search_rounds``); candidates come back best first.
        New trees may be one level deeper than the deepest candidate."""
        seen_raw: set = set()
        seen = {structural_key(c.tree, basis) for c in cands}
        max_depth = int(depths_and_scores(S, [c.tree for c in cands], basis.arities)[0].max()) + 1
        for _ in range(int(self.search_rounds)):
            new = []
            for c in cands[:int(self.search_seeds)]:
                for t in neighbours(c.tree, basis, X.shape[1]):
                    raw = t.tobytes()
                    if raw in seen_raw:
                        continue
                    seen_raw.add(raw)
                    key = structural_key(t, basis)
                    if key not in seen:
                        seen.add(key)
                        new.append(t)
            depth, score = depths_and_scores(S, new, basis.arities)
            keep = np.flatnonzero(depth <= max_depth)
            if not keep.size:
                break
            ranked = [(len(cands) + r, float(score[j]), new[j]) for r, j in enumerate(keep)]
            cands = cands + fit_candidates(ranked, basis, X, y, fit_idx, val_idx, n_starts=int(self.n_starts),
                                           max_iter=int(self.max_iter), random_state=seed)
            cands = [cands[k] for k in selection_order(cands, rtol=rtol)]
        return cands

    def predict(self, X) -> np.ndarray:
        """The formula's values at X (n, n_features_in_); NaN where it is undefined."""
        check_is_fitted(self, "expr_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return Skeleton(self.tree_, Basis(self.basis_names_)).evaluate(X, self.constants_)

    def sympy(self) -> sympy.Expr:
        """The fitted formula as a sympy expression."""
        check_is_fitted(self, "expr_")
        return self.expr_

    def latex(self) -> str:
        """The fitted formula in LaTeX."""
        return sympy.latex(self.sympy())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.regressor_tags.poor_score = True
        return tags
