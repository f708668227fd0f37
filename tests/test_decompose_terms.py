"""Monomial splits (a power law times a function of few inputs) and sums of library terms."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from superpos import Basis
from superpos.core.tree import check_tree, evaluate
from superpos.symreg.decompose import Split, monomial_splits, times_monomial
from superpos.symreg.terms import sum_trees, term_library


def test_monomial_split_finds_the_factor_and_the_inner_inputs():
    X = np.random.default_rng(0).uniform(1, 5, (200, 5))
    X[:, 3] += 4  # no pole of g inside the data (there, log|y| is far from any polynomial)
    y = X[:, 0] * X[:, 1] / (X[:, 2] * (X[:, 3] ** 2 - X[:, 4] ** 2))
    best = monomial_splits(X, y)[0]
    assert best.inner == (3, 4) and best.outer == (0, 1, 2) and best.exponents == (1.0, 1.0, -1.0)
    np.testing.assert_allclose(best.factor(X), X[:, 0] * X[:, 1] / X[:, 2])


def test_monomial_split_refuses_what_it_cannot_split():
    X = np.random.default_rng(1).uniform(1, 5, (200, 4))
    assert monomial_splits(X, X.sum(axis=1) - X.sum(axis=1)) == []  # y is zero
    X[:, :] = np.random.default_rng(2).uniform(-1, 1, (200, 4))
    assert monomial_splits(X, X[:, 0] + 10.0) == []  # four inputs with both signs can only be inner


def test_negative_inputs_get_integer_exponents():
    X = np.random.default_rng(3).uniform(1, 4, (200, 4))
    X[:, 0] *= -1
    for s in monomial_splits(X, X[:, 0] ** 3 * np.sin(X[:, 3]) * X[:, 1], limit=5):
        for j, a in zip(s.outer, s.exponents):
            assert j != 0 or a == int(a)


def test_times_monomial_multiplies_the_tree():
    b = Basis(Basis.default(3).to_list(), 5)
    from superpos.core.tree import from_string

    g = from_string("div(c, sub(pow2(x4), pow2(x5)))", b)
    split = Split((3, 4), (0, 2), (1.0, -0.5), 0.0)
    tree, consts = times_monomial(g, [2.5], b, split)
    X = np.random.default_rng(4).uniform(1, 3, (30, 5))
    np.testing.assert_allclose(evaluate(tree, b, X, consts),
                               2.5 / (X[:, 3] ** 2 - X[:, 4] ** 2) * X[:, 0] / np.sqrt(X[:, 2]), rtol=1e-10)


def test_sum_trees_propose_the_sparse_polynomial():
    b = Basis.default(2)
    X = np.random.default_rng(5).uniform(-1, 1, (20, 2))
    y = X[:, 0] ** 4 - X[:, 0] ** 3 + X[:, 1] ** 2 / 2 - X[:, 1]
    from superpos.core.symbolic import to_sympy

    shown = {str(to_sympy(t, b)) for t in sum_trees(X, y, b)}
    assert "c0 + c1*x1**3 + c2*x1**4 + c3*x2 + c4*x2**2" in shown


def test_no_singular_term_for_an_input_of_both_signs():
    b = Basis.default(2)
    X = np.random.default_rng(6).uniform(-1, 1, (30, 2))
    X[:, 1] = np.abs(X[:, 1]) + 0.1
    names = {str(e) for e in term_library(X, b)[0]}
    assert "1/x1" not in names and "log(Abs(x1))" not in names
    assert "1/x2" in names and "log(Abs(x2))" in names


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 3), n=st.integers(8, 60))
def test_every_sum_tree_is_admissible_and_finite_at_the_data(seed, m, n):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, (n, m))
    y = np.sin(X[:, 0]) * 3 + rng.normal(0, 0.1, n)
    b = Basis.default(m)
    for t in sum_trees(X, y, b):
        check_tree(t, b.arities)
        n_c = int(np.sum(np.asarray(t) == b.index("c")))
        assert np.all(np.isfinite(evaluate(t, b, X, np.ones(n_c))))


@pytest.mark.parametrize("law, expected", [
    (lambda X: X[:, 0] * X[:, 1] / (X[:, 2] * (X[:, 3] ** 2 - X[:, 4] ** 2)), "x1*x2/(x3*(x4**2 - x5**2))"),
    (lambda X: X[:, 0] * X[:, 3] + X[:, 1] * X[:, 4] + X[:, 2] * X[:, 5], "x1*x4 + x2*x5 + x3*x6"),
])
def test_laws_of_many_inputs_are_recovered(law, expected):
    import sympy

    from superpos.core.symbolic import parse_formula
    from superpos.symreg.pipeline import find_formula

    X = np.random.default_rng(7).uniform(1, 5, (200, 6))
    f = find_formula(X, law(X), random_state=0)
    assert sympy.simplify(f.expr - parse_formula(expected)) == 0, f.expr
