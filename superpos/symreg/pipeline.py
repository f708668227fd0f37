"""One data set's formula: the work behind :meth:`superpos.SuperposRegressor.fit` and
``superpos predict``, read top-down in :func:`find_formula`.

The engine (:mod:`.engine`) fills one pool of candidates from the proposers
(:mod:`.proposers`: the structure model's skeletons and local search around them, reductions
of the data, baselines for wide data, sums of library terms, the classic laws), each fitted on
part of the points and scored on the rest, until one is exact to the data's precision or the
effort budget is spent. The finalists are ranked again by 5-fold cross-validation and chosen
by the selection rule (:mod:`.selection`: validation error, PySR's "best" or description
length, :mod:`.description`); a law goes before an approximation, and a formula that is not
exact and explodes just beyond the data loses to one of indistinguishable error. The winner is
refitted on all points, constants the data cannot tell from simple values are snapped, and sympy simplifies
the result under a time cap; the status (:mod:`.status`), the constants' standard errors,
the structure's bootstrap confidence, the accuracy-complexity front and the inputs used come
with it. Kept free of scikit-learn imports so that the command line starts fast.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import sympy

from ..core.basis import Basis
from ..core.dataset import check_dataset
from ..core.numeric import error_scale
from ..core.symbolic import to_sympy
from ..core.tree import evaluate
from ..exceptions import SuperposError
from ..structure.shipped import load_predictor
from .candidates import Candidate, selection_sample
from .dominated import undominated
from .edges import edge_errors, edge_floor
from .engine import MODEL_SCORED, Search, run_proposers
from .families import recognise, textbook
from .fitting import refit_constants
from .formula import Formula
from .inputs import MAX_INPUTS, inputs_used, residual_dependence
from .laws import baseline_trees
from .plan import PLAN
from .proposers import propose_skeletons
from .render import cancelled_terms, monic_denominators, round_constants, signed_abs, simplify_capped, wrapped_phases
from .selection import cross_validated_finalists, plausible, probe_points, tie_keys
from .separable import split_parts
from .settings import FormulaSettings
from .tuning import TUNING, Tuning
from .snapping import snap_constants, snap_parameters, snaps_simply
from .status import formula_status
from .trace import Trace
from .uncertainty import noise_variance, standard_errors, structure_confidence
from .decades import extreme_decades, in_data_scale, readable_numbers, times_ten_power

__all__ = ["Formula", "find_formula", "propose_skeletons", "selection_sample"]

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
    if settings.units is not None and len(settings.units) != X.shape[1] + 1:
        raise SuperposError(f"units gives {len(settings.units)} units for {X.shape[1]} inputs and the target: give "
                            f"{X.shape[1] + 1}, the target's last (None for a column without one)")
    kx, ky = extreme_decades(X, y, settings.tuning)
    if kx.any() or ky:  # found on the data divided by powers of ten, written back in the data's units
        f = _find_formula(times_ten_power(X, -kx), times_ten_power(y, -ky), predictor, settings, report)
        return _with_dimensions(in_data_scale(f, kx, ky), settings.units)
    return _with_dimensions(_find_formula(X, y, predictor, settings, report), settings.units)


def carrying_units(tree, basis: Basis, constants: np.ndarray, units: tuple | None) -> tuple:
    """The indices of the tree's constants that carry a physical unit (with every column's
    unit given, a formula whose units agree: :func:`~superpos.core.dimensions.dimensional_constants`
    of the tree written with symbols c0, c1, ...); () otherwise."""
    from ..core.dimensions import tree_dimensions

    d = tree_dimensions(tree, basis, constants, units)
    return tuple(int(c.symbol[1:]) for c in d.constants if c.symbol) if d is not None and d.consistent else ()


def _with_dimensions(f: Formula, units: tuple | None) -> Formula:
    """``f`` with what dimensional analysis says of its formula, where every column has a unit."""
    if units is None or any(u is None for u in units):
        return f
    from ..core.dimensions import dimensional_constants
    from ..core.units import parse_unit

    errors = {float(v): float(e) for v, e in zip(f.constants, f.standard_errors)}
    se = {}
    for v in f.expr.atoms(sympy.Float):  # the shown constants, matched to the fitted ones they are
        near = [e for c, e in errors.items() if c != 0 and abs(float(v) - c) <= 1e-9 * abs(c)]
        if near:
            se[float(v)] = near[0]
    names = [f"x{j + 1}" for j in range(len(units) - 1)]
    f.dimensions = dimensional_constants(f.expr, names, [parse_unit(u) for u in units], list(units), se)
    return f


def _find_formula(X: np.ndarray, y: np.ndarray, predictor, settings: FormulaSettings, report) -> Formula:
    model = load_predictor(predictor)
    if X.shape[1] > MAX_INPUTS:
        raise SuperposError(f"the data has {X.shape[1]} input variables; superpos takes at most {MAX_INPUTS}: "
                            f"keep the {MAX_INPUTS} you expect in the law (or reduce them, e.g. by PCA) and retry")
    rng = np.random.default_rng(settings.random_state)
    seed = int(rng.integers(2**31))
    tuning = settings.tuning

    report("decoding")
    sample = selection_sample(X, y, settings.max_points, rng)
    Xs, ys = X[sample], y[sample]
    search = Search.start(Xs, ys, model, settings, rng, seed, PLAN)
    points, basis, work, clock = search.points, search.basis, search.work, search.clock
    report("fitting candidates")
    cands = run_proposers(search)
    if not cands:
        raise SuperposError(f"the template {settings.template!r} could not be fitted to these data (a placeholder "
                            f"found no formula, or the template's values are not finite): check its form" if
                            settings.template else
                            "no candidate formula could be fitted: allow more proposers or a larger max_fits")
    own, basis = basis, work  # every candidate from here on is a tree over work
    clock.lap("fit_candidates")

    stages = [("search", cands[0])]
    rivals: list = []
    if not search.settled(cands):
        affine = baseline_trees(basis, X.shape[1])[:1]
        cands = cross_validated_finalists(cands, basis, points, settings, seed, rng, affine, search.exact_below,
                                          MODEL_SCORED, stages, rivals)
    else:
        stages.append(("settled (no cross-validation)", cands[0]))
    clock.lap("fit_candidates")

    report("refitting on all points")
    cands = _plausible_first(cands, basis, Xs, ys, search.exact_below)
    stages.append(("plausible", cands[0]))
    cands = _simple_first(cands, basis, Xs, ys, search.exact_below, tuning)
    stages.append(("simple constants", cands[0]))
    trace = _trace(search, stages, cands, basis)
    win = cands[0]
    if win.written_from:  # fitted and snapped as the candidate it writes with its units fixed
        win = replace(win, tree=win.written_from[0], constants=np.asarray(win.written_from[1], dtype=np.float64))
    subsampled = sample.size < X.shape[0]
    constants = refit_constants(win.tree, basis, X, y, win.constants, 0 if subsampled else settings.n_starts,
                                settings.lm_iterations, seed)
    lean = undominated(win.tree, basis, X, y, constants, settings.lm_iterations, seed, tuning)
    if lean is not None:  # a constant fitted far beyond the data's scale: 9000 / sqrt(x2 - 2.03e7)
        win, constants = replace(win, tree=lean[0], constants=lean[1]), lean[1]
    found = recognise(win.tree, basis)
    if not found:
        win, constants, found = _as_family(win, constants, basis, X)
    constants = (snap_parameters(win.tree, basis, X, y, constants, found[0], thorough=True, tuning=tuning) if found
                 else snap_constants(win.tree, basis, X, y, constants, thorough=True, tuning=tuning,
                                     keep=carrying_units(win.tree, basis, constants, settings.units)))
    errors = standard_errors(win.tree, basis, X, y, constants)
    noise = float(np.sqrt(noise_variance(win.tree, basis, X, y, constants)))
    confidence = structure_confidence(cands, basis, points, search.rtol, random_state=seed)
    clock.lap("refit")

    report("simplifying")
    expr = monic_denominators(wrapped_phases(round_constants(to_sympy(win.tree, basis, constants), digits=12,
                                                             max_denominator=12, keep_floats=True)), shortest=True)
    # simplification multiplies constants out: a scale 1.5045 times a part's 0.66468 is 1.0
    # and sympy's sqrt(z^2) is |z| again: the positive inputs once more after it
    expr = readable_numbers(round_constants(positive_inputs(simplify_capped(
        positive_inputs(cancelled_terms(expr, Xs, ys, tuning=tuning), X), float(settings.simplify_seconds),
        tuning=tuning), X), digits=12, max_denominator=12, keep_floats=True))
    used = inputs_used(win.tree, basis, expr)
    with np.errstate(all="ignore"):
        residuals = ys - evaluate(win.tree, basis, Xs, constants)
        error = min(win.nmse_validation, float(np.mean(residuals**2)) / error_scale(ys))
        exact = error < search.exact_below
        left_out = [] if exact else residual_dependence(Xs, residuals, used, tuning)
        least = min((c.nmse_validation for c in cands[:40] if np.isfinite(c.nmse_validation)), default=None)
        status = formula_status(error, search.exact_below, Xs, residuals, np.random.default_rng(seed),
                                None if least is None else min(least, error),
                                edges=lambda: edge_errors(win.tree, basis, Xs, ys, constants, settings.lm_iterations,
                                                          seed, tuning=tuning),
                                edge_floor=edge_floor(settings.precision, search.exact_below, tuning), tuning=tuning)
    family, parameters, shown = "", {}, ""
    rendered = textbook(found[0], constants, f"x{found[1] + 1}", float(np.max(np.abs(y)))) if found else None
    if rendered is not None:
        family, (shown, parameters) = found[0].name, rendered
    alike = different_beyond(rivals, win, constants, basis, Xs, np.random.default_rng(seed), tuning)
    clock.lap("simplify")
    # the model's own basis unless the formula needs a law's function (its colours come after)
    names = own.to_list() if int(np.max(win.tree)) < len(own) else basis.to_list()
    parts = split_parts(expr, *win.decomposition) if win.decomposition else []
    return Formula(expr, np.asarray(win.tree, dtype=np.int64), np.asarray(constants, dtype=np.float64),
                   names, cands, clock.laps, errors, confidence, noise, used, left_out, status, family, parameters,
                   shown, search.exact_below, decomposition=win.decomposition[0] if parts else "", parts=parts,
                   trace=trace, alike=alike)


def _trace(search: Search, stages: list, cands: list[Candidate], basis: Basis) -> Trace:
    """The search's trace with its selection: each ordering's leader, the ordering that decided
    (the last that changed the leader) and the first candidates of the final order, written
    (4 significant digits) only when the trace is read."""
    def same(a: Candidate, b: Candidate) -> bool:
        return np.array_equal(np.asarray(a.tree), np.asarray(b.tree))

    decided = stages[0][0]
    for (_, before), (stage, after) in zip(stages, stages[1:]):
        if not same(before, after):
            decided = stage
    return Trace(search.trace, stages, decided, cands[:20], _Writer(basis))


class _Writer:
    """A candidate's formula over ``basis`` with 4 significant digits (the trace's; a class, not
    a closure, so that a fitted regressor pickles)."""

    def __init__(self, basis: Basis):
        self.basis = basis

    def __call__(self, c: Candidate) -> str:
        return str(round_constants(to_sympy(c.tree, self.basis, c.constants), digits=4, max_denominator=12,
                                   keep_floats=True))


def different_beyond(rivals: list[Candidate], win: Candidate, constants: np.ndarray, basis: Basis, X: np.ndarray,
                     rng: np.random.Generator, tuning: Tuning = TUNING, limit: int = 3) -> list[Candidate]:
    """Of the finalists the cross-validation could not tell from the winner (``rivals``,
    simplest first), the first ``limit`` no longer than it (tie keys) that are another function
    and differ from each other: apart by more than ``alike_beyond`` (relative) on more than that
    share of points drawn over a box 10^8 times the data's (log-uniform for a positive input,
    10^8 of its width for another). The same law written as another tree agrees everywhere and
    is left out; a law and its expansion on a domain too narrow to tell them, or two curves
    through noisy points, are kept: the data do not choose between them."""
    if not rivals:
        return []
    lo, hi = X.min(axis=0), X.max(axis=0)
    width = np.where(hi > lo, hi - lo, np.maximum(np.abs(hi), 1.0))
    u = rng.uniform(size=(400, X.shape[1]))
    with np.errstate(all="ignore"):
        P = np.where(lo > 0, np.exp(np.log(lo) - 18.4 + u * (np.log(hi) - np.log(lo) + 36.8)),
                     lo - 1e8 * width + u * 2e8 * width)

    def values(tree, c):
        with np.errstate(all="ignore"):
            return evaluate(tree, basis, P, c)

    def apart(f, g) -> bool:
        both = np.isfinite(f) & np.isfinite(g)
        if np.mean(np.isfinite(f) != np.isfinite(g)) > tuning.alike_beyond:
            return True  # one is undefined where the other is defined
        if both.sum() < 20:
            return False  # both undefined over most of the box: nothing tells them apart
        with np.errstate(all="ignore"):
            rel = np.abs(f[both] - g[both]) / np.maximum(np.maximum(np.abs(f[both]), np.abs(g[both])), 1e-300)
        return float(np.mean(rel > tuning.alike_beyond)) > tuning.alike_beyond

    longest = tie_keys([win])[0, 0]
    shown = [values(win.tree, constants)]
    out = []
    for c, k in zip(rivals, tie_keys(rivals)[:, 0]):
        if k > longest or not np.all(np.isfinite(c.constants)):
            continue
        g = values(c.tree, c.constants)
        if all(apart(f, g) for f in shown):
            out.append(c)
            shown.append(g)
        if len(out) == limit:
            break
    return out


def positive_inputs(expr, X: np.ndarray):
    """``expr`` with |x_j| written x_j for each input positive at every point (|x1|^0.45 is
    x1^0.45 on the data's domain, as a scientist writes it), and |u| written +-u where u keeps
    one sign (:func:`~superpos.symreg.render.signed_abs`)."""
    import sympy

    pos = {s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols
           if s.name[:1] == "x" and s.name[1:].isdigit() and int(s.name[1:]) <= X.shape[1]
           and np.all(X[:, int(s.name[1:]) - 1] > 0)}
    expr = expr.xreplace(pos).xreplace({v: k for k, v in pos.items()}) if pos else expr
    return signed_abs(expr, X)


def _as_family(win: Candidate, constants: np.ndarray, basis: Basis, X: np.ndarray):
    """(winner, constants, (family, input)) with the winner rewritten in its canonical tree (its
    formula, denominators made monic, read back by :func:`~superpos.core.symbolic.from_sympy`)
    where that tree is a family's and computes the same values: a classic law found with a scale
    constant on its input, a exp(b / (c + d x)), is Antoine's vapour pressure; 9 - 9 exp(-k x)
    an exponential rise, written with its time constant. Unchanged (and None) otherwise."""
    from ..core.symbolic import from_sympy
    from ..exceptions import NotRepresentable

    try:
        tree, values = from_sympy(monic_denominators(to_sympy(win.tree, basis, constants)), basis)
    except (SuperposError, NotRepresentable, TypeError, ValueError):
        return win, constants, None
    found = recognise(tree, basis)
    if not found:
        return win, constants, None
    c = np.array([float(v) for v in values], dtype=np.float64)
    with np.errstate(all="ignore"):
        before, after = evaluate(win.tree, basis, X, constants), evaluate(tree, basis, X, c)
    if not (np.all(np.isfinite(after)) and np.allclose(after, before, rtol=1e-9, atol=1e-12 * np.max(np.abs(before)))):
        return win, constants, None
    return replace(win, tree=np.asarray(tree), constants=c), c, found


def _simple_first(cands: list[Candidate], basis: Basis, X: np.ndarray, y: np.ndarray, exact_below: float,
                  tuning: Tuning = TUNING, tries: int = 10) -> list[Candidate]:
    """Where the first candidate is exact with a free constant, the first of the next ``tries``
    exact ones whose constants all snap to simple numbers
    (:func:`~superpos.symreg.snapping.snaps_simply`) moved to the front. Exact candidates tie
    on round-off, and which one comes first is chance: a law may come first written with
    (3 / (4 pi))^2 as a fitted 0.057 twice, before its textbook form with 3 / (4 pi)."""
    if not cands or not cands[0].nmse_validation < exact_below:
        return cands
    if snaps_simply(cands[0].tree, basis, X, y, cands[0].constants, tuning):
        return cands
    for k, c in enumerate(cands[1:tries + 1], start=1):
        if c.nmse_validation < exact_below and snaps_simply(c.tree, basis, X, y, c.constants, tuning):
            return [c] + cands[:k] + cands[k + 1:]
    return cands


def _plausible_first(cands: list[Candidate], basis: Basis, X: np.ndarray, y: np.ndarray, exact_below: float,
                     tries: int = 20) -> list[Candidate]:
    """The best of the first ``tries`` candidates that is not absurd
    (:func:`~superpos.symreg.selection.plausible`) moved to the front; unchanged when none is,
    or when the first is exact (log|x1|^3 on points on both sides of 0 leaves twice the range
    between two of them, and is the law)."""
    if cands and cands[0].nmse_validation < exact_below:  # exact to the data's precision: a pole between points is the law's
        return cands
    probes = probe_points(X)  # the same for every candidate
    for k, c in enumerate(cands[:tries]):
        if np.isfinite(c.nmse_validation) and plausible(c.tree, basis, c.constants, X, y, probes):
            return cands if k == 0 else [c] + cands[:k] + cands[k + 1:]
    return cands
