"""More inputs than the model's basis: input selection, relabelled trees, power laws."""
from __future__ import annotations

import numpy as np
import pytest

from superpos import Basis, SuperposError
from superpos.core.tree import evaluate, from_string
from superpos.symreg.inputs import power_law_trees, relabel, select_inputs


def test_select_inputs_finds_the_ones_in_the_law():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (300, 7))
    y = X[:, 5] ** 2 + np.exp(X[:, 1]) - 2 * X[:, 3]
    assert select_inputs(X, y, 3).tolist() == [1, 3, 5]


def test_relabel_keeps_values_on_the_selected_columns():
    model_basis, work = Basis.default(3), Basis(Basis.default(3).to_list(), 6)
    t = from_string("add(mul(c, x1), sin(mul(x2, x3)))", model_basis)
    X = np.random.default_rng(1).uniform(-2, 2, (20, 6))
    seen = np.array([4, 0, 5])
    np.testing.assert_array_equal(evaluate(relabel(t, model_basis, work, seen), work, X, [1.5]),
                                  evaluate(t, model_basis, X[:, seen], [1.5]))


def test_power_law_trees_round_exponents_to_halves():
    b = Basis(Basis.default(3).to_list(), 5)
    X = np.random.default_rng(2).uniform(1, 4, (100, 5))
    y = 6.67 * X[:, 0] * X[:, 2] / X[:, 4] ** 2 * (1 + 1e-3 * np.sin(np.arange(100)))
    trees = power_law_trees(X, y, b)
    assert trees
    from superpos.symreg.fitting import fit_many

    (c, err, _), = fit_many([trees[0]], b, X, y)
    assert err < 1e-5 and abs(c[0] - 6.67) < 0.01
    assert power_law_trees(X, y - y.mean(), b) == []  # y changes sign: no power law


def test_many_inputs_find_formula():
    from superpos.symreg.pipeline import find_formula

    X = np.random.default_rng(3).uniform(1, 5, (200, 6))
    f = find_formula(X, X[:, 0] * X[:, 1] / X[:, 4] ** 2, random_state=0)
    assert str(f.expr) == "x1*x2/x5**2"
    assert np.allclose(f.predict(X), X[:, 0] * X[:, 1] / X[:, 4] ** 2)
    with pytest.raises(SuperposError, match="at most 20"):
        find_formula(np.ones((10, 21)) + np.arange(21), np.arange(10.0))


def test_left_out_inputs_that_explain_residuals_are_named():
    from superpos.symreg.inputs import inputs_used, residual_dependence

    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, (200, 4))
    resid = 0.3 * X[:, 2] ** 2 + rng.normal(0, 0.1, 200)  # x3 is missing from the formula
    found = residual_dependence(X, resid, used=[0])
    assert [j for j, _ in found] == [2]
    assert residual_dependence(X, rng.normal(size=200), used=[0]) == []
    b = Basis.default(3)
    assert inputs_used(from_string("add(x3, mul(c, x1))", b), b) == [0, 2]


def test_review_findings_stay_fixed(tmp_path):
    """A constant column is never chosen; tiny and exact data give no spurious warning and no
    ZeroDivisionError; tiny targets keep a meaningful error; wide data can be plotted."""
    from superpos.core.numeric import r2
    from superpos.symreg.pipeline import find_formula

    rng = np.random.default_rng(0)
    X = rng.uniform(1, 5, (60, 5))
    X[:, 1] = 7.0
    y = X[:, 0] * X[:, 2] + X[:, 3]
    order = np.argsort(y)
    assert 1 not in select_inputs(X[order], y[order], 3).tolist()
    x = rng.uniform(1, 5, 40)
    tiny = find_formula(x[:, None], 1e-160 * (x**2 + np.sin(x)), search_rounds=0, top_k=50, random_state=0)
    assert r2(1e-160 * (x**2 + np.sin(x)), tiny.predict(x[:, None])) > 0.99
    ints = np.arange(1, 31, dtype=float)
    exact = find_formula(np.column_stack([ints, ints % 7, ints % 5]), ints * (ints % 7), search_rounds=0, top_k=50,
                         random_state=0)
    assert exact.left_out == []


def test_wide_data_plot_and_misaligned_rows(tmp_path):
    pytest.importorskip("matplotlib")
    from typer.testing import CliRunner

    from superpos.cli import app
    from superpos.datasets.reader import read_table

    X = np.random.default_rng(1).uniform(1, 3, (40, 5))
    path = tmp_path / "wide.csv"
    path.write_text("a,b,c,d,e,y\n" + "".join(",".join(f"{v:.6g}" for v in r) + f",{r[0] * r[1]:.6g}\n" for r in X))
    png = tmp_path / "w.png"
    r = CliRunner().invoke(app, ["predict", str(path), "--plot", str(png), "--search", "0", "--quiet"])
    assert r.exit_code == 0 and "a*b" in r.output and png.stat().st_size > 0, r.output
    with pytest.raises(SuperposError, match="data row 2 has 2 cells"):
        read_table("a,b,y\n1,2,3\n4,5\n6,7,8,9\n1,1,1\n", "t")


def test_relevant_inputs_keep_both_inputs_of_a_ratio_and_drop_the_others():
    """f(x2 / x3) over x2 in [1, 2], x3 in [3, 20]: x2 alone explains little (a test of each
    input alone misses it); x1 and x4 are not read."""
    from superpos.symreg.status import relevant_inputs

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(5, 10, 200), rng.uniform(1, 2, 200), rng.uniform(3, 20, 200),
                         rng.uniform(1, 2, 200)])
    t = 1 / np.sqrt(1 - (X[:, 1] / X[:, 2]) ** 2)
    assert relevant_inputs(X, t) == [1, 2]
    assert relevant_inputs(X, t + rng.normal(0, 0.01 * t.std(), 200)) == [1, 2]
    assert relevant_inputs(X[:20], t[:20]) == [0, 1, 2, 3]  # too few points per feature: all kept
    assert relevant_inputs(X, rng.normal(size=200)) == [0, 1, 2, 3]  # none needed: all kept


def test_structured_tells_a_trend_from_noise():
    from superpos.symreg.status import structured

    rng = np.random.default_rng(1)
    X = rng.uniform(1, 3, (200, 3))
    noise = rng.normal(size=200)
    assert not structured(X, noise, np.random.default_rng(0))
    assert structured(X, noise + 3 * np.sin(2 * X[:, 1]), np.random.default_rng(0))
    assert structured(X, np.full(200, np.nan), np.random.default_rng(0))


@pytest.mark.parametrize("k, level, exact", [(3, 0.001, 16.266), (10, 0.001, 29.588), (30, 0.05, 43.773),
                                             (60, 0.001, 99.607)])
def test_chi2_upper_is_within_two_percent_of_the_table(k, level, exact):
    from superpos.core.numeric import chi2_upper

    assert abs(chi2_upper(k, level) - exact) < 0.02 * exact
