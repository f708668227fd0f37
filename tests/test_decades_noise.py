"""Units (decade normalisation and the map back), noise-aware snapping, standard errors,
bootstrap confidence and the accuracy-complexity front."""
from __future__ import annotations

import numpy as np
import sympy

from superpos import Basis
from superpos.core.tree import evaluate, from_string
from superpos.symreg.candidates import Candidate, Points
from superpos.symreg.fitting import fit_many
from superpos.symreg.snapping import snap_constants
from superpos.symreg.uncertainty import pareto_front, standard_errors, structure_confidence
from superpos.symreg.decades import decade_scales, to_data_scale

B2 = Basis.default(2)


def test_decade_scales_are_units_invariant():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (50, 2))
    y = X[:, 0] ** 2 + 12.0
    kx, ky = decade_scales(X, y)
    assert kx.tolist() == [0, 0] and ky == 1
    for a, b, c in [(1e3, 1e-2, 1e5), (1e-6, 1e6, 1e-4)]:
        kx2, ky2 = decade_scales(X * [a, b], y * c)
        assert (kx2 - kx).tolist() == [round(np.log10(a)), round(np.log10(b))] and ky2 - ky == round(np.log10(c))
        np.testing.assert_allclose(X * [a, b] / 10.0 ** kx2, X / 10.0 ** kx, rtol=1e-12)


def test_to_data_scale_folds_the_scales_into_constants():
    t = from_string("add(sin(x1), mul(c, x2))", B2)
    raw, consts = to_data_scale(t, [2.5], B2, np.array([3, -1]), 2)
    X = np.random.default_rng(1).uniform(1, 2, (20, 2)) * [1e3, 1e-1]
    want = 100 * (np.sin(X[:, 0] / 1e3) + 2.5 * X[:, 1] / 1e-1)
    np.testing.assert_allclose(evaluate(raw, B2, X, consts), want, rtol=1e-12)
    assert to_data_scale(from_string("log(sub(x1, x1))", B2), [], B2, np.array([1, 0]), 0) is None


def test_a_law_in_other_units_keeps_its_structure():
    from superpos.symreg.pipeline import find_formula

    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, (200, 1))
    y = X[:, 0] ** 2 + np.sin(X[:, 0])
    plain = find_formula(X, y, random_state=0)
    mm = find_formula(X * 1000, y * 0.01, random_state=0)
    x1 = sympy.Symbol("x1", real=True)
    back = (mm.expr.xreplace({x1: x1 * 1000}) / sympy.Rational(1, 100)).evalf()
    assert sympy.simplify(sympy.nsimplify(back, tolerance=1e-8, rational=True) - plain.expr) == 0


def test_units_do_not_change_a_law_of_three_inputs():
    """The model searches the data in its decade first: in any units x1 x2 x3 / 2 comes back as
    c x1 x2 x3 (the data as they are first gave a degenerate 2e-21 x1 x2 x3 (x1 + x3 + 1.3e9)^3,
    exact to 1e-18, which ended the search)."""
    from superpos.symreg.pipeline import find_formula

    rng = np.random.default_rng(4)
    X = rng.uniform(1, 5, (200, 3))
    y = X.prod(axis=1) / 2
    x = sympy.symbols("x1:4", real=True)
    for scale, ky in [((1e-1, 1e-1, 1e-2), 4), ((1e3, 1e-2, 1.0), -3)]:
        f = find_formula(X * scale, y * 10.0**ky, random_state=0)
        c = f.expr / (x[0] * x[1] * x[2])
        assert c.is_number, f.expr


