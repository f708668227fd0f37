"""Separability tests (additive and multiplicative partitions) and the part-by-part proposer."""
from __future__ import annotations

import numpy as np
import pytest
import sympy

from superpos import SuperposRegressor
from superpos.exceptions import SuperposError
from superpos.datasets import is_exact_recovery
from superpos.symreg.proposers.separable import SeparableProposer
from superpos.symreg.candidates import Points, kept_rows
from superpos.symreg.separable import partition, separations, signed_products, split_parts


def points(n, m, lo=-2.0, hi=2.0, seed=0):
    return np.random.default_rng(seed).uniform(lo, hi, (n, m))


def test_additive_partition_of_a_sum():
    X = points(200, 3)
    parts, explained, comps, offset, _ = partition(X, np.sin(X[:, 0]) + X[:, 1] * X[:, 2])
    assert parts == [(0,), (1, 2)] and explained > 0.999
    # the components add up to the fit
    assert np.corrcoef(comps.sum(1) + offset, np.sin(X[:, 0]) + X[:, 1] * X[:, 2])[0, 1] > 0.999


def test_the_part_its_polynomial_misses_most_is_solved_first():
    """The N-slit law x1 sinc^2(x2 / 2) sin^2(x3 x4 / 2) / sin^2(x3 / 2): the polynomial of the
    (x3, x4) part misses most of log y, so it is solved first and the other parts' targets hold
    its formula; an exact partition keeps the parts' order."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(1, 3, (200, 3)), rng.uniform(1, 2, 200)])
    y = X[:, 0] * np.sin(X[:, 1] / 2) ** 2 / (X[:, 1] / 2) ** 2 * np.sin(X[:, 2] * X[:, 3] / 2) ** 2 / np.sin(X[:, 2] / 2) ** 2
    (sep,) = separations(X, y, np.arange(150))
    assert sep.kind == "product" and sep.parts == ((0,), (1,), (2, 3))
    assert sep.misfit[2] > 10 * max(sep.misfit[:2]) and sep.order(1e-9)[0] == 2
    (sep,) = separations(X, X[:, 0] + X[:, 1] ** 2 + X[:, 2] * X[:, 3], np.arange(150))
    assert sep.kind == "sum" and sep.order(1e-9) == [0, 1, 2]


def test_three_way_interaction_merges_three_inputs():
    X = points(200, 4)
    parts, *_ = partition(X, X[:, 0] * X[:, 1] * X[:, 2] + X[:, 3] ** 2)
    assert parts == [(0, 1, 2), (3,)]


def test_many_equal_parts():
    X = points(200, 8)
    y = sum(X[:, 2 * k] * X[:, 2 * k + 1] for k in range(4))
    assert partition(X, y)[0] == [(0, 1), (2, 3), (4, 5), (6, 7)]


def test_product_in_logs_and_the_starting_parts():
    X = points(200, 4, 1.0, 5.0)
    y = (X[:, 0] + X[:, 1]) * (X[:, 2] + X[:, 3])
    seps = separations(X, y)
    prod = [s for s in seps if s.kind == "product"]
    assert prod and prod[0].parts == ((0, 1), (2, 3))
    start = prod[0].part_values(0) * prod[0].part_values(1)
    assert np.max(np.abs(start / y - 1)) < 0.05


@pytest.mark.parametrize("law", [
    lambda X: X[:, 0] * X[:, 1] + np.sin(X[:, 1] * X[:, 2]),
    lambda X: np.sin(X[:, 0] * X[:, 1] + X[:, 2]),
    lambda X: np.tanh(X[:, 0] + X[:, 1] - X[:, 2]),
])
def test_non_separable_laws_do_not_split(law):
    X = points(200, 3)
    assert separations(X, law(X)) == []


def test_abstains_on_few_points_and_fits_on_given_rows():
    X = points(25, 3)
    assert partition(X, X[:, 0] + X[:, 1] * X[:, 2]) is None
    X = points(300, 3)
    y = np.sin(X[:, 0]) + X[:, 1] * X[:, 2]
    y_bad = y.copy()
    y_bad[200:] = 1e6  # rows the test must not read
    parts, explained, comps, *_ = partition(X, y_bad, np.arange(200))
    assert parts == [(0,), (1, 2)] and explained > 0.999 and comps.shape == (300, 2)


def _signed_law(n=200, seed=0):
    X = points(n, 5, 1.0, 5.0, seed)
    X[:, 1] = np.random.default_rng(seed + 1).uniform(0.0, 6.0, n)
    return X, X[:, 0] * np.cos(X[:, 1]) * (X[:, 3] ** 2 / X[:, 2] - X[:, 4])


def test_a_product_of_factors_that_change_sign_splits_into_them():
    X, y = _signed_law()
    assert y.min() < 0 < y.max()
    seps = separations(X, y)
    assert [s.kind for s in seps] == ["signed"] and seps[0].parts == ((0,), (1,), (2, 3, 4))
    start = np.prod([seps[0].part_values(p) for p in range(3)], axis=0)
    assert np.corrcoef(start, y)[0, 1] > 0.99
    assert signed_products(X[:40], y[:40]) == []  # fewer than 10 points per input
    # no product: x1 x2 + sin(x2 x3) (in test_non_separable_laws_do_not_split) and a sum of products
    assert signed_products(X, X[:, 0] * np.cos(X[:, 1]) + X[:, 2] * np.sin(X[:, 3] - X[:, 4])) == []


@pytest.mark.regression
def test_a_signed_product_is_solved_part_by_part():
    from superpos.datasets import load_problems

    p = next(q for q in load_problems("feynman") if q.name.startswith("test_14 "))  # 4.60' Jackson
    X, y = p.sample(random_state=0)
    reg = SuperposRegressor(random_state=0).fit(X, y)
    assert exact(reg, p.formula, 5) and reg.candidates_[0].source == "separable"
    assert not reg.expr_.atoms(sympy.Float)  # the parts' scales multiply out to integers, shown as such


def test_kept_rows_keep_the_split():
    X = points(10, 2)
    p = Points(X, X[:, 0], np.array([0, 2, 4, 6, 8]), np.array([1, 3, 5, 7, 9]),
               ((np.array([0, 1, 2]), np.array([3, 4, 5])),))
    keep = np.array([True, False, True, True, False, False, True, True, True, True])
    sub = p.subset(keep)
    assert np.array_equal(sub.X, X[keep]) and sub.fit.tolist() == [0, 1, 3, 5] and sub.val.tolist() == [2, 4, 6]
    assert [f.tolist() for f in sub.folds[0]] == [[0, 1], [2]]
    assert kept_rows(np.array([9, 1]), keep).tolist() == [6]


def test_proposer_depth_limit_and_settings():
    """The plan's gates of the separable step: 3 inputs on the user's data, 2 within a part
    (exp(-(x1^2 + x2^2)) is a product of two one-input parts), ``decompose`` and
    ``decompose_depth`` turn it off or cap the levels."""
    from superpos.symreg.plan import step
    from superpos.symreg.settings import FormulaSettings

    class S:
        n_inputs = 4
        depth = FormulaSettings().decompose_depth
        settings = FormulaSettings()

    data, part = step("data", "separable"), step("part", "separable")
    assert data.blocked(S()) == "a level of parts under decompose_depth"
    S.depth = 0
    assert data.blocked(S()) is None
    S.settings = FormulaSettings(decompose=False)
    assert data.blocked(S()) == "the setting decompose on"
    S.settings = FormulaSettings(decompose_depth=0)
    assert data.blocked(S()) is not None
    S.n_inputs, S.depth, S.settings = 2, 1, FormulaSettings()
    assert part.blocked(S()) is None and data.blocked(S()) == "at least 3 inputs"
    with pytest.raises(SuperposError, match="decompose_depth"):
        FormulaSettings(decompose_depth=-1)


def exact(reg, law: str, m: int) -> bool:
    return is_exact_recovery(reg.expr_, sympy.sympify(law, locals={f"x{k + 1}": sympy.Symbol(f"x{k + 1}")
                                                                     for k in range(m)}))


def test_sum_of_four_products_is_solved_part_by_part():
    X = points(200, 8)
    y = sum(X[:, 2 * k] * X[:, 2 * k + 1] for k in range(4))
    reg = SuperposRegressor(random_state=0).fit(X, y)
    assert exact(reg, "x1*x2 + x3*x4 + x5*x6 + x7*x8", 8)
    assert reg.candidates_[0].source == "separable"


def test_product_of_sums_is_solved_part_by_part():
    X = points(200, 4, 1.0, 5.0)
    reg = SuperposRegressor(random_state=0).fit(X, (X[:, 0] + X[:, 1]) * (X[:, 2] + X[:, 3]))
    assert exact(reg, "(x1 + x2)*(x3 + x4)", 4)


def test_split_parts_groups_terms_and_factors():
    x1, x2, x3, x4 = sympy.symbols("x1 x2 x3 x4")
    parts = split_parts(x1 * x2 + sympy.sin(x3) + 2, "sum", ((0, 1), (2,)))
    assert parts == [((0, 1), x1 * x2 + 2), ((2,), sympy.sin(x3))]
    assert split_parts(3 * (x1 + x2) * (x3 + x4), "product", ((0, 1), (2, 3))) == [
        ((0, 1), 3 * (x1 + x2)), ((2, 3), x3 + x4)]
    assert split_parts(x1 * x3 + x2, "sum", ((0, 1), (2,))) == []  # a term across groups


def test_cli_reports_the_parts(tmp_path):
    import json

    from typer.testing import CliRunner

    from superpos.cli import app

    X = points(200, 4)
    # b c^2, not b c: a law of b c alone is found first as a reduction to the pair's product
    y = 1.5 * np.sin(X[:, 0]) + X[:, 1] * X[:, 2] ** 2 - 0.5 * X[:, 3] ** 2
    path = tmp_path / "sep.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,c,d,y", comments="")
    out = CliRunner().invoke(app, ["predict", str(path), "--format", "json", "--quiet"])
    doc = json.loads(out.stdout)
    assert doc["decomposition"] == "sum"
    assert sorted(sum((p["inputs"] for p in doc["parts"]), [])) == ["a", "b", "c", "d"]
    assert any(p["formula"] == "3*sin(a)/2" for p in doc["parts"])
    text = CliRunner().invoke(app, ["predict", str(path), "--quiet"]).stdout
    assert "sum of " in text and " parts: 3*sin(a)/2 (a)" in text
