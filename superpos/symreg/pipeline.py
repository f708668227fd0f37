"""One data set's formula: the work behind :meth:`superpos.SuperposRegressor.fit` and
``superpos predict``, read top-down in :func:`find_formula`.

The structure predictor ranks the ``top_k`` most likely skeletons, duplicates are dropped,
every skeleton's constants are fitted on part of the points and scored on the rest, local
search fits the trees one edit away from the best ones. The model sees the data rescaled by
powers of ten into the decade of magnitudes it knows (:mod:`.units`; the same in any units)
first, then other views of them, its best candidates mapped back to the user's units; data
with more inputs than the model knows are searched on the most related ones, beside affine and power-law
candidates over all (:mod:`.inputs`). Data with 2 or more inputs are also searched in
reduced form (a monomial times a function of few inputs, a dimensionless group, differences:
:mod:`.decompose`), and sums of library terms (:mod:`.terms`) join every search. The
finalists are ranked again by 5-fold cross-validation; the winner (ties: the smaller tree;
absurd formulas lose unless exact) is refitted on all points, constants the data cannot tell
from simple values are snapped, and sympy simplifies the result under a time cap; the
constants' standard errors, the structure's bootstrap confidence, the accuracy-complexity front
and the inputs used come with it. Kept free of scikit-learn imports so that the command line
starts fast.
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from ..core.basis import Basis
from ..core.dataset import check_dataset
from ..core.symbolic import to_sympy
from ..core.tree import evaluate
from ..exceptions import SuperposError
from ..structure.shipped import load_predictor
from .candidates import (Candidate, Points, clear_key_memo, fit_candidates, selection_sample, structural_hashes,
                         unique_trees)
from .decompose import reductions
from .fitting import fit_many, refit_constants, snap_constants
from .render import monic_denominators, round_constants, simplify_capped, wrapped_phases
from .search import local_search
from .selection import cross_validated_finalists, plausible, probe_points, rank_candidates
from .inputs import MAX_INPUTS, inputs_used, power_law_trees, relabel, residual_dependence, select_inputs
from .laws import baseline_trees, fitted_laws, law_basis, laws_with_starts
from .settings import FormulaSettings
from .terms import sum_trees, transformed_sums
from .uncertainty import noise_variance, standard_errors, structure_confidence
from .formula import Formula
from .units import decade_scales, extreme_decades, in_data_units, readable_numbers, times_ten_power, to_user_units

__all__ = ["Formula", "find_formula", "propose_skeletons", "selection_sample"]

_EXACT = 1e-10
"""A normalised validation error this small is exact to the precision data are written with
(1e-13 for the 10 digits of datasets/examples/example.csv): local search, the units pass,
the reductions and the sums of terms are skipped."""

_REDUCTIONS = 3
"""Reductions of the data searched (each costs one search of the model, as much as the data's own)."""

_MODEL_POINTS = 200
"""The structure model sees at most this many points: its corpus has data sets of 20-200
points, and features such as log n and the curve's smoothing window depend on n."""


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
    kx, ky = extreme_decades(X, y)
    if kx.any() or ky:  # found on the data divided by powers of ten, written back in the data's units
        f = _find_formula(times_ten_power(X, -kx), times_ten_power(y, -ky), predictor, settings, report)
        return in_data_units(f, kx, ky)
    return _find_formula(X, y, predictor, settings, report)


def _find_formula(X: np.ndarray, y: np.ndarray, predictor, settings: FormulaSettings, report) -> Formula:
    model = load_predictor(predictor)
    if X.shape[1] > MAX_INPUTS:
        raise SuperposError(f"the data has {X.shape[1]} input variables; superpos takes at most {MAX_INPUTS}: "
                            f"keep the {MAX_INPUTS} you expect in the law (or reduce them, e.g. by PCA) and retry")
    basis = model.basis_ if X.shape[1] <= model.basis_.n_variables else Basis(model.basis_.to_list(), X.shape[1])
    work = law_basis(basis)  # the model's functions, then tanh, asin and acos for the laws
    rng = np.random.default_rng(settings.random_state)
    seed = int(rng.integers(2**31))
    clock = _Clock()

    clear_key_memo()  # within one call only: a repeated fit is timed as a fresh one
    report("decoding")
    sample = selection_sample(X, y, settings.max_points, rng)
    Xs, ys = X[sample], y[sample]
    shown = selection_sample(Xs, ys, _MODEL_POINTS, rng)  # the size of data set the model was trained on
    points = Points.split(Xs, ys, settings.validation_fraction, rng, settings.cross_validate_below)
    rtol = settings.tie_tolerance(points.n_validation)
    report("fitting candidates")
    if basis is model.basis_:
        cands = _model_candidates(model, points, shown, settings, seed, clock)
        if X.shape[1] > 1 and not _exact_first(cands):
            reduced = _reduced_candidates(model, work, points, shown, settings, seed, clock, len(cands))
            cands = _distinct(rank_candidates(cands + reduced, rtol), work)
    else:
        cands = _wide_candidates(model, work, points, shown, settings, seed, clock)
    own, basis = basis, work  # every candidate from here on is a tree over work
    cands = _with_library(cands, basis, points, settings, seed)
    clock.lap("fit_candidates")

    if not _exact_first(cands):
        affine = baseline_trees(basis, X.shape[1])[:1]
        cands = cross_validated_finalists(cands, basis, points, settings, seed, rng, affine)
    clock.lap("fit_candidates")

    report("refitting on all points")
    cands = _plausible_first(cands, basis, Xs, ys)
    win = cands[0]
    subsampled = sample.size < X.shape[0]
    constants = refit_constants(win.tree, basis, X, y, win.constants, 0 if subsampled else settings.n_starts,
                                settings.lm_iterations, seed)
    constants = snap_constants(win.tree, basis, X, y, constants)
    errors = standard_errors(win.tree, basis, X, y, constants)
    noise = float(np.sqrt(noise_variance(win.tree, basis, X, y, constants)))
    confidence = structure_confidence(cands, basis, points, rtol, random_state=seed)
    clock.lap("refit")

    report("simplifying")
    expr = monic_denominators(wrapped_phases(round_constants(to_sympy(win.tree, basis, constants), digits=12,
                                                             max_denominator=12, keep_floats=True)))
    expr = readable_numbers(simplify_capped(expr, float(settings.simplify_seconds)))
    used = inputs_used(win.tree, basis, expr)
    with np.errstate(all="ignore"):
        exact = win.nmse_validation < _EXACT
        left_out = [] if exact else residual_dependence(Xs, ys - evaluate(win.tree, basis, Xs, constants), used)
    clock.lap("simplify")
    # the model's own basis unless the formula needs a law's function (its colours come after)
    names = own.to_list() if int(np.max(win.tree)) < len(own) else basis.to_list()
    return Formula(expr, np.asarray(win.tree, dtype=np.int64), np.asarray(constants, dtype=np.float64),
                   names, cands, clock.laps, errors, confidence, noise, used, left_out)


def _wide_candidates(model, basis: Basis, points: Points, shown: np.ndarray, settings: FormulaSettings, seed: int,
                     clock: "_Clock") -> list[Candidate]:
    """Candidates for data with more inputs than the model knows (``basis``: the model's
    functions over every input): the model searches on the inputs most related to y, its
    trees relabelled onto them, and on the reductions of the data (:func:`_reduced_candidates`);
    beside them the affine formula and power laws over all inputs."""
    k = model.basis_.n_variables
    names = tuple(basis.to_list())
    seen = select_inputs(points.X, points.y, k)
    sub = Points(points.X[:, seen], points.y, points.fit, points.val, points.folds)
    cands = [Candidate(relabel(c.tree, model.basis_, basis, seen), names, c.log_likelihood, c.rank, c.constants,
                       c.nmse_fit, c.nmse_validation)
             for c in _model_candidates(model, sub, shown, settings, seed, clock)]
    if not (cands and min(c.nmse_validation for c in cands) < _EXACT):
        cands += _reduced_candidates(model, basis, points, shown, settings, seed, clock, len(cands))
    floor = min((c.log_likelihood for c in cands), default=0.0) - 1.0
    extra = [(len(cands) + r, floor, t) for r, t in enumerate(baseline_trees(basis, points.X.shape[1])
                                                               + power_law_trees(points.X, points.y, basis))]
    rtol = settings.tie_tolerance(points.n_validation)
    return _distinct(rank_candidates(cands + fit_candidates(extra, basis, points, settings, seed), rtol), basis)


def _reduced_candidates(model, basis: Basis, points: Points, shown: np.ndarray, settings: FormulaSettings, seed: int,
                        clock: "_Clock", first_rank: int) -> list[Candidate]:
    """For each reduction of the data to at most the model's number of inputs
    (:func:`~superpos.symreg.decompose.reductions`): the model's best g on (z, y / prod w^a),
    then the sums of terms of g, 1/g, g^2 and 1/g^2 (:func:`~superpos.symreg.terms.transformed_sums`)
    and, for one z, the classic laws (tanh, asin and acos among them, :func:`~superpos.symreg.laws.fitted_laws`),
    written back as prod w^a * g(z(x)) over ``basis`` and refitted on ``points``."""
    out: list[Candidate] = []
    k = model.basis_.n_variables
    laws = law_basis(model.basis_)
    for red in reductions(points.X, points.y, k, _REDUCTIONS):
        with np.errstate(all="ignore"):
            Z, rest = red.inputs(points.X), points.y / red.factor(points.X)
        if not (np.all(np.isfinite(Z)) and np.all(np.isfinite(rest)) and np.all(np.ptp(Z, axis=0) > 0)):
            continue
        found = _model_candidates(model, Points(Z, rest, points.fit, points.val, points.folds),
                                  shown, settings, seed, clock)[:settings.refit_top]
        pairs = [(c, red.compose(c.tree, c.constants, model.basis_, basis)) for c in found
                 if np.all(np.isfinite(c.constants))]
        floor = min((c.log_likelihood for c in found), default=0.0) - 1.0
        names = tuple(model.basis_.to_list())
        if not points.folds:  # small data: a few dozen points cannot choose among so many sums
            pairs += [(Candidate(t, names, floor, 0, c, np.inf, np.inf), red.compose(t, c, model.basis_, basis))
                      for t, c in transformed_sums(Z[points.fit], rest[points.fit], model.basis_, keep=1)]
        pairs += [(Candidate(t, tuple(laws.to_list()), floor, 0, c, np.inf, np.inf), red.compose(t, c, laws, basis))
                  for t, c in fitted_laws(Z, rest, laws, points, settings, seed)]
        out += _refitted(pairs, basis, points, settings, seed, first_rank + len(out))
    return out


def _with_library(cands: list[Candidate], basis: Basis, points: Points, settings: FormulaSettings,
               seed: int) -> list[Candidate]:
    """``cands`` joined by the sums of library terms that sparse fits on the fitting points
    propose (:func:`~superpos.symreg.terms.sum_trees`) and by the classic one-input laws
    (:func:`~superpos.symreg.laws.law_trees`), ranked after every other candidate so that they
    win only on the data. The terms are those of the data in the decade the model
    knows (:mod:`.units`; sin(x) of millimetres is no term), mapped back to the user's units.
    The laws are tried even after an exact candidate, which may be a long twin of one
    (x - 150 + 224 / (exp(0.0077 x) + 0.376) for Arrhenius in degrees C); sums are not."""
    kx, ky = decade_scales(points.X, points.y)
    scaled = Points(points.X / 10.0**kx, points.y / 10.0**ky, points.fit, points.val, points.folds)
    trees = [] if _exact_first(cands) else sum_trees(scaled.X[scaled.fit], scaled.y[scaled.fit], basis,
                                                       grown=not points.folds)
    found = laws_with_starts(scaled.X, basis)
    laws = [t for t, _ in found]
    if not (trees or laws):
        return cands
    floor = min((c.log_likelihood for c in cands), default=0.0) - 1.0
    extra = fit_candidates([(len(cands) + r, floor, t) for r, t in enumerate(trees)], basis, scaled, settings,
                           seed) if trees else []
    # few trees, whose scale constants (exp(-15 / (x + 2.73))) need every start: no cheap screen
    full = replace(settings, screen=(settings.n_starts, settings.lm_iterations), screen_points=0)
    extra += fit_candidates([(len(cands) + len(trees) + r, floor, t) for r, t in enumerate(laws)], basis, scaled,
                            full, seed, init=[start for _, start in found]) if laws else []
    if kx.any() or ky:
        extra = _in_user_units(extra, basis, kx, ky, points, settings, seed, len(cands))
    rtol = settings.tie_tolerance(points.n_validation)
    return _distinct(rank_candidates(cands + extra, rtol), basis)


def _model_candidates(model, points: Points, shown: np.ndarray, settings: FormulaSettings, seed: int,
                      clock: "_Clock") -> list[Candidate]:
    """The structure model's candidates for ``points`` (over its own basis), best first, from
    up to three views of the data: rescaled by powers of ten into the decade the model knows
    (:mod:`.units`), which do not depend on the user's units; the same with the inputs whose
    largest magnitude falls in [0.75, 1) there ten times larger (1-10 is as much the model's
    ground: c / v in [1.85, 9.3] has its law there, not in [0.185, 0.93]); the data as they
    are, where they differ. Every view's decoded candidates are fitted first, so that an exact
    formula in any of them ends the work early and its simpler twins compete (cos(x1), not
    sin(x1 + pi/2)); only then does local search run, view after view in that order, until a
    formula is exact. The rescaled views' best candidates are mapped back to the user's units."""
    basis = model.basis_
    rtol = settings.tie_tolerance(points.n_validation)
    kx, ky = decade_scales(points.X, points.y)
    top = np.abs(points.X).max(axis=0) / 10.0**kx
    scales = [(kx, ky)] + ([(kx - (top < 1.0), ky)] if np.any(top < 1.0) else [])
    if all(sx.any() or sy for sx, sy in scales):
        scales.append((np.zeros_like(kx), 0))
    views = []
    for sx, sy in scales:
        scaled = Points(points.X / 10.0**sx, points.y / 10.0**sy, points.fit, points.val, points.folds)
        views.append((sx, sy, scaled) + _decoded(model, scaled, shown, settings, seed, clock))

    def in_user_units(sx, sy, found: list[Candidate], first_rank: int) -> list[Candidate]:
        if not (sx.any() or sy):
            return found
        return _in_user_units(found[:settings.refit_top], basis, sx, sy, points, settings, seed, first_rank)

    cands: list[Candidate] = []
    mapped = []
    for sx, sy, _, found, _ in views:
        mapped.append(in_user_units(sx, sy, found, len(cands)))
        cands = _distinct(rank_candidates(cands + mapped[-1], rtol), basis)
    # An exact formula of the data as they are ends the work only within a decade of the
    # normalised view (the model's ground). Further away it is often a degenerate one,
    # 1.9e11 x1 / (x1 + 3.0e6 x2 x3) for c x1 / (x2 x3), and local search of the normalised
    # views still runs: ``trusted`` holds their candidates alone.
    raw_far = not (views[-1][0].any() or views[-1][1]) and len(views) > 1 and \
        not (np.all(np.abs(kx) <= 1) and abs(ky) <= 1)
    trusted = _distinct(rank_candidates([c for m in mapped[:-1] for c in m], rtol), basis) if raw_far else []
    if settings.search_rounds:
        bonus = model.size_bonus_ if settings.candidate_bonus is None else settings.candidate_bonus
        for sx, sy, scaled, found, L in views:
            if _exact_first(trusted if raw_far else cands):  # nothing to improve
                break
            searched = in_user_units(sx, sy, local_search(found, L + bonus, basis, scaled, settings, seed), len(cands))
            cands = _distinct(rank_candidates(cands + searched, rtol), basis)
            trusted = _distinct(rank_candidates(trusted + searched, rtol), basis) if raw_far else trusted
        clock.lap("fit_candidates")
    return cands


def _decoded(model, points: Points, shown: np.ndarray, settings: FormulaSettings, seed: int,
             clock: "_Clock") -> tuple[list[Candidate], np.ndarray]:
    """Decode (on the ``shown`` points) and fit every candidate: (the candidates best first,
    in the units of ``points``; log theta)."""
    L = model.log_theta_for(points.X[shown], points.y[shown])
    ranked = propose_skeletons(model, L, points.X.shape[1], settings)
    clock.lap("decode")
    cands = rank_candidates(fit_candidates(ranked, model.basis_, points, settings, seed),
                            settings.tie_tolerance(points.n_validation))
    clock.lap("fit_candidates")
    return cands, L


def _in_user_units(cands: list[Candidate], basis: Basis, kx: np.ndarray, ky: int, points: Points,
                   settings: FormulaSettings, seed: int, first_rank: int) -> list[Candidate]:
    """Candidates found on normalised data as trees over the user's units
    (:func:`~superpos.symreg.units.to_user_units`), refitted on ``points`` from the mapped constants."""
    pairs = [(c, to_user_units(c.tree, c.constants, basis, kx, ky)) for c in cands if np.all(np.isfinite(c.constants))]
    return _refitted(pairs, basis, points, settings, seed, first_rank)


def _refitted(pairs: list, basis: Basis, points: Points, settings: FormulaSettings, seed: int,
              first_rank: int) -> list[Candidate]:
    """[(candidate, (tree, constants) or None)] of candidates rewritten as other trees over
    ``basis`` (another scale, a monomial factor): the rewritten trees refitted on ``points``
    from the rewritten constants, ranked from ``first_rank``; the Nones dropped."""
    mapped = [(c, m) for c, m in pairs if m is not None]
    if not mapped:
        return []
    Xf, yf, Xv, yv = points.parts()
    trees = [m[0] for _, m in mapped]
    fits = fit_many(trees, basis, Xf, yf, Xv, yv, n_starts=settings.n_starts,
                    max_iter=settings.lm_iterations, init=[m[1] for _, m in mapped], random_state=seed)
    if points.folds:  # small data: scored by cross-validation, as every other candidate
        cv = points.cross_validated(trees, basis, [c for c, _, _ in fits], settings, seed)
        fits = [(c, ef, float(e)) for (c, ef, _), e in zip(fits, cv)]
    names = tuple(basis.to_list())
    return [Candidate(m[0], names, c.log_likelihood, first_rank + r, consts, ef, ev)
            for r, ((c, m), (consts, ef, ev)) in enumerate(zip(mapped, fits))]


def _plausible_first(cands: list[Candidate], basis: Basis, X: np.ndarray, y: np.ndarray,
                     tries: int = 20) -> list[Candidate]:
    """The best of the first ``tries`` candidates that is not absurd
    (:func:`~superpos.symreg.selection.plausible`) moved to the front; unchanged when none is,
    or when the first is exact (log|x1|^3 on points on both sides of 0 leaves twice the range
    between two of them, and is the law)."""
    if _exact_first(cands):  # exact to the data's precision: a pole between points is the law's
        return cands
    probes = probe_points(X)  # the same for every candidate
    for k, c in enumerate(cands[:tries]):
        if np.isfinite(c.nmse_validation) and plausible(c.tree, basis, c.constants, X, y, probes):
            return cands if k == 0 else [c] + cands[:k] + cands[k + 1:]
    return cands


def _distinct(cands: list[Candidate], basis: Basis) -> list[Candidate]:
    """The best-ranked candidate of each skeleton (commutative reorderings are one skeleton),
    told apart by the compiled structural hash (thousands of candidates after local search)."""
    seen: set = set()
    out = []
    for c, key in zip(cands, structural_hashes([c.tree for c in cands], basis).tolist()):
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def propose_skeletons(model, L: np.ndarray, n_variables: int, settings: FormulaSettings) -> list:
    """The ``top_k`` most likely distinct skeletons under log theta ``L`` over the data's
    ``n_variables`` inputs, [(rank, log-likelihood + bonus, tree)], best first."""
    decoded = model.decode(L, settings.top_k, size_bonus=settings.candidate_bonus)
    floor = min((score for score, _ in decoded), default=0.0)
    baselines = [(floor - 1.0, t) for t in baseline_trees(model.basis_, n_variables)]
    ranked = unique_trees(decoded + baselines, model.basis_, n_variables)
    if not ranked:
        raise SuperposError("the model proposed no formula over this data's variables")
    return ranked


def _exact_first(cands: list[Candidate]) -> bool:
    """Whether the best-ranked candidate is exact to the data's precision (:data:`_EXACT`)."""
    return bool(cands) and cands[0].nmse_validation < _EXACT


class _Clock:
    """Seconds per named stage, each lap measured from the previous one (a stage run twice adds up)."""

    def __init__(self):
        self.laps: dict[str, float] = {}
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        t = time.perf_counter()
        self.laps[name] = self.laps.get(name, 0.0) + t - self._t
        self._t = t