def test_cross_validated_finalists_rank_a_tie_again():
    """A simpler formula tied on one split (a made-up error of 0.105 against 0.1) loses to the
    affine formula over both inputs once all points are cross-validated."""
    from superpos.symreg.laws import baseline_trees
    from superpos.symreg.selection import cross_validated_finalists
    from superpos.symreg.settings import FormulaSettings

    rng = np.random.default_rng(5)
    X = rng.uniform(1, 5, (200, 2))
    y = 2 * X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.1, 200)
    simple, affine = from_string("add(mul(c, x1), c)", B2), baseline_trees(B2, 2)[0]
    names = tuple(B2.to_list())
    cands = [Candidate(simple, names, 0.0, 0, np.array([2.2, 0.5]), 0.1, 0.105),
             Candidate(affine, names, -1.0, 1, np.array([0.0, 2.0, 0.5]), 0.1, 0.1)]
    points = Points.split(X, y, 0.25, np.random.default_rng(0))
    out = cross_validated_finalists(cands, B2, points, FormulaSettings(), 0, np.random.default_rng(1), [affine])
    assert np.array_equal(out[0].tree, affine) and out[0].nmse_validation < 0.01 < out[1].nmse_validation


def test_paired_order_ties_only_what_the_points_cannot_tell_apart():
    """A simpler formula whose held-out errors exceed the best's by the same 10 % on every
    point loses (the paired difference has no spread); by 3 % it is practically equal and
    wins as the simpler; so does one that differs by zero-mean scatter. On a noisy table
    (errors near 1) practically equal is at most 0.01 of R^2."""
    from superpos.symreg.selection import paired_order

    rng = np.random.default_rng(0)
    names = tuple(B2.to_list())
    big = Candidate(from_string("add(mul(c, x1), mul(c, x2))", B2), names, 0.0, 0, np.ones(2), 0.1, 0.1)
    small = Candidate(from_string("mul(c, x1)", B2), names, 0.0, 1, np.ones(1), 0.1, 0.1)
    e = rng.exponential(1.0, 100)
    e *= 0.1 / e.mean()
    assert paired_order([big, small], np.vstack([e, e + 0.01])) == [0, 1]
    assert paired_order([big, small], np.vstack([e, e + 0.003])) == [1, 0]
    assert paired_order([big, small], np.vstack([10 * e, 10 * e + 0.03])) == [0, 1]
    assert paired_order([big, small], np.vstack([10 * e, 10 * e + 0.008])) == [1, 0]
    scatter = rng.normal(0, 0.2, 100)
    assert paired_order([big, small], np.vstack([e, e + scatter - scatter.mean() + 0.01])) == [1, 0]
    assert paired_order([big, small], np.vstack([e, np.full(100, np.inf)])) == [0, 1]
    spike = np.zeros(20)
    spike[7] = 10.0  # one point carries a 50 % larger error: the paired standard error is as large
    assert paired_order([big, small], np.vstack([np.ones(20), 1 + spike])) == [1, 0]
    assert paired_order([big, small], np.vstack([np.ones(20), 1 + spike]), rtol=np.sqrt(2 / 20)) == [0, 1]


def test_per_point_cross_validated_errors_pool_to_the_cross_validated_error():
    from superpos.symreg.settings import FormulaSettings

    rng = np.random.default_rng(2)
    X = rng.uniform(1, 5, (40, 2))
    y = X[:, 0] * X[:, 1] + rng.normal(0, 0.3, 40)
    points = Points.split(X, y, 0.25, rng, cross_validate_below=50)
    trees = [from_string("mul(c, mul(x1, x2))", B2), from_string("add(c, mul(c, x1))", B2)]
    inits = [np.ones(1), np.ones(2)]
    pooled = points.cross_validated(trees, B2, inits, FormulaSettings(), 0)
    per_point = points.cross_validated(trees, B2, inits, FormulaSettings(), 0, per_point=True)
    assert per_point.shape == (2, 40) and np.allclose(per_point.mean(axis=1), pooled)


def test_a_weak_but_real_slope_beats_the_constant():
    """62 noisy points whose line explains about 10 % of the variance (a slope a t-test
    finds): the relative tie rule let the constant win; the paired rule keeps the slope."""
    from superpos import SuperposRegressor

    rng = np.random.default_rng(4)
    x = rng.uniform(-0.1, 0.1, 62)
    y = 43 - 150 * x + rng.normal(0, 25, 62)
    r = SuperposRegressor(random_state=0).fit(x[:, None], y)
    assert sympy.Symbol("x1", real=True) in r.expr_.free_symbols, r.expr_


