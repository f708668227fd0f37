import numpy as np
import pytest
import sympy

from superpos import Basis, SuperposError, register_function
from superpos.core.basis import available_functions
from superpos.core.symbolic import from_sympy, to_sympy
from superpos.core.tree import evaluate


def test_default_basis_layout():
    b = Basis.default(n_variables=2)
    assert b.names[0] == "h0" and b.arities[0] == 1
    assert set(b.names) >= {"add", "sub", "mul", "div", "neg", "sin", "cos", "exp", "log", "sqrt", "pow2",
                            "pow3", "x1", "x2", "c", "1", "2"}
    assert b.arities[b.index("add")] == 2 and b.arities[b.index("sin")] == 1 and b.arities[b.index("x2")] == 0
    assert Basis(b.to_list()) == b


def test_subset_by_names_and_errors():
    b = Basis(["add", "sin", "x1", "c"])
    assert b.names == ["h0", "add", "sin", "x1", "c"]
    with pytest.raises(SuperposError, match="unknown basis function"):
        Basis(["add", "sinh", "x1"])
    with pytest.raises(SuperposError, match="no leaves"):
        Basis(["add", "sin"])
    with pytest.raises(SuperposError, match="twice"):
        Basis(["add", "add", "x1"])
    with pytest.raises(SuperposError):
        b.index("cos")


@pytest.mark.parametrize("name", ["div", "log", "sqrt"])
def test_protected_functions_are_finite_or_nan_without_warnings(name):
    b = Basis([name, "x1", "1"])
    tree = [b.index(name)] + ([b.index("1")] if name == "div" else []) + [b.index("x1")]
    X = np.array([[0.0], [-2.0], [3.0]])
    with np.errstate(all="raise"):
        v = evaluate(tree, b, X)
    assert v.shape == (3,)
    assert np.all(np.isfinite(v[1:]))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "neg", "sin", "cos", "exp", "log", "sqrt", "pow2", "pow3"])
def test_numpy_and_sympy_agree(name):
    b = Basis.default(1)
    k = b.index(name)
    tree = [k] + [b.index("x1")] * int(b.arities[k])
    x = np.linspace(0.3, 2.5, 9)
    expr = to_sympy(tree, b)
    f = sympy.lambdify(b.variables, expr, "numpy")
    np.testing.assert_allclose(evaluate(tree, b, x[:, None]), f(x) * np.ones_like(x), rtol=1e-12)


def test_register_function_checked_and_usable():
    name = "tanh_test"
    if name not in available_functions():
        register_function(name, 1, np.tanh, sympy.tanh)
    b = Basis([name, "add", "x1", "c"])
    tree, consts = from_sympy("tanh(x1) + 1.5", b)
    assert b.names[tree[1]] == name or b.names[tree[2]] == name
    np.testing.assert_allclose(evaluate(tree, b, np.array([[0.5]]), [float(c) for c in consts]), np.tanh(0.5) + 1.5)
    with pytest.raises(SuperposError, match="already registered"):
        register_function(name, 1, np.tanh, sympy.tanh)


@pytest.mark.parametrize("kwargs,match", [
    (dict(name="bad1", arity=0, numpy_impl=np.sin, sympy_impl=sympy.sin), "arity"),
    (dict(name="x7", arity=1, numpy_impl=np.sin, sympy_impl=sympy.sin), "name"),
    (dict(name="bad2", arity=1, numpy_impl=lambda u: np.log(u - 5.0), sympy_impl=sympy.log), "finite"),
    (dict(name="bad3", arity=1, numpy_impl=lambda u: u[:3], sympy_impl=sympy.sin), "shape"),
    (dict(name="bad4", arity=2, numpy_impl=lambda u: u, sympy_impl=sympy.sin), "failed"),
    (dict(name="bad5", arity=1, numpy_impl=np.sin, sympy_impl=lambda u: "sin"), "sympy"),
])
def test_register_function_rejects_bad_records(kwargs, match):
    with pytest.raises(SuperposError, match=match):
        register_function(**kwargs)
    assert kwargs["name"] not in available_functions()
