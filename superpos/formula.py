"""One data set's formula, found without scikit-learn: the work behind
:meth:`superpos.SuperposRegressor.fit` and ``superpos predict``.

The structure predictor ranks the ``top_k`` most likely skeletons, duplicates are dropped,
every skeleton's constants are fitted on part of the points and scored on the rest, local
search (optional) fits the trees one edit away from the best ones, the winner (ties: the
smaller tree) is refitted on all points, near-rational constants are snapped when the fit
does not suffer, and sympy simplifies the result under a time cap. Kept free of
scikit-learn imports so that the command line starts fast.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sympy

from .basis import Basis
from .constants import Skeleton, fit_constants, nmse, refine_constants, snap_constants
from .exceptions import SuperposError
from .features import check_dataset
from .search import depths_and_scores, neighbours
from .selection import (Candidate, fit_candidates, round_constants, selection_order, simplify_capped,
                        split_points, structural_key, unique_trees)

__all__ = ["Formula", "find_formula", "decode_candidates", "default_model_path", "load_predictor"]

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
        return Skeleton(self.tree, Basis(self.basis_names)).evaluate(np.asarray(X, dtype=np.float64), self.constants)


def tie_tolerance(tie_rtol, n_val: int) -> float:
    """The relative tie tolerance: a number >= 0, or "auto" = sqrt(2 / n_v)."""
    if isinstance(tie_rtol, str):
        if tie_rtol != "auto":
            raise SuperposError(f"tie_rtol must be a number >= 0 or 'auto', got {tie_rtol!r}")
        return float(np.sqrt(2.0 / max(n_val, 1)))
    if float(tie_rtol) < 0:
        raise SuperposError(f"tie_rtol must be >= 0, got {tie_rtol!r}")
    return float(tie_rtol)


def check_settings(top_k, validation_fraction, search_rounds, search_seeds, n_starts, max_iter, tie_rtol) -> None:
    if not (isinstance(top_k, (int, np.integer)) and top_k >= 1):
        raise SuperposError(f"top_k must be an integer >= 1, got {top_k!r}")
    if not 0.0 <= float(validation_fraction) < 1.0:
        raise SuperposError(f"validation_fraction must be in [0, 1), got {validation_fraction!r}")
    if int(search_rounds) < 0 or int(search_seeds) < 1:
        raise SuperposError("search_rounds must be >= 0 and search_seeds >= 1")
    if int(n_starts) < 1 or int(max_iter) < 0:
        raise SuperposError("n_starts must be >= 1 and max_iter >= 0")
    tie_tolerance(tie_rtol, 1)


def find_formula(X, y, predictor=None, *, top_k: int = 200, candidate_bonus: float | None = 0.6,
                 search_rounds: int = 0, search_seeds: int = 10, validation_fraction: float = 0.25,
                 n_starts: int = 4, max_iter: int = 40, simplify_seconds: float = 1.0, tie_rtol=0.05,
                 random_state=None) -> Formula:
    """The formula behind (X (n, m), y (n,)); the settings are :class:`SuperposRegressor`'s."""
    check_settings(top_k, validation_fraction, search_rounds, search_seeds, n_starts, max_iter, tie_rtol)
    X, y = check_dataset(X, y)
    pred = load_predictor(predictor)
    basis = pred.basis_
    if X.shape[1] > basis.n_variables:
        raise SuperposError(f"the data has {X.shape[1]} input variables but the model's basis has "
                            f"{basis.n_variables} (x1..x{basis.n_variables}); use a model trained on more variables")
    rng = np.random.default_rng(random_state)
    seed = int(rng.integers(2**31))
    t0 = time.perf_counter()
    L = _log_theta_for(pred, X, y)
    ranked = unique_trees(pred.decode(L, int(top_k), size_bonus=candidate_bonus), basis, X.shape[1])
    t1 = time.perf_counter()
    if not ranked:
        raise SuperposError("the model proposed no formula over this data's variables")
    fit_idx, val_idx = split_points(X.shape[0], float(validation_fraction), rng)
    effort = dict(n_starts=int(n_starts), max_iter=int(max_iter), random_state=seed)
    cands = fit_candidates(ranked, basis, X, y, fit_idx, val_idx, **effort)
    rtol = tie_tolerance(tie_rtol, len(val_idx))
    cands = [cands[k] for k in selection_order(cands, rtol=rtol)]
    if int(search_rounds):
        bonus = pred.size_bonus_ if candidate_bonus is None else float(candidate_bonus)
        cands = _search(cands, L + bonus, basis, X, y, fit_idx, val_idx, rtol, int(search_rounds),
                        int(search_seeds), effort)
    t2 = time.perf_counter()
    win = cands[0]
    sk = Skeleton(win.tree, basis)
    constants = win.constants
    if sk.n_constants:
        res = fit_constants(sk, X, y, init=constants, **effort)
        with np.errstate(all="ignore"):
            before = nmse(y, sk.evaluate(X, constants))
        if res.nmse <= before or not np.isfinite(before):
            constants = res.constants
        constants = refine_constants(sk, X, y, constants).constants
        constants = snap_constants(sk, X, y, constants)
    t3 = time.perf_counter()
    expr = round_constants(sk.sympy(constants), digits=12, max_denominator=12, keep_floats=True)
    expr = simplify_capped(expr, float(simplify_seconds))
    t4 = time.perf_counter()
    return Formula(expr, np.asarray(win.tree, dtype=np.int64), np.asarray(constants, dtype=np.float64),
                   basis.to_list(), cands,
                   {"decode": t1 - t0, "fit_candidates": t2 - t1, "refit": t3 - t2, "simplify": t4 - t3})


def _search(cands, S, basis, X, y, fit_idx, val_idx, rtol, rounds, n_seeds, effort):
    """Local search (``search_rounds``): each round fits every tree one edit away from the
    ``n_seeds`` best candidates; candidates come back best first. New trees may be one
    level deeper than the deepest candidate."""
    seen_raw: set = set()
    seen = {structural_key(c.tree, basis) for c in cands}
    max_depth = int(depths_and_scores(S, [c.tree for c in cands], basis.arities)[0].max()) + 1
    for _ in range(rounds):
        new = []
        for c in cands[:n_seeds]:
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
        cands = cands + fit_candidates(ranked, basis, X, y, fit_idx, val_idx, **effort)
        cands = [cands[k] for k in selection_order(cands, rtol=rtol)]
    return cands