def test_noisy_constants_snap_within_the_noise_and_exact_ones_do_not_move():
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, (200, 2))
    t = from_string("mul(c, sin(mul(c, x1)))", B2)
    y = 2.0 * np.sin(0.5 * X[:, 0]) + rng.normal(0, 0.01 * np.sqrt(np.mean((2 * np.sin(0.5 * X[:, 0])) ** 2)), 200)
    (fitted, _, _), = fit_many([t], B2, X, y, init=[[1.9, 0.6]], random_state=0)
    assert not np.allclose(fitted, [2.0, 0.5], rtol=1e-5, atol=0)  # the noise moves them
    assert np.abs(snap_constants(t, B2, X, y, fitted)).tolist() == [2.0, 0.5]  # or the mirror (-2, -0.5)
    # a law whose amplitude is 2.3: neither 2 nor 7/3 (simpler to write, 1.4 % away) is within the noise
    y23 = 1.15 * y
    (fitted, _, _), = fit_many([t], B2, X, y23, init=[[2.2, 0.6]], random_state=0)
    assert np.abs(snap_constants(t, B2, X, y23, fitted)).tolist() == [2.3, 0.5]
    exact = 2.0 * np.sin(0.5004 * X[:, 0])
    assert snap_constants(t, B2, X, exact, [2.0, 0.5004]).tolist() == [2.0, 0.5004]


def test_standard_errors_match_ordinary_least_squares():
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 5, (400, 2))
    y = 1.5 * X[:, 0] + 0.7 + rng.normal(0, 0.3, 400)
    t = from_string("add(mul(c, x1), c)", B2)
    A = np.column_stack([X[:, 0], np.ones(400)])
    coef, res, *_ = np.linalg.lstsq(A, y, rcond=None)
    s2 = res[0] / (400 - 2)
    want = np.sqrt(np.diag(s2 * np.linalg.inv(A.T @ A)))
    np.testing.assert_allclose(standard_errors(t, B2, X, y, coef), want, rtol=1e-4)


def _cand(s, err, rank, consts=()):
    return Candidate(from_string(s, B2), tuple(B2.to_list()), -float(rank), rank, np.asarray(consts, float), err, err)


def test_confidence_and_front():
    rng = np.random.default_rng(5)
    X = rng.uniform(-2, 2, (60, 2))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 0] ** 2
    pts = Points(X, y, np.arange(40), np.arange(40, 60))
    good = _cand("add(sin(x1), mul(c, pow2(x1)))", 1e-20, 0, [0.3])
    worse = _cand("sin(x1)", 0.2, 1)
    assert structure_confidence([good, worse], B2, pts, 0.05, random_state=0) == 1.0
    tie = _cand("add(sin(x1), mul(c, pow2(x1)))", 1e-20, 2, [0.3])
    assert structure_confidence([worse, good], B2, pts, 0.05) == 0.0  # the winner is not the best here
    front = pareto_front([good, worse, tie, _cand("x1", 0.5, 3), _cand("add(x1, x2)", 0.6, 4)])
    assert [k for k, _, _ in front] == [1, 2, 8] and [str(f) for _, _, f in front][1] == "sin(x1)"
    errs = [e for _, e, _ in front]
    assert errs == sorted(errs, reverse=True)


def test_absurd_formulas_are_refused_between_neighbouring_points():
    from superpos.symreg.selection import plausible

    x = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])[:, None]
    y = 2 * x[:, 0] + 1
    pole = from_string("add(div(1, sub(x1, c)), mul(c, x1))", B2)
    assert np.all(np.isfinite(evaluate(pole, B2, x, [0.5, 2.0])))  # finite at every data point
    assert not plausible(pole, B2, [0.5, 2.0], x, y)  # but infinite between 0.4 and 0.6
    assert plausible(from_string("add(mul(c, x1), 1)", B2), B2, [2.0], x, y)
    wild = from_string("mul(c, sin(mul(c, x1)))", B2)  # swings far beyond the data between points
    assert not plausible(wild, B2, [50.0, 31.4159], x, 50 * np.sin(31.4159 * x[:, 0]) * 0 + y)
